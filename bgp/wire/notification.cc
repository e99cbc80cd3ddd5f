#include "bgp/wire/notification.h"

#include <cstring>

#include "absl/strings/str_format.h"

namespace sluice::bgp {

std::string_view ErrorCodeName(uint8_t code) {
  switch (code) {
    case 1:
      return "Message Header Error";
    case 2:
      return "OPEN Message Error";
    case 3:
      return "UPDATE Message Error";
    case 4:
      return "Hold Timer Expired";
    case 5:
      return "Finite State Machine Error";
    case 6:
      return "Cease";
    case 7:
      return "ROUTE-REFRESH Message Error";
    case 8:
      return "Send Hold Timer Expired";
    default:
      return "Unknown Error";
  }
}

std::string_view ErrorSubcodeName(uint8_t code, uint8_t subcode) {
  switch (code) {
    case 1:
      switch (subcode) {
        case 1:
          return "Connection Not Synchronized";
        case 2:
          return "Bad Message Length";
        case 3:
          return "Bad Message Type";
      }
      break;
    case 2:
      switch (subcode) {
        case 0:
          return "Unspecific";
        case 1:
          return "Unsupported Version Number";
        case 2:
          return "Bad Peer AS";
        case 3:
          return "Bad BGP Identifier";
        case 4:
          return "Unsupported Optional Parameter";
        case 6:
          return "Unacceptable Hold Time";
        case 7:
          return "Unsupported Capability";
      }
      break;
    case 3:
      switch (subcode) {
        case 1:
          return "Malformed Attribute List";
        case 2:
          return "Unrecognized Well-known Attribute";
        case 3:
          return "Missing Well-known Attribute";
        case 4:
          return "Attribute Flags Error";
        case 5:
          return "Attribute Length Error";
        case 6:
          return "Invalid ORIGIN Attribute";
        case 8:
          return "Invalid NEXT_HOP Attribute";
        case 9:
          return "Optional Attribute Error";
        case 10:
          return "Invalid Network Field";
        case 11:
          return "Malformed AS_PATH";
      }
      break;
    case 6:
      switch (subcode) {
        case 1:
          return "Maximum Number of Prefixes Reached";
        case 2:
          return "Administrative Shutdown";
        case 3:
          return "Peer De-configured";
        case 4:
          return "Administrative Reset";
        case 5:
          return "Connection Rejected";
        case 6:
          return "Other Configuration Change";
        case 7:
          return "Connection Collision Resolution";
        case 8:
          return "Out of Resources";
        case 9:
          return "Hard Reset";
      }
      break;
    case 7:
      if (subcode == 1) return "Invalid Message Length";
      break;
  }
  return subcode == 0 ? "" : "Unknown Subcode";
}

std::string Notification::ToString() const {
  return absl::StrFormat("%s / %s (%d/%d), data %d octets", ErrorCodeName(code),
                         ErrorSubcodeName(code, subcode), code, subcode, data.size());
}

void AppendHeader(MessageType type, size_t body_size, ByteWriter& out) {
  // One append of the whole header: every UPDATE we encode starts here.
  uint8_t header[kHeaderSize];
  std::memset(header, 0xff, kMarkerSize);
  StoreU16(header + kMarkerSize, uint16_t(kHeaderSize + body_size));
  header[kMarkerSize + 2] = uint8_t(type);
  out.Append(header, kHeaderSize);
}

void AppendNotification(const Notification& n, std::vector<uint8_t>* out) {
  ByteWriter w(out);
  AppendHeader(MessageType::kNotification, 2 + n.data.size(), w);
  w.U8(n.code);
  w.U8(n.subcode);
  w.Append(n.data);
}

void AppendKeepalive(std::vector<uint8_t>* out) {
  ByteWriter w(out);
  AppendHeader(MessageType::kKeepalive, 0, w);
}

void AppendRouteRefresh(AfiSafi family, std::vector<uint8_t>* out, uint8_t subtype) {
  ByteWriter w(out);
  AppendHeader(MessageType::kRouteRefresh, 4, w);
  w.U16(uint16_t(family.afi));
  w.U8(subtype);
  w.U8(uint8_t(family.safi));
}

absl::Status DecodeNotification(Bytes message, Notification* out) {
  if (message.size() < size_t(kHeaderSize) + 2) {
    return absl::InvalidArgumentError(
        absl::StrFormat("NOTIFICATION of %d octets (at least 21 expected)", message.size()));
  }
  out->code = message[kHeaderSize];
  out->subcode = message[kHeaderSize + 1];
  out->data.assign(message.begin() + kHeaderSize + 2, message.end());
  return absl::OkStatus();
}

absl::Status DecodeRouteRefresh(Bytes message, RouteRefresh* out) {
  if (message.size() != size_t(kHeaderSize) + 4) {
    return absl::InvalidArgumentError(
        absl::StrFormat("ROUTE-REFRESH of %d octets (23 expected)", message.size()));
  }
  const uint8_t* p = message.data() + kHeaderSize;
  out->afi = LoadU16(p);
  out->subtype = p[2];
  out->safi = p[3];
  return absl::OkStatus();
}

}  // namespace sluice::bgp
