#pragma once
// Configurator: turns the router manager's configuration model (rtrmgr/config/config.h) into
// XRLs on the processes, for a process that has just registered with the
// Finder (its whole part of the configuration) and for a changed file (ConfigDelta: only what
// changed). Calls go through the router manager's XrlRouter, ordered per target; `done` runs on
// the loop once every call of the push has answered (calls that could not reach their process
// are made again first, see kResendRounds), with one line per refused call
// ("sluice-bgp refused bgp listen 192.0.2.1 port 1179: ...").
//
// What goes where:
//   fea   (dummy backend) interfaces: the FEA starts with them as --interface flags, so a
//         restarted FEA validates routes at once; here their link settings (disable, mtu, mac)
//         and, in a delta, interfaces and addresses added or removed (fea_ifmgr/1.0).
//   rib   admin distances (rib/1.0/set_admin_distance).
//   static_routes  the static routes (static_routes/1.0 on sluice-static, which hands them to
//         the RIB as protocol "static"; they leave the RIB if sluice-static dies).
//   rpki  the RTR caches (rpki/1.0/add_cache, delete_cache on sluice-rpki; a changed cache is
//         deleted and added again).
//   bgp   local AS, BGP Identifier, listening sockets, damping parameters (set_damping), BMP
//         stations (add_bmp_station / delete_bmp_station), then
//         per peer add_peer, its import and export chains (policy_backend/1.0 configure of
//         "import:ADDRESS" / "export:ADDRESS" with the whole policy block as source; reset when
//         a chain goes away) and set_peer_damping; "redist:PROTOCOL" (RedistChains) for each
//         protocol a peer's export chain names in `from { protocol ...; }`. A peer without
//         policies is added with ebgp_requires_policy false (the file's "default verdicts"); a
//         peer with policies keeps RFC 8212 for a direction without a chain.
//   finder the access list is a file the Finder re-reads on SIGHUP (router_manager.h); with an
//         rpki block it lets sluice-bgp call rpki/1.0 on sluice-rpki and sluice-rpki call
//         rpki_client/1.0 on sluice-bgp, whatever the class rules say.

#include <boost/asio/io_context.hpp>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "ipc/xrl_router.h"
#include "rtrmgr/config/config.h"
#include "rtrmgr/config/config_delta.h"

namespace sluice::rtrmgr {

class Configurator {
 public:
  using Done = std::function<void(std::vector<std::string> errors)>;

  // A call that got no answer from its process (ipc::IsUnreached: no connection could be made
  // within ipc::kConnectTimeoutMs, or it was lost first) is made again kResendDelay later,
  // in its push's order, for up to kResendRounds more rounds — unless that process registered
  // anew meanwhile, which brings it its whole configuration. Only then is it one of `done`'s
  // errors, and `done` runs once, after the last round.
  static constexpr absl::Duration kResendDelay = absl::Seconds(1);
  static constexpr int kResendRounds = 5;

  // `io`: the loop `router` runs on (the resends' timers).
  Configurator(ipc::XrlRouter& router, boost::asio::io_context& io) : router_(router), io_(io) {}

  void ConfigureFea(const Config& config, Done done);
  void ConfigureRib(const Config& config, Done done);
  void ConfigureBgp(const Config& config, Done done);
  void ConfigureStatic(const Config& config, Done done);
  void ConfigureRpki(const Config& config, Done done);
  // Applies `delta` (computed from the running configuration to `next`) to the live processes,
  // except the FEA restart and the Finder's access list, which the router manager does itself.
  void ApplyDelta(const ConfigDelta& delta, const Config& before, const Config& next, Done done);

