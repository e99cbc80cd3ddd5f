#pragma once
// NOTIFICATION (RFC 4271 §4.5), KEEPALIVE (§4.4) and ROUTE-REFRESH (RFC 2918 §3) messages, and
// the 19-octet message header every message starts with (§4.1).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "bgp/wire/byte_io.h"
#include "bgp/wire/constants.h"

namespace sluice::bgp {

// The error a NOTIFICATION reports: code, subcode and data as RFC 4271 §6 defines them.
struct Notification {
  uint8_t code = 0;
  uint8_t subcode = 0;
  std::vector<uint8_t> data;

  // "UPDATE Message Error / Malformed AS_PATH (3/11), data 4 octets"
  std::string ToString() const;
  friend bool operator==(const Notification&, const Notification&) = default;
};
std::string_view ErrorCodeName(uint8_t code);
std::string_view ErrorSubcodeName(uint8_t code, uint8_t subcode);

// Appends a message header with `body_size` octets to follow.
void AppendHeader(MessageType type, size_t body_size, ByteWriter& out);

void AppendNotification(const Notification& n, std::vector<uint8_t>* out);
void AppendKeepalive(std::vector<uint8_t>* out);
// ROUTE-REFRESH for `family` (subtype 0, RFC 7313 §3 "Reserved" for a plain refresh).
void AppendRouteRefresh(AfiSafi family, std::vector<uint8_t>* out, uint8_t subtype = 0);

// Decoders take a whole message (header included, as framed by MessageFramer).
// Errors: InvalidArgument when the body is too short.
absl::Status DecodeNotification(Bytes message, Notification* out);
// `afi`/`safi` are the raw values (a peer may ask for a family we do not support; RFC 2918 §4
// says to ignore such a request).
struct RouteRefresh {
  uint16_t afi = 0;
  uint8_t subtype = 0;
  uint8_t safi = 0;
};
// Errors: InvalidArgument when the message is not 23 octets (RFC 7313 §5: that is a
// ROUTE-REFRESH Message Error, code 7 subcode 1, "Invalid Message Length").
absl::Status DecodeRouteRefresh(Bytes message, RouteRefresh* out);

}  // namespace sluice::bgp
