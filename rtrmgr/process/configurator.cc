#include "rtrmgr/process/configurator.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bgp/process/methods.h"
#include "ipc/proto/fea_ifmgr.pb.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/types_convert.h"
#include "net/log.h"

namespace sluice::rtrmgr {

namespace {

namespace bgp_v1 = ::sluice::bgp::v1;
namespace rib_v1 = ::sluice::rib::v1;
namespace ifmgr_v1 = ::sluice::fea_ifmgr::v1;
template <typename Req, typename Reply>
using M = ipc::Method<Req, Reply>;

const M<rib_v1::SetAdminDistanceRequest, rib_v1::SetAdminDistanceReply> kSetAdminDistance{
    "rib/1.0/set_admin_distance"};
const M<rib_v1::AddRoute4Request, rib_v1::RouteReply> kAddRoute4{"rib/1.0/add_route4"};
const M<rib_v1::AddRoute6Request, rib_v1::RouteReply> kAddRoute6{"rib/1.0/add_route6"};
const M<rib_v1::DeleteRoute4Request, rib_v1::RouteReply> kDeleteRoute4{"rib/1.0/delete_route4"};
const M<rib_v1::DeleteRoute6Request, rib_v1::RouteReply> kDeleteRoute6{"rib/1.0/delete_route6"};
const M<ifmgr_v1::AddInterfaceRequest, ifmgr_v1::AddInterfaceReply> kAddInterface{
    "fea_ifmgr/1.0/add_interface"};
const M<ifmgr_v1::RemoveInterfaceRequest, ifmgr_v1::RemoveInterfaceReply> kRemoveInterface{
    "fea_ifmgr/1.0/remove_interface"};
const M<ifmgr_v1::SetEnabledRequest, ifmgr_v1::SetEnabledReply> kSetEnabled{
    "fea_ifmgr/1.0/set_enabled"};
const M<ifmgr_v1::SetMtuRequest, ifmgr_v1::SetMtuReply> kSetMtu{"fea_ifmgr/1.0/set_mtu"};
const M<ifmgr_v1::AddAddressRequest, ifmgr_v1::AddAddressReply> kAddAddress{
    "fea_ifmgr/1.0/add_address"};
const M<ifmgr_v1::RemoveAddressRequest, ifmgr_v1::RemoveAddressReply> kRemoveAddress{
    "fea_ifmgr/1.0/remove_address"};

// The RIB's defaults (rib/protocol.h), for a protocol whose distance is no longer configured.
uint32_t DefaultAdminDistance(const std::string& protocol) {
  if (protocol == "connected") return 0;
  if (protocol == "static") return 1;
  if (protocol == "ebgp") return 20;
  if (protocol == "ospf") return 110;
  if (protocol == "isis") return 115;
  if (protocol == "rip") return 120;
  if (protocol == "ibgp") return 200;
  return 250;
}

}  // namespace

// The calls of one push: counts the answers, collects the refusals, runs `done` after the last.
class Configurator::Batch {
 public:
  explicit Batch(Done done) : done_(std::move(done)) {}
  ~Batch() {
    if (done_) done_(std::move(errors_));
  }
  template <typename Req, typename Reply>
  static void Call(std::shared_ptr<Batch> self, ipc::XrlRouter& router, const std::string& target,
                   const M<Req, Reply>& method, Req request, std::string what) {
    router.Call(target, method, std::move(request),
                [self, what = std::move(what)](absl::StatusOr<Reply> reply) {
                  if (!reply.ok()) {
                    self->errors_.push_back(absl::StrCat(what, ": ", reply.status().ToString()));
                  }
                });
  }
  void Error(std::string text) { errors_.push_back(std::move(text)); }

