#pragma once
// UpdateDecoder: one UPDATE message (RFC 4271 §4.3, RFC 4760 MP_REACH/MP_UNREACH, RFC 7911
// ADD-PATH) into an UpdateMessage, with RFC 7606 error handling, driven by the session's
// negotiated parameters.
//
//   UpdateDecoder decoder(params, &store);
//   UpdateMessage update;                       // reuse it: its vectors keep their capacity
//   decoder.Decode(message_bytes, &update);     // a whole message, header included
//   switch (update.errors.action()) {
//     case UpdateAction::kSessionReset: send update.errors.notification, close; break;
//     case UpdateAction::kAfiSafiDisable: ... update.errors.disabled_families ...
//     default: withdraw update.withdrawn; add update.announced with update.attributes;
//   }
//
// Error approaches (RFC 7606): a session reset for an unparseable message layout (lengths that
// overrun the message, bad Withdrawn Routes or NLRI fields, repeated MP attributes, an
// unrecognized well-known attribute); AFI/SAFI disable for a malformed MP_REACH/MP_UNREACH whose
// family is known; treat-as-withdraw for malformed ORIGIN, AS_PATH, NEXT_HOP, MED, LOCAL_PREF
// (iBGP), COMMUNITIES, ORIGINATOR_ID, CLUSTER_LIST, extended and large communities, for wrong
// Optional/Transitive flags, attribute-list overruns and missing well-known attributes; attribute
// discard for ATOMIC_AGGREGATE, AGGREGATOR, AS4_PATH and AS4_AGGREGATOR errors and for LOCAL_PREF
// from eBGP. Semantic checks (SessionParams::mrt == false only): NEXT_HOP 0.0.0.0, multicast or
// class E; AS 0 (RFC 7607); confederation segments from an external peer; an AS_PATH not
// starting with the peer's AS (SessionParams::enforce_first_as, treat-as-withdraw per RFC 7606
// §7.2). Attribute overruns that may have swallowed MP_REACH_NLRI or MP_UNREACH_NLRI reset the
// session (RFC 7606 §3(j), see attribute_decoder.h), as does any error other than attribute
// discard in an UPDATE with path attributes but no reachable NLRI (RFC 7606 §5.2).
//
// Not thread-safe (it holds decode scratch); use one decoder per thread. The store may be shared.

#include "bgp/wire/attribute_decoder.h"
#include "bgp/wire/attribute_store.h"
#include "bgp/wire/session_params.h"
#include "bgp/wire/update_message.h"

namespace sluice::bgp {

class UpdateDecoder {
 public:
  UpdateDecoder(const SessionParams& params, AttributeStore* store);

  // `message`: a whole UPDATE message, header included. Never fails: problems are in
  // out->errors (a message of the wrong type or length is a session reset with the RFC 4271
  // §6.1 header error).
  void Decode(Bytes message, UpdateMessage* out);
  // The same for the body only (what follows the 19-octet header).
  void DecodeBody(Bytes body, UpdateMessage* out);

  const SessionParams& params() const { return params_; }
  void set_params(const SessionParams& params) { params_ = params; }

 private:
  // RFC 4271 §6.3 enforce-first-as (SessionParams::enforce_first_as): treat-as-withdraw when
  // the AS_PATH of announced routes does not start with the peer's AS.
  void CheckFirstAs(UpdateMessage* out) const;
  // RFC 7606 §5.2: an error other than attribute discard in an UPDATE with path attributes but
  // no reachable NLRI (`reachable`: an NLRI field or MP_REACH_NLRI) resets the session. True
  // when it did.
  bool ResetForMissingNlri(bool reachable, UpdateMessage* out) const;

  SessionParams params_;
  AttributeStore* store_;
  AttributeDecoder attribute_decoder_;
  PathAttributes scratch_;
};

}  // namespace sluice::bgp
