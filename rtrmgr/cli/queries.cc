#include "rtrmgr/cli/queries.h"

#include "ipc/methods/bgp.h"
#include "ipc/methods/fea_fib.h"
#include "ipc/methods/rib.h"
#include "ipc/types_convert.h"

namespace sluice::rtrmgr::cli {

absl::StatusOr<std::vector<bgp::v1::Route>> AllBgpRoutes(SyncClient& client, bgp::v1::RibView view,
                                                         const std::string& peer,
                                                         const std::string& family) {
  bgp::v1::ListRoutesRequest q;
  q.set_view(view);
  q.set_family(family);
  q.set_max_routes(20000);
  if (!peer.empty()) {
    absl::StatusOr<net::IPAddress> a = net::IPAddress::Parse(peer);
    if (!a.ok()) return a.status();
    ipc::ToProto(*a, q.mutable_peer());
  }
  std::vector<bgp::v1::Route> out;
  while (true) {
    auto r = client.Call("bgp", ipc::methods::bgp::kListRoutes, q);
    if (!r.ok()) return r.status();
    for (bgp::v1::Route& route : *r->mutable_routes()) out.push_back(std::move(route));
    if (!r->more() || r->routes().empty()) break;
    *q.mutable_start_after() = out.back().network();
  }
  return out;
}

absl::StatusOr<std::vector<rib::v1::RibRoute>> AllRibRoutes(SyncClient& client,
                                                            const std::string& family,
                                                            const std::string& protocol) {
  rib::v1::ListRoutesRequest q;
  q.set_family(family);
  q.set_protocol(protocol);
  q.set_max_routes(20000);
  std::vector<rib::v1::RibRoute> out;
  while (true) {
    auto r = client.Call("rib", ipc::methods::rib::kListRoutes, q);
    if (!r.ok()) return r.status();
    for (rib::v1::RibRoute& route : *r->mutable_routes()) out.push_back(std::move(route));
    if (!r->more() || r->routes().empty()) break;
    *q.mutable_start_after() = out.back().network();
  }
  return out;
}

absl::StatusOr<std::vector<fea_fib::v1::FibRoute>> AllFibRoutes(SyncClient& client,
                                                                const std::string& fea) {
  fea_fib::v1::ListRoutesRequest q;
  q.set_max_routes(20000);
  std::vector<fea_fib::v1::FibRoute> out;
  while (true) {
    auto r = client.Call(fea, ipc::methods::fea_fib::kListRoutes, q);
    if (!r.ok()) return r.status();
    for (fea_fib::v1::FibRoute& route : *r->mutable_routes()) out.push_back(std::move(route));
    if (!r->more() || r->routes().empty()) break;
    *q.mutable_start_after() = out.back().network();
  }
  return out;
}

}  // namespace sluice::rtrmgr::cli
