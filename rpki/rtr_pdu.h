#pragma once
// The RPKI-to-Router protocol's PDUs (RFC 8210 §5, version 1; RFC 6810, version 0): what a
// router receives from a cache, decoded one PDU at a time from a byte stream, and the queries
// and error reports it sends.
//
// Version 1 and 0 differ in the End of Data PDU (version 1 carries the refresh, retry and
// expire intervals, §5.8) and in Router Key PDUs (version 1 only, §5.10; BGPsec keys, which
// Sluice skips). A PDU whose version is not the session's is an error (code 8, Unexpected
// Protocol Version, §7), except that a cache may answer our first query with an Error Report
// of an older version (code 4) to negotiate down.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "net/prefix.h"
#include "rpki/vrp_store.h"

namespace sluice::rpki::rtr {

// RFC 8210 §5.1 header: version, type, session id (or error code), length.
inline constexpr size_t kHeaderLength = 8;
// The longest PDU accepted: an Error Report with an encapsulated PDU and text (§5.11) is the
// only variable-length PDU we read; 64 KiB bounds it.
inline constexpr uint32_t kMaxPduLength = 64 * 1024;

enum class PduType : uint8_t {
  kSerialNotify = 0,
  kSerialQuery = 1,
  kResetQuery = 2,
  kCacheResponse = 3,
  kIpv4Prefix = 4,
  kIpv6Prefix = 6,
  kEndOfData = 7,
  kCacheReset = 8,
  kRouterKey = 9,
  kErrorReport = 10,
};

// RFC 8210 §12 error codes.
enum class ErrorCode : uint16_t {
  kCorruptData = 0,
  kInternalError = 1,
  kNoDataAvailable = 2,
  kInvalidRequest = 3,
  kUnsupportedProtocolVersion = 4,
  kUnsupportedPduType = 5,
  kWithdrawalOfUnknownRecord = 6,
  kDuplicateAnnouncement = 7,
  kUnexpectedProtocolVersion = 8,
};
const char* ErrorCodeName(ErrorCode code);

// §5.9 timing parameters, in seconds (defaults and bounds of §6).
struct Intervals {
  uint32_t refresh = 3600;  // 1 .. 86400
  uint32_t retry = 600;     // 1 .. 7200
  uint32_t expire = 7200;   // 600 .. 172800, larger than refresh and retry
};
// False when an interval is out of the bounds of RFC 8210 §6.
bool IntervalsValid(const Intervals& intervals);

struct SerialNotify {
  uint16_t session_id;
  uint32_t serial;
};
struct CacheResponse {
  uint16_t session_id;
};
struct PrefixPdu {  // §5.6 and §5.7
  bool announce;
  Vrp vrp;
};
struct EndOfData {
  uint16_t session_id;
  uint32_t serial;
  std::optional<Intervals> intervals;  // version 1 only
};
struct CacheReset {};
struct RouterKey {};  // BGPsec: read and skipped
struct ErrorReport {
  ErrorCode code;
  std::string text;
};
using Pdu = std::variant<SerialNotify, CacheResponse, PrefixPdu, EndOfData, CacheReset, RouterKey,
                         ErrorReport>;

// One step of decoding a stream.
struct Decoded {
  enum Kind { kNeedMore, kPdu, kError } kind = kNeedMore;
  size_t consumed = 0;  // octets of the input this PDU took (kPdu)
  uint8_t version = 0;  // the PDU's version (kPdu, and kError when the header was whole)
  Pdu pdu;              // kPdu
  ErrorCode error = ErrorCode::kCorruptData;  // kError: what to report to the cache
  std::string what;                           // kError: for the log and the Error Report text
};

// Decodes the PDU at the front of `input`, expected to be of `version` (0 or 1; an Error
// Report of any version up to 1 is accepted, for version negotiation). Never reads past the
// input; kNeedMore until a whole PDU is there. Errors: a length out of bounds or not the type's
// (Corrupt Data), a type a cache does not send (Unsupported PDU Type), a version not the
// session's (Unexpected Protocol Version) or above 1 (Unsupported Protocol Version), a prefix
// length or maxLength out of range (Corrupt Data).
Decoded Decode(std::span<const uint8_t> input, uint8_t version);

// What the router sends (§5.3, §5.4, §5.11).
std::vector<uint8_t> EncodeSerialQuery(uint8_t version, uint16_t session_id, uint32_t serial);
std::vector<uint8_t> EncodeResetQuery(uint8_t version);
// `offending`: the PDU that caused the error (at most its first kMaxPduLength / 2 octets).
std::vector<uint8_t> EncodeErrorReport(uint8_t version, ErrorCode code,
                                       std::span<const uint8_t> offending, const std::string& text);

}  // namespace sluice::rpki::rtr
