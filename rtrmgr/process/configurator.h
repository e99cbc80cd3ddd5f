#pragma once
// Configurator: turns the router manager's configuration model (rtrmgr/config/config.h) into
// XRLs on the processes (issue 11 item 1), for a process that has just registered with the
// Finder (its whole part of the configuration) and for a changed file (ConfigDelta: only what
// changed). Calls go through the router manager's XrlRouter, ordered per target; `done` runs on
// the loop once every call of the push has answered, with one line per refused call.
//
// What goes where:
//   fea   (dummy backend) interfaces: the FEA starts with them as --interface flags, so a
//         restarted FEA validates routes at once; here their link settings (disable, mtu, mac)
//         and, in a delta, interfaces and addresses added or removed (fea_ifmgr/1.0).
//   rib   admin distances (rib/1.0/set_admin_distance) and static routes as protocol "static"
//         (rib/1.0/add_route4|6; owned by the router manager's component, so they leave the RIB
//         if the router manager dies).
//   bgp   local AS, BGP Identifier, listening sockets, peers (bgp/1.0). Import and export
//         policies cannot be pushed yet (bgp/1.0/set_peer_*_policy answers UNIMPLEMENTED): a
//         peer without policies is added with ebgp_requires_policy false (the file's "default
//         verdicts"); a peer with policies is added with RFC 8212's default deny and a warning.
//   finder the access list is a file the Finder re-reads on SIGHUP (router_manager.h).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ipc/xrl_router.h"
#include "rtrmgr/config/config.h"
#include "rtrmgr/config/config_delta.h"

namespace sluice::rtrmgr {

class Configurator {
 public:
  using Done = std::function<void(std::vector<std::string> errors)>;

  explicit Configurator(ipc::XrlRouter& router) : router_(router) {}

  void ConfigureFea(const Config& config, Done done);
  void ConfigureRib(const Config& config, Done done);
  void ConfigureBgp(const Config& config, Done done);
  // Applies `delta` (computed from the running configuration to `next`) to the live processes,
  // except the FEA restart and the Finder's access list, which the router manager does itself.
  void ApplyDelta(const ConfigDelta& delta, const Config& next, Done done);

  // Finder access list text for `config` (finder/access_list.h syntax); "" for allow-all.
  static std::string AccessListText(const Config& config);
  // Command line flags for sluice-fea from `config` (backend, table, --interface ...).
  static std::vector<std::string> FeaFlags(const Config& config);

 private:
  class Batch;
  void AddInterface(std::shared_ptr<Batch> batch, const InterfaceConfig& interface,
                    bool with_addresses);
  void LinkSettings(std::shared_ptr<Batch> batch, const InterfaceConfig& interface,
                    bool defaults_too);
  void AddStatic(std::shared_ptr<Batch> batch, const StaticRoute& route);
  void DeleteStatic(std::shared_ptr<Batch> batch, const net::Prefix& prefix);
  void AddPeer(std::shared_ptr<Batch> batch, const BgpPeer& peer);
  void RemovePeer(std::shared_ptr<Batch> batch, const net::IPAddress& address);
  void SetIdentity(std::shared_ptr<Batch> batch, const BgpConfig& bgp);
  void Listen(std::shared_ptr<Batch> batch, const BgpListen& listen, bool stop);

  ipc::XrlRouter& router_;
};

}  // namespace sluice::rtrmgr
