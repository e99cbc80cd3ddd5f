#pragma once
// SessionParams: what the two ends of a session agreed on, which is what UPDATE decoding and
// encoding depend on. Made by Negotiate() (bgp/wire/open_message.h) from the two OPENs, or by hand
// for MRT data (SessionParams::ForMrt).

#include <cstddef>

#include "bgp/wire/constants.h"

namespace sluice::bgp {

struct SessionParams {
  // RFC 6793: AS numbers are 4 octets in AS_PATH and AGGREGATOR (both sides sent the capability).
  bool four_octet_as = true;
  // RFC 8654: UPDATE, NOTIFICATION and ROUTE-REFRESH may be up to 65535 octets.
  bool extended_message = false;
  // The peer is in another AS (eBGP): LOCAL_PREF from it is ignored (RFC 4271 §5.1.5),
  // confederation segments in its AS_PATH are malformed (RFC 7606 §7.2).
  bool external = true;
  // AFI/SAFIs negotiated (RFC 4760). NLRI of other families are ignored on decode.
  AfiSafiSet families = [] {
    AfiSafiSet s;
    s.Add(kIPv4Unicast);
    return s;
  }();
  // RFC 4271 §6.3 enforce-first-as: the AS an external peer's AS_PATH must start with (its own);
  // routes whose AS_PATH does not are treat-as-withdraw (RFC 7606 §7.2). 0: not checked.
  uint32_t enforce_first_as = 0;
  // RFC 7911: NLRI carry a 4-octet Path Identifier — in what we receive / in what we send.
  AfiSafiSet add_path_receive;
  AfiSafiSet add_path_send;
  // Decoding of archived messages (MRT): every supported AFI/SAFI is accepted and only syntax is
  // checked (no semantic checks of NEXT_HOP values, no AS 0 rule, no missing-attribute rule), so
  // that a capture reads as its collector saw it.
  bool mrt = false;

  size_t max_message_size() const {
    return extended_message ? kMaxExtendedMessageSize : kMaxMessageSize;
  }
  // Parameters for MRT BGP4MP messages and RIB entries: `as4` for the *_AS4 subtypes and
  // TABLE_DUMP_V2, `add_path` for the *_ADDPATH subtypes (RFC 8050).
  static SessionParams ForMrt(bool as4, bool add_path) {
    SessionParams p;
    p.four_octet_as = as4;
    p.extended_message = true;
    p.external = false;
    p.families = AfiSafiSet::All();
    if (add_path) {
      p.add_path_receive = AfiSafiSet::All();
      p.add_path_send = AfiSafiSet::All();
    }
    p.mrt = true;
    return p;
  }
};

}  // namespace sluice::bgp
