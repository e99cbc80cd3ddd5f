#include "rpki/rtr_pdu.h"

#include <boost/endian/conversion.hpp>

#include "absl/strings/str_format.h"

namespace sluice::rpki::rtr {
namespace {

using boost::endian::load_big_u16;
using boost::endian::load_big_u32;
using boost::endian::load_big_u64;
using boost::endian::store_big_u16;
using boost::endian::store_big_u32;

constexpr uint8_t kMaxVersion = 1;

Decoded Error(ErrorCode code, uint8_t version, std::string what) {
  Decoded d;
  d.kind = Decoded::kError;
  d.error = code;
  d.version = version;
  d.what = std::move(what);
  return d;
}

Decoded Ok(Pdu pdu, uint8_t version, size_t consumed) {
  Decoded d;
  d.kind = Decoded::kPdu;
  d.pdu = std::move(pdu);
  d.version = version;
  d.consumed = consumed;
  return d;
}

// The PDU's length must be `want` octets.
std::optional<Decoded> WrongLength(const char* name, uint32_t length, uint32_t want,
                                   uint8_t version) {
  if (length == want) return std::nullopt;
  return Error(ErrorCode::kCorruptData, version,
               absl::StrFormat("%s PDU of %u octets (want %u)", name, length, want));
}

Decoded DecodePrefix(const uint8_t* p, uint32_t length, uint8_t version, bool v6) {
  const uint32_t want = v6 ? 32 : 20;
  if (auto e = WrongLength(v6 ? "IPv6 Prefix" : "IPv4 Prefix", length, want, version)) return *e;
  const int bits = v6 ? 128 : 32;
  const uint8_t flags = p[8], prefix_length = p[9], max_length = p[10];
  if (prefix_length > bits || max_length < prefix_length || max_length > bits) {
    return Error(ErrorCode::kCorruptData, version,
                 absl::StrFormat("prefix length %u, max length %u in an IPv%d Prefix PDU",
                                 prefix_length, max_length, v6 ? 6 : 4));
  }
  PrefixPdu pdu{(flags & 1) != 0, {}};
  pdu.vrp.prefix =
      v6 ? net::Prefix(net::IPv6Address(load_big_u64(p + 12), load_big_u64(p + 20)), prefix_length)
         : net::Prefix(net::IPv4Address(load_big_u32(p + 12)), prefix_length);
  pdu.vrp.max_length = max_length;
  pdu.vrp.asn = load_big_u32(p + want - 4);
  return Ok(pdu, version, length);
}

Decoded DecodeEndOfData(const uint8_t* p, uint32_t length, uint8_t version) {
  if (auto e = WrongLength("End of Data", length, version == 0 ? 12 : 24, version)) return *e;
  EndOfData pdu{load_big_u16(p + 2), load_big_u32(p + 8), std::nullopt};
  if (version >= 1) {
    pdu.intervals = Intervals{load_big_u32(p + 12), load_big_u32(p + 16), load_big_u32(p + 20)};
  }
  return Ok(pdu, version, length);
}

Decoded DecodeErrorReport(const uint8_t* p, uint32_t length, uint8_t version) {
  const auto corrupt = [&] {
    return Error(
        ErrorCode::kCorruptData, version,
        absl::StrFormat("Error Report PDU of %u octets with inconsistent lengths", length));
  };
  if (length < 16) return corrupt();
  const uint32_t encapsulated = load_big_u32(p + 8);
  if (encapsulated > length - 16) return corrupt();
  const uint32_t text_length = load_big_u32(p + 12 + encapsulated);
  if (text_length != length - 16 - encapsulated) return corrupt();
  const char* text = reinterpret_cast<const char*>(p + 16 + encapsulated);
  return Ok(
      ErrorReport{static_cast<ErrorCode>(load_big_u16(p + 2)), std::string(text, text_length)},
      version, length);
}

}  // namespace

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kCorruptData:
      return "Corrupt Data";
    case ErrorCode::kInternalError:
      return "Internal Error";
    case ErrorCode::kNoDataAvailable:
      return "No Data Available";
    case ErrorCode::kInvalidRequest:
      return "Invalid Request";
    case ErrorCode::kUnsupportedProtocolVersion:
      return "Unsupported Protocol Version";
    case ErrorCode::kUnsupportedPduType:
      return "Unsupported PDU Type";
    case ErrorCode::kWithdrawalOfUnknownRecord:
      return "Withdrawal of Unknown Record";
    case ErrorCode::kDuplicateAnnouncement:
      return "Duplicate Announcement Received";
    case ErrorCode::kUnexpectedProtocolVersion:
      return "Unexpected Protocol Version";
  }
  return "unknown error";
}