  // Finder access list text for `config` (finder/access_list.h syntax); "" for allow-all.
  static std::string AccessListText(const Config& config);
  // Command line flags for sluice-fea from `config` (backend, table, --retain-on-exit,
  // --interface ...).
  static std::vector<std::string> FeaFlags(const Config& config);
  // Command line flags for sluice-rib from `config`: --restart-time SECONDS, --fea-max-backlog
  // when not the default, --expect-protocols, and --listen tcp:ADDRESS:0 for each TCP address of
  // the Finder (so that FEAs on other hosts reach the RIB).
  static std::vector<std::string> RibFlags(const Config& config);
  // "tcp:ADDRESS:PORT", the IPv6 address in brackets: an IPC endpoint (ipc/rundir.h).
  static std::string TcpEndpoint(const net::IPAddress& address, uint16_t port);
  // The policy block as policy-language text (every set and statement), for configure.
  static std::string PolicySource(const Config& config);
  // sluice-static's component class and instance.
  static constexpr const char* kStaticTarget = "static_routes";
  // sluice-rpki's component class and instance (sluice-bgp --rpki names it).
  static constexpr const char* kRpkiTarget = "rpki";
  // Per protocol that an export chain names in `from { protocol X; }`: the chain its
  // redistribution bank runs — the export chains of the peers that name it, in order, each
  // policy once. Only what a
  // term accepts is originated into BGP (the bank's default is reject); the peers' export banks
  // then see the originated routes as protocol "bgp".
  static std::map<std::string, std::vector<NameRef>> RedistChains(const Config& config);

 private:
  class Batch;
  void AddInterface(std::shared_ptr<Batch> batch, const InterfaceConfig& interface,
                    bool with_addresses);
  void LinkSettings(std::shared_ptr<Batch> batch, const InterfaceConfig& interface,
                    bool defaults_too);
  void AddStatic(std::shared_ptr<Batch> batch, const StaticRoute& route);
  void DeleteStatic(std::shared_ptr<Batch> batch, const net::Prefix& prefix);
  void AddCache(std::shared_ptr<Batch> batch, const RpkiCache& cache);
  void DeleteCache(std::shared_ptr<Batch> batch, const RpkiCache& cache);
  void AddPeer(std::shared_ptr<Batch> batch, const BgpPeer& peer);
  void RemovePeer(std::shared_ptr<Batch> batch, const net::IPAddress& address);
  // add_peer, then its banks and damping (a peer added again starts with neither).
  void AddPeerFully(std::shared_ptr<Batch> batch, const Config& config, const BgpPeer& peer);
  // Configures (or resets, for an empty chain) the peer's import and/or export bank; `fresh`:
  // the peer was just added, so an empty chain needs no reset.
  void PeerBanks(std::shared_ptr<Batch> batch, const Config& config, const BgpPeer& peer,
                 bool import, bool export_, bool fresh);
  void Bank(std::shared_ptr<Batch> batch, const Config& config, const std::string& target,
            const std::string& filter, const std::vector<NameRef>& chain,
            const std::string& default_action);
  // Configures "redist:PROTOCOL" for each entry (an empty chain resets the bank).
  void Redistribute(std::shared_ptr<Batch> batch, const Config& config,
                    const std::map<std::string, std::vector<NameRef>>& chains);
  void Damping(std::shared_ptr<Batch> batch, const DampingConfig& damping);
  // bgp/1.0/set_mrt with the mrt block, or clear_mrt when it is absent.
  void Mrt(std::shared_ptr<Batch> batch, const BgpMrtConfig& mrt);
  void PeerDamping(std::shared_ptr<Batch> batch, const net::IPAddress& address, bool enabled);
  void SetIdentity(std::shared_ptr<Batch> batch, const BgpConfig& bgp);
  // `network PREFIX { ... }`: originate_route with its attributes, or withdraw_route.
  void Originate(std::shared_ptr<Batch> batch, const BgpNetwork& network);
  void Withdraw(std::shared_ptr<Batch> batch, const net::Prefix& prefix);
  // bgp/1.0/set_graceful_restart: the restart and stale-routes times.
  void GracefulRestart(std::shared_ptr<Batch> batch, const BgpConfig& bgp);
  void Listen(std::shared_ptr<Batch> batch, const BgpListen& listen, bool stop);
  // bgp/1.0/add_bmp_station, or delete_bmp_station with `remove`.
  void Bmp(std::shared_ptr<Batch> batch, const BmpStation& station, bool remove);

  struct Unreached;
  // Makes the `unreached` calls again after kResendDelay (see kResendRounds).
  void Resend(std::vector<Unreached> unreached, std::vector<std::string> errors, Done done,
              int round);

  ipc::XrlRouter& router_;
  boost::asio::io_context& io_;
  // Registrations seen per target (one per Configure* push): a resend for an older one is
  // dropped.
  std::map<std::string, uint64_t> generations_;
  // Expires with the Configurator: the resends' timers and the batches outlive it.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice::rtrmgr
