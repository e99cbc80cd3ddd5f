#pragma once
// The change from the running configuration to a new one, per process (a changed file is
// applied as a delta — only what changed is touched). The router manager
// computes it after the new file has validated (a bad file never gets this far, so the running
// configuration stays as it was), shows it (`sluice configure load FILE`), and applies it
// through each process's XRLs.
//
// What each part asks of its process, and a safe order to apply them in:
//   1. finder      access lists changed: replace the changed classes' rules, and the default.
//   2. fea         restart: the backend, kernel table or retain-on-exit changed (all fixed when
//                  the FEA starts); otherwise interfaces added/removed, and for a changed one its
//                  link attributes (enabled, mtu, mac) and the addresses added/removed.
//   3. rib         restart: restart-time or fea-max-backlog changed (fixed when the RIB
//                  starts); admin distances
//                  set (a protocol no longer named goes back to its default).
//   4. static      routes added, removed, or changed (replace the route).
//   4b. rpki      started/stopped (the block came or went); caches added, removed, or changed
//                  (a changed cache is deleted and added again: its session restarts).
//   5. policy      which sets and statements changed; the filter banks they affect are listed
//                  on the peers below (recompile and re-filter those banks only).
//   6. bgp         started/stopped (the whole block came or went); identity (local AS or BGP
//                  Identifier: every session restarts, so every remaining peer is reset);
//                  threads (the shard stage's worker count); damping parameters; listening
//                  sockets; then per peer: add, remove, or for a changed peer the least
//                  disruptive actions that apply the change (PeerDelta).
//   7. metrics     the router manager's own endpoint: started, stopped, or bound again to
//                  the new address and port (no process is told).
//
// Computing a delta between equal configurations gives an empty delta (empty()).

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rtrmgr/config/config.h"

