#pragma once
// What a BGP peering is configured with: the peer's address, port and AS, our
// side of the connection, timers, TCP protections (RFC 2385 MD5, RFC 5082 GTSM), the max-prefix
// limit and the options the routing side reads (next-hop-self, route-reflector client). And the
// speaker's own AS and BGP Identifier (LocalConfig).
//
// A peer is known by its transport address: two peers cannot share one address. Times are in
// seconds (double, so that tests can use fractions); the hold time is the protocol's whole
// seconds.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "bgp/wire/constants.h"
#include "net/ip_address.h"

namespace sluice::bgp {

// The speaker's identity (RFC 4271 §4.2 My Autonomous System and BGP Identifier; 4-octet AS per
// RFC 6793).
struct LocalConfig {
  uint32_t as = 0;          // 0 = not set
  net::IPv4Address bgp_id;  // 0.0.0.0 = not set
  bool complete() const { return as != 0 && bgp_id.value() != 0; }
};

// Graceful restart (RFC 4724 §3, RFC 8538 §2) as this speaker offers it, in the OPEN of every
// session whose peer does not have it disabled (PeerConfig::graceful_restart). Changes apply to
// OPENs sent from then on.
struct GracefulRestartConfig {
  // Restart Time advertised: seconds a peer keeps our routes after our session ends without a
  // Hard Reset, waiting for us to come back (at most 4095, RFC 4724 §3's 12 bits).
  uint16_t restart_time_s = 120;
  // R bit (RFC 4724 §3): this process has restarted and defers its best-path selection until the
  // peers' End-of-RIB; cleared once it has re-sent its routes.
  bool restarting = false;
  // F bit of every family advertised: the routes we sent before a session ended are still
  // forwarded. False only in a fresh start (the RIB kept nothing of an earlier sluice-bgp).
  bool forwarding_preserved = true;
};

// What to do when the peer's accepted prefixes exceed the limit (RFC 4486 §4).
enum class MaxPrefixAction : uint8_t {
  kWarn,      // log once per crossing and flag it in the peer's status
  kTeardown,  // NOTIFICATION Cease / Maximum Number of Prefixes Reached, then stay Idle
};

// What max-prefix counts.
enum class MaxPrefixCount : uint8_t {
  kReceived,  // the peer's Adj-RIB-In: every route it sent, before import policy
  kAccepted,  // the routes import policy accepted
};

struct MaxPrefix {
  size_t limit = 0;  // prefixes from the peer (all families); 0 = no limit
  MaxPrefixCount count = MaxPrefixCount::kReceived;
  MaxPrefixAction action = MaxPrefixAction::kTeardown;
  // After a teardown: seconds in Idle before the session starts again; 0 = stay down until the
  // peer is enabled again.
  double restart_after_s = 60;
};

struct PeerConfig {
  net::IPAddress address;    // the peer's transport address (the peer's key)
  uint16_t port = kBgpPort;  // the peer's TCP port, for our connections to it
  uint32_t remote_as = 0;    // required; equal to the local AS makes an iBGP peer
  // Our address on this peering: the source of our connections, and the only local address on
  // which the peer's connections are accepted. Unset: any.
  std::optional<net::IPAddress> local_address;
  uint16_t hold_time_s = 90;     // offered in our OPEN: 0 (no keepalives) or at least 3
  uint16_t min_hold_time_s = 3;  // a peer offering a hold time below this (but not 0) is refused
  // RFC 4271 §4.4 KeepaliveTime: seconds between our KEEPALIVEs. Unset: a third of the
  // negotiated hold time. Never more than a third of the negotiated hold time (a peer offering a
  // smaller hold time lowers it). Below hold_time_s; 0 only with hold time 0.
  std::optional<uint16_t> keepalive_s;
  bool passive = false;  // never connect; wait for the peer
  // RFC 2385 TCP MD5 signature key (Linux TCP_MD5SIG, at most 80 octets); empty = none.
  std::string md5_password;
  // RFC 5082 GTSM: send with TTL (hop limit) 255 and accept only packets whose TTL shows at most
  // this many hops; 0 = off. 1 for a directly connected peer.
  int gtsm_hops = 0;
  // eBGP multihop: the IP TTL (IPv6 hop limit) of what we send on the session, 1..255, for a
  // peer that many hops away; 0: the system default. Not with gtsm_hops (which sends 255).
  int multihop_ttl = 0;
  bool next_hop_self = false;           // read by the routing side
  bool route_reflector_client = false;  // read by the routing side (RFC 4456)
  MaxPrefix max_prefix;
  // The most routes the peer's Adj-RIB-In may hold (all families, before import policy, so
  // routes that policy rejects count too); one more tears the session down with Cease / Maximum
  // Number of Prefixes Reached (RFC 4486) and the idle hold of an error. It bounds the memory a
  // peer can make us use whatever max-prefix says. 0: no ceiling.
  size_t adj_rib_in_limit = kDefaultAdjRibInLimit;
  static constexpr size_t kDefaultAdjRibInLimit = 4'000'000;
  // RFC 4271 §6.3: routes from an external peer whose AS_PATH does not start with the peer's AS
  // are treat-as-withdraw (RFC 7606 §7.2). Off for a route server, which does not prepend its AS
  // (RFC 7947 §2.2.2.1).
  bool enforce_first_as = true;
  // RFC 4271 §10 ConnectRetryTime: seconds between our connection attempts.
  double connect_retry_s = 120;
  // RFC 4271 §8.1.1 DampPeerOscillations: after a session fails, Idle for idle_hold_s, doubling
  // with each consecutive failure up to idle_hold_max_s. A session that stays Established for
  // stable_s seconds forgets its earlier failures.
  double idle_hold_s = 5;
  double idle_hold_max_s = 120;
  double stable_s = 60;
  // Families offered with the multiprotocol capability (RFC 4760); IPv4 and IPv6 unicast.
  AfiSafiSet families = [] {
    AfiSafiSet s;
    s.Add(kIPv4Unicast);
    s.Add(kIPv6Unicast);
    return s;
  }();
  bool extended_messages = false;  // offer RFC 8654
  // Offer graceful restart (RFC 4724, with RFC 8538's N bit) and help the peer restart; false is
  // `graceful-restart disable;`: neither side keeps the other's routes when the session ends.
  bool graceful_restart = true;
  bool enabled = true;  // start the session when the peer is added
  std::string description;

  // Errors (InvalidArgument) name the field: no address, AS 0, hold time 1 or 2, a keepalive
  // time not below the hold time (or 0 with a hold time), a password over 80 octets, GTSM hops
  // outside 0..254, a multihop TTL outside 0..255 or with GTSM, a local address of the other
  // family, bad timers.
  absl::Status Validate() const;
  bool internal(uint32_t local_as) const { return remote_as == local_as; }
};

}  // namespace sluice::bgp
