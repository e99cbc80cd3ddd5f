#pragma once
// The router manager's configuration as typed values: what each process is
// configured with once a file has been parsed and validated (config_loader.h). Every value has
// been checked (types, ranges, families, duplicates, references), so a process adapter can push
// it as it is.
//
// Defaults are the values a field holds when the file does not mention it. Locations say where
// a value was written, for error messages; they take no part in comparisons: two
// configurations are equal (==) when they configure the same thing, wherever it was written.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/log.h"
#include "bgp/session/peer_config.h"
#include "net/ip_address.h"
#include "net/prefix.h"
#include "policy/ast.h"
#include "rtrmgr/config/diagnostics.h"
#include "rtrmgr/config/policy_text.h"

namespace sluice::rtrmgr {

// Where something was written. Always compares equal, so that == on the structs below compares
// only what is configured.
struct Where {
  Location loc;
  friend bool operator==(const Where&, const Where&) { return true; }
};

// A name written in the file (a policy in an import list), with where it was written.
struct NameRef {
  std::string name;
  Where where;
  friend bool operator==(const NameRef&, const NameRef&) = default;
};

// ---- interfaces { interface NAME { ... } } — the dummy FEA's interface tree.

struct InterfaceAddressConfig {
  net::IPAddress address;  // the interface's own address
  int prefix_length = 0;   // of the connected network: 1..32 (IPv4), 1..128 (IPv6)
  Where where;
  net::Prefix network() const { return net::Prefix(address, prefix_length); }
  std::string ToString() const;  // "10.1.0.1/24"
  friend bool operator==(const InterfaceAddressConfig&, const InterfaceAddressConfig&) = default;
};

struct InterfaceConfig {
  std::string name;  // 1..15 octets of [A-Za-z0-9_.-]; not "lo" (built into the dummy FEA)
  std::vector<InterfaceAddressConfig> addresses;  // in file order, no duplicates
  bool enabled = true;                            // false: `disable;`
  uint32_t mtu = 1500;                            // octets, 68..65536 (1280.. with IPv6)
  std::optional<std::array<uint8_t, 6>> mac;      // `mac 02:00:00:00:00:01;`
  std::string description;
  Where where;
  friend bool operator==(const InterfaceConfig&, const InterfaceConfig&) = default;
};

// The dummy FEA's built-in loopback interface and its addresses (fea/dummy_ifmgr.h). On Linux
// every address of 127.0.0.0/8 is local, so each counts as on "lo".
inline constexpr const char* kLoopbackInterface = "lo";

// ---- fea { backend dummy | netlink; table N; }

enum class FeaBackend { kDummy, kNetlink };
const char* FeaBackendName(FeaBackend backend);  // "dummy" / "netlink"

struct FeaConfig {
  FeaBackend backend = FeaBackend::kDummy;
  uint32_t table = 254;  // the kernel table (netlink): 1..4294967294, not 255 (local)
  // `retain-on-exit;`: a deliberate stop (SIGTERM) leaves the FEA's routes in the kernel for
  // the next start to adopt (sluice-fea --retain-on-exit); by default the FEA removes them.
  bool retain_on_exit = false;
  // `remote-only;`: no local sluice-fea. The forwarding engines run on other hosts, register
  // with the Finder over its TCP listener (finder { listen ...; tls { ... } }) and report their
  // own interfaces; the RIB feeds every one (DESIGN.md § Processes). Fixed until the next start.
  bool remote_only = false;
  Where where;
  friend bool operator==(const FeaConfig&, const FeaConfig&) = default;
};

// ---- rib { admin-distance { PROTOCOL N; } }

struct AdminDistanceConfig {
  uint16_t distance = 0;  // 0..255; lower wins
  Where where;
  friend bool operator==(const AdminDistanceConfig&, const AdminDistanceConfig&) = default;
};

struct RibConfig {
  // Protocol name ([a-z0-9_-], 1..32) -> distance; protocols not named keep the RIB's defaults
  // (connected 0, static 1, ebgp 20, ospf 110, isis 115, rip 120, ibgp 200).
  std::map<std::string, AdminDistanceConfig> admin_distances;
  // `restart-time SECONDS;` (1..3600): how long a restarted RIB waits for every protocol that
  // had routes in the FEA to re-feed it and send its end-of-RIB before the FEA sweeps what was
  // not re-sent (sluice-rib --restart-time).
  uint32_t restart_time_s = 60;
  // `fea-max-backlog CHANGES;` (0..100000000, 0: no bound): route changes the RIB queues for the
  // FEA and has not sent; past it the FEA is lagging and gets a full push once it has caught up
  // (sluice-rib --fea-max-backlog, rib/fea_out_stage.h).
  uint32_t fea_max_backlog = 524288;
  friend bool operator==(const RibConfig&, const RibConfig&) = default;
};

// ---- protocols { static { route PREFIX { ... } } } — sluice-static.

struct StaticRoute {
  net::Prefix prefix;                      // no host bits
  std::optional<net::IPAddress> next_hop;  // same family as the prefix
  std::string interface;                   // empty: found from the next hop
  uint32_t metric = 1;
  uint32_t tag = 0;    // for policy (`from { tag N; }`)
  bool track = false;  // withdrawn while the next hop is unresolvable (RIB interest)
  Where where;
  Where interface_where;
  friend bool operator==(const StaticRoute&, const StaticRoute&) = default;
};

struct StaticConfig {
  std::map<net::Prefix, StaticRoute> routes;
  friend bool operator==(const StaticConfig&, const StaticConfig&) = default;
};

// ---- protocols { rpki { cache ADDRESS { ... } } } — sluice-rpki (rpki/1.0 add_cache).

// One RTR cache (RFC 8210). The intervals are what sluice-rpki uses until the cache's End of
// Data brings its own (RFC 8210 §6); 0: sluice-rpki's defaults (3600, 600, 7200 s).
struct RpkiCache {
  net::IPAddress address;
  uint32_t port = 323;      // 1..65535 (RFC 8210 §9: 323, plain TCP)
  uint32_t preference = 0;  // 0..255; lower is preferred (RFC 8210 §10)
  uint32_t refresh = 0;     // seconds, 1..86400
  uint32_t retry = 0;       // seconds, 1..7200
  uint32_t expire = 0;      // seconds, 600..172800, more than refresh and retry
  Where where;
  std::string ToString() const;  // "127.0.0.1 port 8323", "::1 port 323"
  friend bool operator==(const RpkiCache&, const RpkiCache&) = default;
};

struct RpkiConfig {
  bool enabled = false;  // the block is there: sluice-rpki runs, even without caches
  // By (address, port): one address may serve on several ports.
  std::map<std::pair<net::IPAddress, uint32_t>, RpkiCache> caches;
  Where where;
  friend bool operator==(const RpkiConfig&, const RpkiConfig&) = default;
};

// ---- protocols { bgp { ... } }

// Route flap damping parameters (RFC 2439 §4.2; defaults RIPE-580). Times in seconds; reuse and
// suppress are figures of merit (a withdrawal costs 1000).
struct DampingConfig {
  uint32_t half_life_s = 15 * 60;
  uint32_t reuse = 750;
  uint32_t suppress = 6000;
  uint32_t max_suppress_s = 60 * 60;
  Where where;
  friend bool operator==(const DampingConfig&, const DampingConfig&) = default;
};

// mrt { table-dump "PATTERN" { interval 2h; } updates "PATTERN" { rotate 15m; } }: sluice-bgp's
// MRT (RFC 6396) files. Patterns are absolute strftime(3) patterns filled in with UTC time; a
// name ending in ".gz" is gzip-compressed. Times in seconds.
struct BgpMrtConfig {
  std::string table_dump;                 // TABLE_DUMP_V2 of the Loc-RIB; "": none
  uint32_t table_dump_interval_s = 7200;  // every interval, aligned on the epoch
  std::string updates;                    // BGP4MP_ET log of what every session receives; "": none
  uint32_t updates_rotate_s = 900;        // a new file every period, aligned on the epoch
  Where where;
  bool enabled() const { return !table_dump.empty() || !updates.empty(); }
  friend bool operator==(const BgpMrtConfig&, const BgpMrtConfig&) = default;
};

struct BgpPeer {
  // Everything the session layer takes (bgp/session/peer_config.h), already validated by
  // PeerConfig::Validate(): address, port, remote AS, local address, hold time, passive, MD5
  // password, GTSM hops, next-hop-self, route-reflector client, max-prefix, enabled,
  // description. Fields the file cannot set keep PeerConfig's defaults.
  bgp::PeerConfig session;
  std::vector<NameRef> import_policies;  // the import filter bank's chain, in order
  std::vector<NameRef> export_policies;  // the export filter bank's chain, in order
  bool damping = false;                  // plumb a damping stage with BgpConfig::damping
  // next-hop6 ADDRESS: our NEXT_HOP for IPv6 routes to this peer (RFC 4760, RFC 2545), needed
  // when the session runs over IPv4; default: the session's local address when it is IPv6.
  std::optional<net::IPAddress> next_hop6;
  // The group it is declared in ("" for none): its settings are the group's, then its own.
  std::string group;
  // The keywords its own block gives (the others come from the group or the defaults); what
  // `show configuration` prints inside a group. Not compared.
  std::set<std::string> own;
  Where where;
  Where local_ip_where;
  Where route_reflector_where;
  Where keepalive_where;  // where keepalive, hold-time, multihop and ttl-security were written
  Where hold_time_where;  // (in the peer or its group), for the checks that relate them
  Where multihop_where;
  Where ttl_security_where;
  friend bool operator==(const BgpPeer& a, const BgpPeer& b);
};

// group NAME { PEER-SETTING ... peer ADDRESS { PEER-SETTING ... } ... }: settings shared by the
// peers declared inside it; a peer's own setting wins over the group's. The settings are the
// peer block's (`as` included); a flag the group sets (passive, disable, ...) cannot be unset by
// a peer.
struct BgpGroup {
  std::string name;             // [A-Za-z0-9_.-], 1..64, starting with a letter or digit
  BgpPeer settings;             // the group's statements over the defaults (no address)
  std::set<std::string> given;  // the keywords the group block gives
  Where where;
  friend bool operator==(const BgpGroup& a, const BgpGroup& b) {
    return a.name == b.name && a.settings == b.settings && a.given == b.given;
  }
};

// network PREFIX [{ next-hop A; origin igp|egp|incomplete; med N; local-pref N;
//                   community [ .. ]; large-community [ .. ]; }]: a route this router originates
// into BGP (bgp/1.0 originate_route), with these path attributes.
enum class BgpOrigin { kIgp, kEgp, kIncomplete };
const char* BgpOriginName(BgpOrigin origin);  // "igp" / "egp" / "incomplete"

struct BgpNetwork {
  net::Prefix prefix;                      // no host bits
  std::optional<net::IPAddress> next_hop;  // of the prefix's family; unset: this router
  BgpOrigin origin = BgpOrigin::kIgp;
  std::optional<uint32_t> med;
  std::optional<uint32_t> local_pref;
  std::vector<std::string> communities;        // "65000:100", "no-export", "no-advertise", ...
  std::vector<std::string> large_communities;  // "4200000000:1:2" (RFC 8092)
  Where where;
  friend bool operator==(const BgpNetwork&, const BgpNetwork&) = default;
};

// Equal session parameters, field by field.
bool SamePeerConfig(const bgp::PeerConfig& a, const bgp::PeerConfig& b);

// `listen ADDRESS [port N];`: where the BGP process accepts connections. The unspecified address
// (0.0.0.0, ::) means every local address of its family.
struct BgpListen {
  net::IPAddress address;
  uint16_t port = 179;
  Where where;
  std::string ToString() const;  // "127.0.0.1 port 179"
  friend bool operator==(const BgpListen&, const BgpListen&) = default;
};

// bmp { station ADDRESS { port N; buffer-size MIB; } ... }: a BMP monitoring station (RFC 7854)
// sluice-bgp connects to; several, by (address, port).
struct BmpStation {
  net::IPAddress address;
  uint16_t port = 0;         // required
  uint32_t buffer_mib = 64;  // MiB queued before the station is dropped (1..4096)
  // The Route Monitoring sent (`route-monitoring [ pre-policy post-policy loc-rib ];`).
  bool pre_policy = true;   // each peer's Adj-RIB-In as received
  bool post_policy = true;  // each peer's Adj-RIB-In after its import policy
  bool loc_rib = true;      // the Loc-RIB (RFC 9069)
  Where where;
  std::string ToString() const;  // "127.0.0.1 port 11019"
  friend bool operator==(const BmpStation&, const BmpStation&) = default;
};

struct BgpConfig {
  bool enabled = false;  // a `bgp { }` block is present
  uint32_t local_as = 0;
  net::IPv4Address bgp_id;
  uint32_t threads = 0;   // shard stage workers, 1..256; 0 (unset): the CPUs sluice-bgp may use
  DampingConfig damping;  // parameters for the peers with `damping;`
  BgpMrtConfig mrt;       // MRT table dumps and update log
  // graceful-restart { restart-time 120; stale-routes-time 360; } (RFC 4724; seconds): the
  // restart time we advertise (and the RIB keeps our routes for), and how long a restarted peer
  // has to send End-of-RIB. A peer's `graceful-restart disable;` is its session's switch.
  uint32_t gr_restart_time = 120;
  uint32_t gr_stale_routes_time = 360;
  // Listening sockets, in file order; none: port 179 on 0.0.0.0 and ::.
  std::vector<BgpListen> listen;
  // RFC 4456 §7 CLUSTER_ID of this route reflector; unset: the BGP Identifier.
  std::optional<net::IPv4Address> cluster_id;
  std::map<net::IPAddress, BgpPeer> peers;  // every peer, those of groups with their settings
  std::map<std::string, BgpGroup> groups;
  std::map<net::Prefix, BgpNetwork> networks;
  std::map<std::pair<net::IPAddress, uint16_t>, BmpStation> bmp_stations;
  Where where;
  friend bool operator==(const BgpConfig&, const BgpConfig&) = default;
};

// ---- policy { ... } — the policy language (policy/parser.h).

struct PolicyBlock {
  // The parsed block (never null; empty without a policy block), its items' canonical text
  // (policy_text.h: comparisons and printing).
  std::shared_ptr<const policy::PolicyConfig> parsed = std::make_shared<policy::PolicyConfig>();
  std::vector<PolicyItemText> items;
  // Equal when the same sets and statements say the same, in any order.
  friend bool operator==(const PolicyBlock& a, const PolicyBlock& b);
};

// ---- finder { access { ... } } — which caller may resolve what (DESIGN.md § IPC).

struct ResolveRule {
  std::string target;     // a component class or instance, or "*"
  std::string interface;  // "bgp/1.0"; empty: every interface of the target
  Where where;
  std::string ToString() const;  // "rib", "rib/rib/1.0", "*"
  friend bool operator==(const ResolveRule&, const ResolveRule&) = default;
};

struct FinderClassAccess {
  std::vector<ResolveRule> resolve;
  Where where;
  friend bool operator==(const FinderClassAccess&, const FinderClassAccess&) = default;
};

// finder { tls { ca FILE; certificate FILE; key FILE; } }: mutual TLS on every TCP connection.
struct FinderTls {
  std::string ca;
  std::string certificate;
  std::string key;
  friend bool operator==(const FinderTls&, const FinderTls&) = default;
};

struct FinderConfig {
  // Callers of a class not listed may resolve everything (allow) or nothing (deny). Without a
  // finder block every caller may resolve everything.
  bool default_allow = true;
  std::map<std::string, FinderClassAccess> access;  // caller class -> what it may resolve
  // People's roles by Unix group (access { operator-group G; admin-group G; }).
  std::string operator_group = "sluice-ops";
  std::string admin_group = "sluice-admin";
  // TCP endpoints the Finder listens on besides its Unix socket (listen ADDRESS port N;).
  std::vector<BgpListen> listen;
  std::optional<FinderTls> tls;
  bool insecure = false;  // plain TCP allowed when there is no tls block
  friend bool operator==(const FinderConfig&, const FinderConfig&) = default;
};

// ---- metrics { listen ADDRESS port N; } — sluice-rtrmgr's Prometheus endpoint (rtrmgr/metrics).

struct MetricsConfig {
  bool enabled = false;  // the block is there: sluice-rtrmgr serves GET /metrics
  // IPv4 (0.0.0.0: every address); the HTTP server has no IPv6.
  net::IPAddress address = net::IPAddress(net::IPv4Address(0x7f000001));  // 127.0.0.1
  uint16_t port = 9324;                                                   // 1..65535
  Where where;
  std::string ToString() const;  // "127.0.0.1 port 9324"
  friend bool operator==(const MetricsConfig&, const MetricsConfig&) = default;
};

// ---- log { level LEVEL; destination stderr|syslog|journal; syslog-socket PATH; } — at the top
// level for every process, and inside a process's block (fea, rib, finder, protocols static,
// rpki, bgp) for that process, where each setting it gives overrides the top level's. The router
// manager passes them to each process it starts (--log-level, --log-destination,
// --log-syslog-socket: base/program_options.h) and applies a change with common/1.0 set_log.

struct LogSettings {
  std::optional<base::LogLevel> level;              // unset: info (or the other block's)
  std::optional<base::LogDestination> destination;  // unset: stderr (RUNDIR/NAME.log)
  std::string syslog_socket;                        // empty: /dev/log
  Where where;
  bool empty() const { return !level && !destination && syslog_socket.empty(); }
  friend bool operator==(const LogSettings&, const LogSettings&) = default;
};

struct LogConfig {
  LogSettings all;  // the top-level block
  // By the process's block name: "fea", "rib", "finder", "static", "rpki", "bgp".
  std::map<std::string, LogSettings> processes;
  // What the process whose block is `block` runs with: its settings over the top level's.
  LogSettings For(const std::string& block) const;
  friend bool operator==(const LogConfig&, const LogConfig&) = default;
};

// ---- the whole file.

struct Config {
  std::string file;  // where it was read from (not compared)
  std::map<std::string, InterfaceConfig> interfaces;
  FeaConfig fea;
  RibConfig rib;
  StaticConfig static_routes;
  RpkiConfig rpki;
  BgpConfig bgp;
  PolicyBlock policy;
  FinderConfig finder;
  MetricsConfig metrics;
  // user NAME;: the user the router manager runs its children as when started as root
  // (empty: "sluice" when that user exists).
  std::string user;
  LogConfig log;

  friend bool operator==(const Config& a, const Config& b) {
    return a.interfaces == b.interfaces && a.fea == b.fea && a.rib == b.rib &&
           a.static_routes == b.static_routes && a.rpki == b.rpki && a.bgp == b.bgp &&
           a.policy == b.policy && a.finder == b.finder && a.metrics == b.metrics &&
           a.user == b.user && a.log == b.log;
  }
  // True when `address` is one of the dummy FEA's local addresses: an address of a configured
  // interface, or of the built-in loopback (127.0.0.0/8, ::1).
  bool IsLocalAddress(const net::IPAddress& address) const;
  // True when `name` names a configured interface or the dummy FEA's loopback.
  bool HasInterface(const std::string& name) const;
};

}  // namespace sluice::rtrmgr