 private:
  Done done_;
  std::vector<std::string> errors_;
};

std::vector<std::string> Configurator::FeaFlags(const Config& config) {
  std::vector<std::string> flags = {"--backend", FeaBackendName(config.fea.backend)};
  if (config.fea.backend == FeaBackend::kNetlink) {
    flags.push_back("--table");
    flags.push_back(absl::StrCat(config.fea.table));
    return flags;
  }
  for (const auto& [name, interface] : config.interfaces) {
    std::vector<std::string> addresses;
    for (const InterfaceAddressConfig& a : interface.addresses) addresses.push_back(a.ToString());
    flags.push_back("--interface");
    flags.push_back(addresses.empty() ? name
                                      : absl::StrCat(name, "=", absl::StrJoin(addresses, ",")));
  }
  return flags;
}

std::string Configurator::AccessListText(const Config& config) {
  const FinderConfig& f = config.finder;
  if (f.access.empty() && f.default_allow) return "";
  std::string text =
      "# written by sluice-rtrmgr from the finder block\n"
      "allow rtrmgr * *\nallow sluice * *\n";
  for (const auto& [caller, access] : f.access) {
    for (const ResolveRule& r : access.resolve) {
      absl::StrAppend(&text, "allow ", caller, " ", r.target, " ",
                      r.interface.empty() ? "*" : r.interface, "\n");
    }
    absl::StrAppend(&text, "allow ", caller, " * common/1.0\n");
    absl::StrAppend(&text, "deny ", caller, " * *\n");
  }
  absl::StrAppend(&text, f.default_allow ? "allow * * *\n" : "allow * * common/1.0\ndeny * * *\n");
  return text;
}

void Configurator::LinkSettings(std::shared_ptr<Batch> batch, const InterfaceConfig& interface,
                                bool defaults_too) {
  if (!interface.enabled || defaults_too) {
    ifmgr_v1::SetEnabledRequest r;
    r.set_ifname(interface.name);
    r.set_enabled(interface.enabled);
    Batch::Call(batch, router_, "fea", kSetEnabled, r, "interface " + interface.name);
  }
  if (interface.mtu != 1500 || defaults_too) {
    ifmgr_v1::SetMtuRequest r;
    r.set_ifname(interface.name);
    r.set_mtu(interface.mtu);
    Batch::Call(batch, router_, "fea", kSetMtu, r, "interface " + interface.name + " mtu");
  }
}

void Configurator::AddInterface(std::shared_ptr<Batch> batch, const InterfaceConfig& interface,
                                bool with_addresses) {
  ifmgr_v1::AddInterfaceRequest r;
  r.set_ifname(interface.name);
  r.set_mtu(interface.mtu);
  if (interface.mac) {
    uint64_t value = 0;
    for (uint8_t octet : *interface.mac) value = (value << 8) | octet;
    ipc::ToProto(ipc::MacAddress(value), r.mutable_mac());
  }
  Batch::Call(batch, router_, "fea", kAddInterface, r, "interface " + interface.name);
  if (with_addresses) {
    for (const InterfaceAddressConfig& a : interface.addresses) {
      ifmgr_v1::AddAddressRequest q;
      q.set_ifname(interface.name);
      ipc::ToProto(a.address, q.mutable_address());
      q.set_prefix_length(a.prefix_length);
      Batch::Call(batch, router_, "fea", kAddAddress, q,
                  "interface " + interface.name + " address " + a.ToString());
    }
  }
  if (!interface.enabled) LinkSettings(batch, interface, false);
}

void Configurator::ConfigureFea(const Config& config, Done done) {
  auto batch = std::make_shared<Batch>(std::move(done));
  if (config.fea.backend != FeaBackend::kDummy) return;
  for (const auto& [name, interface] : config.interfaces) LinkSettings(batch, interface, false);
}

void Configurator::AddStatic(std::shared_ptr<Batch> batch, const StaticRoute& route) {
  const std::string what = "static route " + route.prefix.ToString();
  if (route.prefix.family() == net::Family::kIPv4) {
    rib_v1::AddRoute4Request r;
    r.set_protocol("static");
    ipc::ToProto(route.prefix, r.mutable_network());
    if (route.next_hop) ipc::ToProto(route.next_hop->v4(), r.mutable_nexthop());
    r.set_ifname(route.interface);
    r.set_metric(route.metric);
    r.set_tag(route.tag);
    Batch::Call(batch, router_, "rib", kAddRoute4, r, what);
  } else {
    rib_v1::AddRoute6Request r;
    r.set_protocol("static");
    ipc::ToProto(route.prefix, r.mutable_network());
    if (route.next_hop) ipc::ToProto(route.next_hop->v6(), r.mutable_nexthop());
    r.set_ifname(route.interface);
    r.set_metric(route.metric);
    r.set_tag(route.tag);
    Batch::Call(batch, router_, "rib", kAddRoute6, r, what);
  }
}

void Configurator::DeleteStatic(std::shared_ptr<Batch> batch, const net::Prefix& prefix) {
  const std::string what = "static route " + prefix.ToString();
  if (prefix.family() == net::Family::kIPv4) {
    rib_v1::DeleteRoute4Request r;
    r.set_protocol("static");
    ipc::ToProto(prefix, r.mutable_network());
    Batch::Call(batch, router_, "rib", kDeleteRoute4, r, what);
  } else {
    rib_v1::DeleteRoute6Request r;
    r.set_protocol("static");
    ipc::ToProto(prefix, r.mutable_network());
    Batch::Call(batch, router_, "rib", kDeleteRoute6, r, what);
  }
}

void Configurator::ConfigureRib(const Config& config, Done done) {
  auto batch = std::make_shared<Batch>(std::move(done));
  for (const auto& [protocol, distance] : config.rib.admin_distances) {
    rib_v1::SetAdminDistanceRequest r;
    r.set_protocol(protocol);
    r.set_admin_distance(distance.distance);
    Batch::Call(batch, router_, "rib", kSetAdminDistance, r, "admin-distance " + protocol);
  }
  for (const auto& [prefix, route] : config.static_routes.routes) AddStatic(batch, route);
}

void Configurator::SetIdentity(std::shared_ptr<Batch> batch, const BgpConfig& bgp) {
  bgp_v1::SetLocalAsRequest as;
  as.set_as(bgp.local_as);
  Batch::Call(batch, router_, "bgp", bgp::process::kSetLocalAs, as, "bgp local-as");
  bgp_v1::SetBgpIdRequest id;
  ipc::ToProto(bgp.bgp_id, id.mutable_id());
  Batch::Call(batch, router_, "bgp", bgp::process::kSetBgpId, id, "bgp bgp-id");
}

void Configurator::Listen(std::shared_ptr<Batch> batch, const BgpListen& listen, bool stop) {
  if (stop) {
    bgp_v1::StopListeningRequest r;
    ipc::ToProto(listen.address, r.mutable_address());
    r.set_port(listen.port);
    Batch::Call(batch, router_, "bgp", bgp::process::kStopListening, r,
                "bgp listen " + listen.ToString());
    return;
  }
  bgp_v1::ListenRequest r;
  ipc::ToProto(listen.address, r.mutable_address());
  r.set_port(listen.port);
  Batch::Call(batch, router_, "bgp", bgp::process::kListen, r, "bgp listen " + listen.ToString());
}

void Configurator::AddPeer(std::shared_ptr<Batch> batch, const BgpPeer& peer) {
  const bgp::PeerConfig& s = peer.session;
  bgp_v1::AddPeerRequest r;
  ipc::ToProto(s.address, r.mutable_address());
  r.set_port(s.port);
  r.set_remote_as(s.remote_as);
  if (s.local_address) ipc::ToProto(*s.local_address, r.mutable_local_address());
  r.set_hold_time(s.hold_time_s);
  r.set_passive(s.passive);
  r.set_md5_password(s.md5_password);
  r.set_next_hop_self(s.next_hop_self);
  r.set_route_reflector_client(s.route_reflector_client);
  r.set_max_prefix(static_cast<uint32_t>(s.max_prefix.limit));
  r.set_max_prefix_action(s.max_prefix.action == bgp::MaxPrefixAction::kWarn ? "warn" : "teardown");
  r.set_max_prefix_restart_s(static_cast<uint32_t>(s.max_prefix.restart_after_s));
  r.set_ttl_security(static_cast<uint32_t>(s.gtsm_hops));
  r.set_description(s.description);
  r.set_enabled(s.enabled);
  const bool policies = !peer.import_policies.empty() || !peer.export_policies.empty();
  r.set_ebgp_requires_policy(policies);
  const std::string what = "bgp peer " + s.address.ToString();
  if (policies) {
    batch->Error(what +
                 ": import/export policies are not applied yet (bgp/1.0 has no policy "
                 "interface); RFC 8212 default deny stays on for this eBGP peer");
  }
  Batch::Call(batch, router_, "bgp", bgp::process::kAddPeer, r, what);
}

void Configurator::RemovePeer(std::shared_ptr<Batch> batch, const net::IPAddress& address) {
  bgp_v1::PeerRequest r;
  ipc::ToProto(address, r.mutable_address());
  Batch::Call(batch, router_, "bgp", bgp::process::kRemovePeer, r,
              "bgp remove peer " + address.ToString());
}

void Configurator::ConfigureBgp(const Config& config, Done done) {
  auto batch = std::make_shared<Batch>(std::move(done));
  if (!config.bgp.enabled) return;
  SetIdentity(batch, config.bgp);
  if (config.bgp.listen.empty()) {
    Listen(batch, BgpListen{net::IPAddress(net::IPv4Address()), 179, {}}, false);
    Listen(batch, BgpListen{net::IPAddress(net::IPv6Address()), 179, {}}, false);
  }
  for (const BgpListen& l : config.bgp.listen) Listen(batch, l, false);
  for (const auto& [address, peer] : config.bgp.peers) AddPeer(batch, peer);
}

void Configurator::ApplyDelta(const ConfigDelta& delta, const Config& next, Done done) {
  auto batch = std::make_shared<Batch>(std::move(done));
  // FEA interfaces (a restart is the router manager's: the new FEA starts with the flags).
  if (!delta.fea.restart && next.fea.backend == FeaBackend::kDummy) {
    for (const InterfaceDelta& d : delta.fea.interfaces) {
      if (d.change == Change::kAdded) {
        AddInterface(batch, *d.after, true);
      } else if (d.change == Change::kRemoved) {
        ifmgr_v1::RemoveInterfaceRequest r;
        r.set_ifname(d.name);
        Batch::Call(batch, router_, "fea", kRemoveInterface, r, "interface " + d.name);
      } else {
        for (const InterfaceAddressConfig& a : d.addresses_removed) {
          ifmgr_v1::RemoveAddressRequest r;
          r.set_ifname(d.name);
          ipc::ToProto(a.address, r.mutable_address());
          Batch::Call(batch, router_, "fea", kRemoveAddress, r,
                      "interface " + d.name + " address " + a.ToString());
        }
        for (const InterfaceAddressConfig& a : d.addresses_added) {
          ifmgr_v1::AddAddressRequest r;
          r.set_ifname(d.name);
          ipc::ToProto(a.address, r.mutable_address());
          r.set_prefix_length(a.prefix_length);
          Batch::Call(batch, router_, "fea", kAddAddress, r,
                      "interface " + d.name + " address " + a.ToString());
        }
        if (!d.link.empty()) LinkSettings(batch, *d.after, true);
      }
    }
  }
  // RIB.
  for (const AdminDistanceDelta& d : delta.admin_distances) {
    rib_v1::SetAdminDistanceRequest r;
    r.set_protocol(d.protocol);
    r.set_admin_distance(d.after ? *d.after : DefaultAdminDistance(d.protocol));
    Batch::Call(batch, router_, "rib", kSetAdminDistance, r, "admin-distance " + d.protocol);
  }
  for (const StaticRouteDelta& d : delta.static_routes) {
    if (d.change != Change::kAdded) DeleteStatic(batch, d.prefix);
    if (d.change != Change::kRemoved) AddStatic(batch, *d.after);
  }
  // BGP.
  const BgpDelta& b = delta.bgp;
  if (b.stopped) {
    for (const PeerDelta& p : b.peers) RemovePeer(batch, p.address);
    return;
  }
  if (b.started || b.identity_changed) SetIdentity(batch, next.bgp);
  if (b.threads_changed) batch->Error("bgp threads: takes effect when sluice-bgp restarts");
  for (const BgpListen& l : b.listen_removed) Listen(batch, l, true);
  for (const BgpListen& l : b.listen_added) Listen(batch, l, false);
  for (const PeerDelta& p : b.peers) {
    bgp_v1::PeerRequest r;
    ipc::ToProto(p.address, r.mutable_address());
    const std::string what = "bgp peer " + p.address.ToString();
    switch (p.change) {
      case Change::kAdded:
        AddPeer(batch, *p.after);
        break;
      case Change::kRemoved:
        RemovePeer(batch, p.address);
        break;
      case Change::kChanged:
        // Settings without a method of their own (passive, max-prefix, description, policies,
        // damping) are applied by adding the peer again: the session restarts.
        if (p.reset || p.update || p.refilter_import || p.refilter_export || p.replumb_damping) {
          RemovePeer(batch, p.address);
          AddPeer(batch, *p.after);
        } else if (p.enable) {
          Batch::Call(batch, router_, "bgp", bgp::process::kEnablePeer, r, what);
        } else if (p.disable) {
          Batch::Call(batch, router_, "bgp", bgp::process::kDisablePeer, r, what);
        }
        break;
    }
  }
}

}  // namespace sluice::rtrmgr
