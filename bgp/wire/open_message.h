#pragma once
// OPEN (RFC 4271 §4.2) with capabilities (RFC 5492): multiprotocol (RFC 4760), route refresh
// (RFC 2918) and enhanced route refresh (RFC 7313), extended messages (RFC 8654), 4-octet AS
// (RFC 6793), ADD-PATH (RFC 7911), graceful restart (RFC 4724, parsed). Extended optional
// parameters (RFC 9072) are decoded. And Negotiate(): what a session may use given both OPENs.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "bgp/wire/byte_io.h"
#include "bgp/wire/constants.h"
#include "bgp/wire/notification.h"
#include "bgp/wire/session_params.h"
#include "net/ip_address.h"

namespace sluice::bgp {

// RFC 7911 §4 Send/Receive field.
inline constexpr uint8_t kAddPathReceive = 1;
inline constexpr uint8_t kAddPathSend = 2;

struct AddPathFamily {
  AfiSafi family;
  uint8_t send_receive = 0;  // kAddPathReceive | kAddPathSend
  friend bool operator==(const AddPathFamily&, const AddPathFamily&) = default;
};

struct GracefulRestart {
  bool restart_state = false;  // R bit: the sender has restarted
  bool notification = false;   // N bit (RFC 8538)
  uint16_t restart_time = 0;   // seconds, 12 bits
  struct Family {
    AfiSafi family;
    bool forwarding_preserved = false;
    friend bool operator==(const Family&, const Family&) = default;
  };
  std::vector<Family> families;
  friend bool operator==(const GracefulRestart&, const GracefulRestart&) = default;
};

struct RawCapability {
  uint8_t code = 0;
  std::vector<uint8_t> value;
  friend bool operator==(const RawCapability&, const RawCapability&) = default;
};

struct Capabilities {
  std::vector<AfiSafi> multiprotocol;  // supported families only; others go to `unknown`
  bool route_refresh = false;
  bool enhanced_route_refresh = false;
  bool extended_message = false;
  std::optional<uint32_t> four_octet_as;
  std::vector<AddPathFamily> add_path;
  std::optional<GracefulRestart> graceful_restart;
  std::vector<RawCapability> unknown;  // in received order
  friend bool operator==(const Capabilities&, const Capabilities&) = default;
};

struct OpenMessage {
  uint8_t version = 4;
  uint16_t my_as = 0;       // the 2-octet field: AS_TRANS when the AS needs 4 octets
  uint16_t hold_time = 90;  // seconds; 0 or at least 3
  net::IPv4Address bgp_identifier;
  Capabilities capabilities;

  // The speaker's AS: the 4-octet AS capability when present, else My Autonomous System.
  uint32_t AsNumber() const { return capabilities.four_octet_as.value_or(my_as); }
  // An OPEN for AS `as` with the 4-octet AS capability set to `as` and My AS filled in (AS_TRANS
  // for a 4-octet AS, RFC 6793 §4.1).
  static OpenMessage Make(uint32_t as, uint16_t hold_time, net::IPv4Address id,
                          Capabilities capabilities);
  std::string ToString() const;
  friend bool operator==(const OpenMessage&, const OpenMessage&) = default;
};

// Appends the OPEN message; all capabilities go in one Capabilities optional parameter.
// Errors (InvalidArgument): capabilities longer than 255 octets.
absl::Status AppendOpen(const OpenMessage& open, std::vector<uint8_t>* out);

// Decodes a whole OPEN message (header included). On error fills `error` with the NOTIFICATION to
// send (RFC 4271 §6.2: 2/1 unsupported version with data 0x0004, 2/2 AS 0 (RFC 7607), 2/3 BGP
// identifier 0, 2/4 unsupported optional parameter, 2/6 hold time 1 or 2, 2/0 malformed
// parameters or capabilities; 1/2 a message too short) and returns InvalidArgument.
// Checks that need configuration (expected peer AS, local identifier) are the session's.
absl::Status DecodeOpen(Bytes message, OpenMessage* out, Notification* error);

// What a session may use once both OPENs are known (RFC 4271 §4.2, RFC 4760 §8, RFC 6793 §3,
// RFC 8654 §3, RFC 7911 §4).
struct Negotiated {
  SessionParams params;
  uint16_t hold_time = 0;       // the smaller of the two; 0 = no keepalives
  uint16_t keepalive_time = 0;  // hold_time / 3
  uint32_t peer_as = 0;
  bool route_refresh = false;  // both sides (RFC 2918)
  bool enhanced_route_refresh = false;
  std::optional<GracefulRestart> peer_graceful_restart;
};
// Families: those both list (a side listing none has IPv4 unicast only). `external`: eBGP.
Negotiated Negotiate(const OpenMessage& local, const OpenMessage& remote, bool external);

}  // namespace sluice::bgp
