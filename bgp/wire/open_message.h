#pragma once
// OPEN (RFC 4271 §4.2) with capabilities (RFC 5492): multiprotocol (RFC 4760), route refresh
// (RFC 2918) and enhanced route refresh (RFC 7313), extended messages (RFC 8654), 4-octet AS
// (RFC 6793), ADD-PATH (RFC 7911), graceful restart (RFC 4724, with RFC 8538's N bit). Extended
// optional parameters (RFC 9072) are decoded. And Negotiate(): what a session may use given both
// OPENs.

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

// The Graceful Restart capability (RFC 4724 §3, the N bit from RFC 8538 §2). On the wire: a
// 16-bit field with the Restart Flags in its top 4 bits (R 0x8, N 0x4) and the Restart Time in
// its low 12, then per family AFI (2 octets), SAFI (1) and Flags for Address Family (1; F 0x80).
// A capability with no family is a helper-only speaker's: it keeps a restarting peer's routes
// but preserves no forwarding state of its own across its restarts.
inline constexpr uint16_t kGrRestartStateFlag = 0x8000;  // R: the sender has restarted
inline constexpr uint16_t kGrNotificationFlag = 0x4000;  // N: RFC 8538 NOTIFICATION support
inline constexpr uint16_t kGrMaxRestartTime = 0x0fff;    // 4095 s
inline constexpr uint8_t kGrForwardingFlag = 0x80;       // F: forwarding state preserved

struct GracefulRestart {
  bool restart_state = false;  // R bit: the sender has restarted (RFC 4724 §3)
  bool notification = false;   // N bit (RFC 8538 §2): a NOTIFICATION other than Hard Reset
                               // leaves the routes to graceful restart as well
  uint16_t restart_time = 0;   // seconds, at most kGrMaxRestartTime (12 bits on the wire)
  struct Family {
    AfiSafi family;
    bool forwarding_preserved = false;  // F bit
    friend bool operator==(const Family&, const Family&) = default;
  };
  // Supported families only, in received order; families this code base does not know are
  // dropped when decoding.
  std::vector<Family> families;

  // The entry for `family`, or null when the capability does not list it.
  const Family* Find(AfiSafi family) const;
  // "restart-time 120 R N ipv4-unicast/F ipv6-unicast" (flags and F bits only when set).
  std::string ToString() const;
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
// Errors (InvalidArgument): capabilities longer than 255 octets; a graceful restart time above
// kGrMaxRestartTime (it would not fit its 12 bits).
absl::Status AppendOpen(const OpenMessage& open, std::vector<uint8_t>* out);

// Decodes a whole OPEN message (header included). On error fills `error` with the NOTIFICATION to
// send (RFC 4271 §6.2: 2/1 unsupported version with data 0x0004, 2/2 AS 0 (RFC 7607), 2/3 BGP
// identifier 0, 2/4 unsupported optional parameter, 2/6 hold time 1 or 2, 2/0 malformed
// parameters or capabilities; 1/2 a message too short) and returns InvalidArgument.
// A capability of the wrong length (e.g. graceful restart not 2 + 4k octets) is a malformed
// Capabilities parameter: 2/0, as RFC 4271 §6.2 treats a malformed optional parameter (RFC 5492
// and RFC 4724 leave it open; the session closes rather than guessing). When a capability that
// holds one value (4-octet AS, graceful restart) appears twice, the last one counts (RFC 4724 §3).
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
