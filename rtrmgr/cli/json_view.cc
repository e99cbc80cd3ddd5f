#include "rtrmgr/cli/json_view.h"

#include "ipc/types_convert.h"

namespace sluice::rtrmgr::cli {

Json StringList(const google::protobuf::RepeatedPtrField<std::string>& list) {
  Json out = Json::array();
  for (const std::string& s : list) out.push_back(s);
  return out;
}

Json AddressJson(const types::v1::IPAddress& a) {
  auto v = ipc::FromProto(a);
  return v.ok() ? Json(v->ToString()) : Json(nullptr);
}
Json AddressJson(const types::v1::IPv4Address& a) { return ipc::FromProto(a).ToString(); }
Json PrefixJson(const types::v1::IPPrefix& p) {
  auto v = ipc::FromProto(p);
  return v.ok() ? Json(v->ToString()) : Json(nullptr);
}

Json RibRouteJson(const rib::v1::RibRoute& r) {
  Json tags = Json::array();
  for (uint32_t t : r.tags()) tags.push_back(t);
  return Json{{"network", PrefixJson(r.network())},
              {"protocol", r.protocol()},
              {"admin_distance", r.admin_distance()},
              {"nexthop", r.has_nexthop() ? AddressJson(r.nexthop()) : Json(nullptr)},
              {"ifname", r.ifname()},
              {"metric", r.metric()},
              {"tags", tags},
              {"resolved", r.resolved()},
              {"resolved_nexthop",
               r.has_resolved_nexthop() ? AddressJson(r.resolved_nexthop()) : Json(nullptr)},
              {"resolved_ifname", r.resolved_ifname()},
              {"igp_metric", r.igp_metric()}};
}

Json FibRouteJson(const fea_fib::v1::FibRoute& r) {
  Json hops = Json::array();
  for (const fea_fib::v1::Nexthop& h : r.nexthops()) {
    hops.push_back(Json{{"gateway", h.has_gateway() ? AddressJson(h.gateway()) : Json(nullptr)},
                        {"ifname", h.ifname()},
                        {"onlink", h.onlink()},
                        {"weight", h.weight() == 0 ? 1u : h.weight()}});
  }
  return Json{{"network", PrefixJson(r.network())},
              {"protocol", r.protocol()},
              {"metric", r.metric()},
              {"nexthops", hops}};
}

Json InterfaceJson(const fea_ifmgr::v1::Interface& i) {
  Json addresses = Json::array();
  for (const auto& a : i.addresses()) {
    addresses.push_back(
        Json{{"address", AddressJson(a.address())}, {"prefix_length", a.prefix_length()}});
  }
  return Json{{"name", i.name()},
              {"index", i.index()},
              {"enabled", i.enabled()},
              {"carrier", i.carrier()},
              {"mtu", i.mtu()},
              {"mac", i.has_mac() ? Json(ipc::FromProto(i.mac()).ToString()) : Json(nullptr)},
              {"addresses", addresses}};
}

Json StatusJson(const rtrmgr::v1::GetStatusReply& s) {
  Json children = Json::array();
  for (const auto& c : s.children()) {
    children.push_back(Json{{"name", c.name()},
                            {"pid", c.pid()},
                            {"restarts", c.restarts()},
                            {"configured", c.configured()},
                            {"rss_kb", c.rss_kb()},
                            {"peak_rss_kb", c.peak_rss_kb()},
                            {"last_exit", c.last_exit()}});
  }
  return Json{{"config_file", s.config_file()},
              {"rss_kb", s.rss_kb()},
              {"confirm_remaining_ms", s.confirm_remaining_ms()},
              {"children", children}};
}

std::string Print(const Json& j) { return j.dump(); }

}  // namespace sluice::rtrmgr::cli
