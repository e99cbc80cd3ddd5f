#pragma once
// BMP message encoders (RFC 7854 §4; Loc-RIB monitoring, RFC 9069 §4). Every function appends
// one whole BMP message (common header included) to `out`; nothing is validated beyond sizes, so
// callers pass well-formed BGP PDUs (they come from our own sessions or our own encoder).
//
//   common header (§4.1): version 3 (1 octet), message length (4 octets, whole message), type
//   per-peer header (§4.2, 42 octets): peer type, flags, peer distinguisher (8), peer address
//     (16; IPv4 in the last 4), peer AS (4), peer BGP ID (4), timestamp seconds, microseconds
//
// Sizes: a message longer than 2^32-1 octets cannot be built; BGP PDUs are at most 65535 octets
// (RFC 8654), so none is.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "net/ip_address.h"

namespace sluice::bgp::bmp {

inline constexpr uint8_t kVersion = 3;
inline constexpr size_t kCommonHeaderSize = 6;
inline constexpr size_t kPerPeerHeaderSize = 42;

// Message types (RFC 7854 §4.1).
enum class MessageType : uint8_t {
  kRouteMonitoring = 0,
  kStatisticsReport = 1,
  kPeerDown = 2,
  kPeerUp = 3,
  kInitiation = 4,
  kTermination = 5,
};

// Peer types (RFC 7854 §4.2; 3: Loc-RIB, RFC 9069 §4.1).
enum class PeerType : uint8_t { kGlobal = 0, kLocRib = 3 };

// Per-peer header flags (RFC 7854 §4.2; RFC 9069 §4.2 for Loc-RIB's F).
inline constexpr uint8_t kFlagV = 0x80;  // peer address is IPv6
inline constexpr uint8_t kFlagL = 0x40;  // post-policy Adj-RIB-In
inline constexpr uint8_t kFlagA = 0x20;  // AS_PATH in 2-octet format (no RFC 6793)
inline constexpr uint8_t kFlagF = 0x80;  // Loc-RIB: filtered (not all of it is sent)

// The per-peer header's fields. For the Loc-RIB (RFC 9069 §4.1): peer type kLocRib, address
// zero, AS and BGP ID our own.
struct PeerHeader {
  PeerType type = PeerType::kGlobal;
  uint8_t flags = 0;  // kFlag*; V is set from `address` for the global type
  uint64_t distinguisher = 0;
  net::IPAddress address;  // unspecified (0.0.0.0) for the Loc-RIB
  uint32_t as = 0;
  uint32_t bgp_id = 0;   // host order
  uint32_t seconds = 0;  // timestamp: when the route or event happened, since the Unix epoch
  uint32_t microseconds = 0;
};

// Peer Down reasons (RFC 7854 §4.9).
enum class DownReason : uint8_t {
  kLocalNotification = 1,    // data: the NOTIFICATION PDU we sent
  kLocalNoNotification = 2,  // data: a 2-octet FSM event code
  kRemoteNotification = 3,   // data: the NOTIFICATION PDU received
  kRemoteNoData = 4,         // no data
};

// Termination reasons (RFC 7854 §4.5, TLV type 1).
enum class TerminationReason : uint16_t {
  kAdministrativelyClosed = 0,
  kUnspecified = 1,
  kOutOfResources = 2,
  kRedundantConnection = 3,
  kPermanentlyClosed = 4,
};

// Statistics types (RFC 7854 §4.8) with 64-bit gauge values.
inline constexpr uint16_t kStatAdjRibInRoutes = 7;
inline constexpr uint16_t kStatLocRibRoutes = 8;

struct Statistic {
  uint16_t type = 0;
  uint64_t gauge = 0;  // an 8-octet gauge (types 7 and 8)
};

// The per-peer header alone (42 octets), for tests and for the messages below.
void AppendPerPeerHeader(const PeerHeader& peer, std::vector<uint8_t>* out);
// The same octets, encoded once for the messages that share them (a batch of one peer's UPDATEs
// stamped with one time).
using EncodedPeerHeader = std::array<uint8_t, kPerPeerHeaderSize>;
EncodedPeerHeader EncodePerPeerHeader(const PeerHeader& peer);

// Initiation (§4.3): sysDescr (TLV 1) and sysName (TLV 2) information TLVs.
void AppendInitiation(const std::string& sys_name, const std::string& sys_descr,
                      std::vector<uint8_t>* out);
// Termination (§4.5): a reason TLV (type 1).
void AppendTermination(TerminationReason reason, std::vector<uint8_t>* out);
// Peer Up (§4.10): local address and ports, the OPEN we sent and the OPEN we received (whole
// BGP messages, header included). `table_name` non-empty: a VRF/Table Name TLV (type 3, RFC 9069
// §5.1, required for the Loc-RIB).
void AppendPeerUp(const PeerHeader& peer, const net::IPAddress& local_address, uint16_t local_port,
                  uint16_t remote_port, std::span<const uint8_t> sent_open,
                  std::span<const uint8_t> received_open, const std::string& table_name,
                  std::vector<uint8_t>* out);
// Peer Down (§4.9): reason 1 and 3 carry `data` (a NOTIFICATION PDU), 2 a 2-octet FSM event
// code in `fsm_event`, 4 nothing.
void AppendPeerDown(const PeerHeader& peer, DownReason reason, std::span<const uint8_t> data,
                    uint16_t fsm_event, std::vector<uint8_t>* out);
// The common and per-peer headers of a Route Monitoring message (§4.6) that carries a BGP UPDATE
// PDU of `update_octets`: the 48 octets that go before the UPDATE.
using RouteMonitoringHeaders = std::array<uint8_t, kCommonHeaderSize + kPerPeerHeaderSize>;
RouteMonitoringHeaders RouteMonitoringHeadersFor(const EncodedPeerHeader& peer,
                                                 size_t update_octets);
// Route Monitoring (§4.6): one whole BGP UPDATE PDU.
void AppendRouteMonitoring(const PeerHeader& peer, std::span<const uint8_t> update,
                           std::vector<uint8_t>* out);
void AppendRouteMonitoring(const EncodedPeerHeader& peer, std::span<const uint8_t> update,
                           std::vector<uint8_t>* out);
// Statistics Report (§4.8): gauges (8-octet values).
void AppendStatisticsReport(const PeerHeader& peer, std::span<const Statistic> stats,
                            std::vector<uint8_t>* out);

}  // namespace sluice::bgp::bmp
