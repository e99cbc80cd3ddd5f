#pragma once
// UpdateEncoder: UPDATE messages (RFC 4271 §4.3, RFC 4760, RFC 7911) in canonical form, packed
// into as few messages as the session's maximum message size allows (4096 octets, or 65535 with
// RFC 8654 extended messages). This is what an Adj-RIB-Out calls to send routes:
//
//   UpdateEncoder encoder(params);
//   std::vector<uint8_t> wire;                       // messages are appended back to back
//   ASSIGN_OR_RETURN(int n, encoder.Pack(&*attrs, announce, withdraw, &wire));
//   encoder.EndOfRib(kIPv4Unicast, &wire);
//
// Layout: IPv4 unicast NLRI go in the classic Withdrawn Routes and NLRI fields, every other
// family in MP_UNREACH_NLRI / MP_REACH_NLRI (placed at their type codes among the attributes).
// Withdrawals come first; the last withdrawal message also carries announcements when they fit.
// One message announces one family. Path identifiers are written for families in
// SessionParams::add_path_send.

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bgp/wire/attribute_encoder.h"
#include "bgp/wire/nlri.h"
#include "bgp/wire/path_attributes.h"
#include "bgp/wire/session_params.h"
#include "bgp/wire/update_message.h"

namespace sluice::bgp {

class UpdateEncoder {
 public:
  // `readvertise`: set the Partial bit on unknown optional transitive attributes (what a speaker
  // passing routes on must do); off for exact re-encoding.
  explicit UpdateEncoder(const SessionParams& params, bool readvertise = true);

  // Appends UPDATEs withdrawing `withdraw` and announcing `announce` with `attrs` (may be null
  // when `announce` is empty). Returns the number of messages appended.
  // Errors (InvalidArgument): announcements without attributes, IPv4 unicast NLRI without
  // NEXT_HOP, other families without an MP nexthop, attributes too large for one message.
  absl::StatusOr<int> Pack(const PathAttributes* attrs, std::span<const Nlri> announce,
                           std::span<const Nlri> withdraw, std::vector<uint8_t>* out) const;
  absl::StatusOr<int> Announce(const PathAttributes& attrs, std::span<const Nlri> announce,
                               std::vector<uint8_t>* out) const {
    return Pack(&attrs, announce, {}, out);
  }
  absl::StatusOr<int> Withdraw(std::span<const Nlri> withdraw, std::vector<uint8_t>* out) const {
    return Pack(nullptr, {}, withdraw, out);
  }

  // The End-of-RIB marker of `family` (RFC 4724 §2): an empty UPDATE for IPv4 unicast, an UPDATE
  // holding only an empty MP_UNREACH_NLRI otherwise.
  void EndOfRib(AfiSafi family, std::vector<uint8_t>* out) const;

  // Exactly one UPDATE with the content of `update` (its withdrawn and announced NLRI, its
  // attributes, its End-of-RIB marker), laid out as UpdateMessage::classic_withdrawn and
  // classic_announced say (the NLRI past them go in MP_UNREACH/MP_REACH_NLRI). For decode→encode
  // checks and for writing MRT logs; to send routes use Pack().
  // Errors (InvalidArgument): more than one MP family in a direction, or it does not fit.
  absl::Status EncodeOne(const UpdateMessage& update, std::vector<uint8_t>* out) const;

  // Pack (Announce, Withdraw) and EndOfRib leave `octets` zero octets before each message they
  // append, for a framing the caller writes there: BMP's Route Monitoring headers go before each
  // UPDATE without the UPDATEs being copied. 0 (the default): messages back to back.
  void set_message_gap(size_t octets) { message_gap_ = octets; }

  const SessionParams& params() const { return params_; }
  // Whether `other` makes the same octets as this encoder from every input: the same AS number
  // size, Partial-bit rule, maximum message size, ADD-PATH send families and message gap.
  bool EncodesLike(const UpdateEncoder& other) const;

 private:
  SessionParams params_;
  AttributeEncodeOptions attr_options_;
  size_t message_gap_ = 0;
};

}  // namespace sluice::bgp