bool IntervalsValid(const Intervals& i) {
  return i.refresh >= 1 && i.refresh <= 86400 && i.retry >= 1 && i.retry <= 7200 &&
         i.expire >= 600 && i.expire <= 172800 && i.expire > i.refresh && i.expire > i.retry;
}

Decoded Decode(std::span<const uint8_t> input, uint8_t version) {
  if (input.size() < kHeaderLength) return Decoded{};
  const uint8_t* p = input.data();
  const uint8_t pdu_version = p[0];
  const auto type = static_cast<PduType>(p[1]);
  const uint32_t length = load_big_u32(p + 4);
  if (length < kHeaderLength || length > kMaxPduLength) {
    return Error(ErrorCode::kCorruptData, pdu_version,
                 absl::StrFormat("PDU length %u out of bounds", length));
  }
  if (pdu_version > kMaxVersion) {
    return Error(ErrorCode::kUnsupportedProtocolVersion, pdu_version,
                 absl::StrFormat("PDU of version %u", pdu_version));
  }
  const bool negotiating = type == PduType::kErrorReport && pdu_version < version;
  if (pdu_version != version && !negotiating) {
    return Error(
        ErrorCode::kUnexpectedProtocolVersion, pdu_version,
        absl::StrFormat("PDU of version %u in a version %u session", pdu_version, version));
  }
  if (input.size() < length) return Decoded{};
  switch (type) {
    case PduType::kSerialNotify:
      if (auto e = WrongLength("Serial Notify", length, 12, version)) return *e;
      return Ok(SerialNotify{load_big_u16(p + 2), load_big_u32(p + 8)}, version, length);
    case PduType::kCacheResponse:
      if (auto e = WrongLength("Cache Response", length, 8, version)) return *e;
      return Ok(CacheResponse{load_big_u16(p + 2)}, version, length);
    case PduType::kIpv4Prefix:
      return DecodePrefix(p, length, version, false);
    case PduType::kIpv6Prefix:
      return DecodePrefix(p, length, version, true);
    case PduType::kEndOfData:
      return DecodeEndOfData(p, length, version);
    case PduType::kCacheReset:
      if (auto e = WrongLength("Cache Reset", length, 8, version)) return *e;
      return Ok(CacheReset{}, version, length);
    case PduType::kRouterKey:
      if (version == 0) break;
      if (length < 32) return Error(ErrorCode::kCorruptData, version, "short Router Key PDU");
      return Ok(RouterKey{}, version, length);
    case PduType::kErrorReport:
      return DecodeErrorReport(p, length, pdu_version);
    case PduType::kSerialQuery:
    case PduType::kResetQuery:
      return Error(ErrorCode::kInvalidRequest, version, "a query PDU from the cache");
  }
  return Error(ErrorCode::kUnsupportedPduType, version,
               absl::StrFormat("PDU type %u", static_cast<unsigned>(type)));
}

namespace {

std::vector<uint8_t> Header(uint8_t version, PduType type, uint16_t field, uint32_t length) {
  std::vector<uint8_t> out(length, 0);
  out[0] = version;
  out[1] = static_cast<uint8_t>(type);
  store_big_u16(out.data() + 2, field);
  store_big_u32(out.data() + 4, length);
  return out;
}

}  // namespace

std::vector<uint8_t> EncodeSerialQuery(uint8_t version, uint16_t session_id, uint32_t serial) {
  std::vector<uint8_t> out = Header(version, PduType::kSerialQuery, session_id, 12);
  store_big_u32(out.data() + 8, serial);
  return out;
}

std::vector<uint8_t> EncodeResetQuery(uint8_t version) {
  return Header(version, PduType::kResetQuery, 0, 8);
}

std::vector<uint8_t> EncodeErrorReport(uint8_t version, ErrorCode code,
                                       std::span<const uint8_t> offending,
                                       const std::string& text) {
  const size_t encapsulated = std::min<size_t>(offending.size(), kMaxPduLength / 2);
  const size_t text_length = std::min<size_t>(text.size(), kMaxPduLength / 4);
  const auto length = static_cast<uint32_t>(16 + encapsulated + text_length);
  std::vector<uint8_t> out =
      Header(version, PduType::kErrorReport, static_cast<uint16_t>(code), length);
  store_big_u32(out.data() + 8, static_cast<uint32_t>(encapsulated));
  std::copy_n(offending.begin(), encapsulated, out.begin() + 12);
  store_big_u32(out.data() + 12 + encapsulated, static_cast<uint32_t>(text_length));
  std::copy_n(text.begin(), text_length, out.begin() + 16 + encapsulated);
  return out;
}

}  // namespace sluice::rpki::rtr