namespace sluice::rtrmgr {

enum class Change { kAdded, kRemoved, kChanged };
const char* ChangeName(Change change);  // "added" / "removed" / "changed"

// One changed field: its keyword and its value before and after, as the file spells them.
struct FieldChange {
  std::string keyword;
  std::string before;  // "" when not set
  std::string after;
  friend bool operator==(const FieldChange&, const FieldChange&) = default;
};

struct InterfaceDelta {
  Change change = Change::kChanged;
  std::string name;
  std::optional<InterfaceConfig> before, after;  // as the change says (both for kChanged)
  // kChanged only:
  std::vector<FieldChange> link;                          // mtu, mac, disable, description
  std::vector<InterfaceAddressConfig> addresses_added;    // a changed prefix length is a
  std::vector<InterfaceAddressConfig> addresses_removed;  // removal and an addition
};

struct FeaDelta {
  // The backend, the kernel table or retain-on-exit changed: stop the FEA and start it with `after`
  // (the RIB re-sends the whole FIB to the new FEA when it registers).
  bool restart = false;
  std::vector<FieldChange> fields;
  std::vector<InterfaceDelta> interfaces;
  bool empty() const { return !restart && interfaces.empty(); }
};

// The RIB's start-time settings (restart-time, fea-max-backlog) changed: stop the RIB and start it
// with the new ones (the FEA keeps its routes meanwhile; the protocols re-feed the new RIB).
struct RibDelta {
  bool restart = false;
  std::vector<FieldChange> fields;
};

struct AdminDistanceDelta {
  std::string protocol;
  std::optional<uint16_t> before, after;  // std::nullopt: the RIB's default for the protocol
};

struct StaticRouteDelta {
  Change change = Change::kChanged;
  net::Prefix prefix;
  std::optional<StaticRoute> before, after;
  std::vector<FieldChange> fields;  // kChanged: next-hop, interface, metric, tag, track
};

struct RpkiCacheDelta {
  Change change = Change::kChanged;
  std::pair<net::IPAddress, uint32_t> key;  // address, port
  std::optional<RpkiCache> before, after;
  std::vector<FieldChange> fields;  // kChanged: preference, refresh, retry, expire
};

struct RpkiDelta {
  bool started = false;  // the rpki block came: sluice-rpki starts (with every cache)
  bool stopped = false;  // it went: sluice-rpki stops
  std::vector<RpkiCacheDelta> caches;
  bool empty() const { return !started && !stopped && caches.empty(); }
};

// What a changed peer needs. `reset` replaces everything else: the peer is removed and added
// again with the new configuration (its banks, damping and enabled state with it).
struct PeerDelta {
  Change change = Change::kChanged;
  net::IPAddress address;
  std::optional<BgpPeer> before, after;
  std::vector<FieldChange> fields;    // kChanged: the keywords whose values changed
  std::vector<std::string> policies;  // changed policies its unchanged chains use
  bool reset = false;                 // session parameters changed (as, local-ip, port, hold-time,
                                      // keepalive, family, md5-password, ttl-security, multihop)
                                      // or the local identity did
  bool update = false;   // passive, max-prefix, description, connect-retry: new settings, no reset
  bool enable = false;   // `disable` went away: start the session
  bool disable = false;  // `disable` came: stop the session
  bool refilter_import = false;  // recompile the import bank and re-filter the Adj-RIB-In
  bool refilter_export = false;  // recompile the export bank (also for next-hop-self and
                                 // route-reflector-client) and re-advertise
  bool replumb_damping = false;  // damping turned on or off, or its parameters changed
};

// A `network` added, removed (withdraw_route) or changed (originate_route again: it replaces).
struct NetworkDelta {
  Change change = Change::kChanged;
  net::Prefix prefix;
  std::optional<BgpNetwork> before, after;
};

struct BgpDelta {
  bool started = false;           // the bgp block is new: set the identity, then add the peers
  bool stopped = false;           // the bgp block is gone: every peer is removed
  bool identity_changed = false;  // local-as, bgp-id or cluster-id; every remaining peer is reset
  bool threads_changed = false;
  bool damping_changed = false;
  bool mrt_changed = false;               // bgp/1.0/set_mrt (or clear_mrt) again
  bool graceful_restart_changed = false;  // bgp/1.0/set_graceful_restart again
  std::vector<FieldChange> fields;        // local-as, bgp-id, cluster-id, threads, damping, mrt
  std::vector<BgpListen> listen_added, listen_removed;
  // BMP stations (a changed one is removed and added again).
  std::vector<BmpStation> bmp_added, bmp_removed;
  std::vector<PeerDelta> peers;        // in address order; a group's change is each of its peers'
  std::vector<NetworkDelta> networks;  // in prefix order
  // Protocols whose routes BGP should receive from the RIB: those named by `from { protocol
  // X; }` in a peer's export chain (other than BGP itself).
  std::vector<std::string> redistribute_added, redistribute_removed;
  bool empty() const;
};

struct PolicyItemDelta {
  Change change = Change::kChanged;
  std::string kind;  // "prefix-list", ..., "policy-statement"
  std::string name;
};

struct PolicyDelta {
  std::vector<PolicyItemDelta> items;
  // Statements whose meaning changed: changed or added themselves, or using a set that did.
  std::set<std::string> statements;
};

struct FinderClassDelta {
  Change change = Change::kChanged;
  std::string caller_class;
  std::optional<FinderClassAccess> before, after;
};

struct FinderDelta {
  std::optional<bool> default_allow;  // set when it changed: the new value
  std::vector<FinderClassDelta> classes;
  bool empty() const { return !default_allow && classes.empty(); }
};

// 7. log        a process's log settings (its block's over the top level's) changed: applied
//                  at once with common/1.0 set_log ("rtrmgr": the top level, the router manager's
//                  own).
struct LogDelta {
  std::string
      process;  // the block's name: "fea", "rib", "finder", "static", "rpki", "bgp", "rtrmgr"
  LogSettings before, after;  // what the process runs with
};
// The processes whose log settings differ between `running` and `next` (config_delta_log.cc).
std::vector<LogDelta> DiffLog(const LogConfig& running, const LogConfig& next);
// "log: bgp level info -> debug, destination stderr -> syslog".
std::string LogDeltaLine(const LogDelta& d);

struct ConfigDelta {
  FinderDelta finder;
  FeaDelta fea;
  RibDelta rib;
  std::vector<AdminDistanceDelta> admin_distances;
  std::vector<StaticRouteDelta> static_routes;
  RpkiDelta rpki;
  PolicyDelta policy;
  BgpDelta bgp;
  // metrics: "listen" from the old endpoint ("" when there was none) to the new ("" when
  // there is none); empty when unchanged.
  std::vector<FieldChange> metrics;
  std::vector<LogDelta> log;

  bool empty() const;
  // One line per change, in the order above ("nothing to change" when empty). Passwords are
  // never printed.
  std::string ToString() const;
};

ConfigDelta ComputeDelta(const Config& running, const Config& next);

// The protocols whose routes the export chains of `config`'s peers ask for (see BgpDelta).
std::set<std::string> RedistributedProtocols(const Config& config);

}  // namespace sluice::rtrmgr
