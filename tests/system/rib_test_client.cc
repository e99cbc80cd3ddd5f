// sluice-rib-test-client: a protocol component for the RIB's system tests — it owns a protocol
// (rib/1.0/register_protocol with its own instance name), adds routes, registers interest and
// subscribes to redistribution, and prints what the RIB sends back through rib_client/1.0.
//
//   sluice-rib-test-client --instance NAME [--finder ADDR] [--protocol P]
//                          [--route PREFIX,NEXTHOP]... [--routes N,PREFIX,NEXTHOP]
//                          [--interest ADDRESS]...
//                          [--redist FAMILY:PROTOCOL]...
//
// Prints, one line each, flushed: "ready NAME", "added N" (or "error MESSAGE"),
// "interest ADDRESS resolvable|unresolvable VALID_SUBNET", "invalid VALID_SUBNET",
// "redist FAMILY PROTOCOL ADD|REPLACE|DELETE PREFIX", "dump_done FAMILY PROTOCOL".
// Exits 0 on SIGTERM or SIGINT, 2 on a bad argument (base/program_options.h).

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "base/log.h"
#include "base/program_options.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/proto/rib_client.pb.h"
#include "ipc/types_convert.h"
#include "ipc/xrl_router.h"

namespace {

using namespace sluice;
namespace pb = rib::v1;
namespace cpb = rib_client::v1;

const ipc::Method<pb::RegisterProtocolRequest, pb::RegisterProtocolReply> kRegisterProtocol{
    "rib/1.0/register_protocol"};
const ipc::Method<pb::RoutesRequest, pb::RoutesReply> kAddRoutes{"rib/1.0/add_routes"};
const ipc::Method<pb::RegisterInterestRequest, pb::RegisterInterestReply> kRegisterInterest{
    "rib/1.0/register_interest"};
const ipc::Method<pb::RedistSubscribeRequest, pb::RedistSubscribeReply> kRedistSubscribe{
    "rib/1.0/redist_subscribe"};
const ipc::Method<cpb::RouteInfoInvalidRequest, cpb::RouteInfoInvalidReply> kRouteInfoInvalid{
    "rib_client/1.0/route_info_invalid"};
const ipc::Method<cpb::RedistRoutesRequest, cpb::RedistRoutesReply> kRedistRoutes{
    "rib_client/1.0/redist_routes"};

// --routes N,PREFIX,NEXTHOP: the IPv4 PREFIX and the N - 1 prefixes of its length after it.
absl::Status AddRouteRange(const std::string& value, pb::RoutesRequest* routes) {
  std::vector<std::string> parts = absl::StrSplit(value, ',');
  uint32_t n = 0;
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &n)) {
    return absl::InvalidArgumentError("want N,PREFIX,NEXTHOP: " + value);
  }
  auto first = net::Prefix::Parse(parts[1]);
  auto nexthop = net::IPAddress::Parse(parts[2]);
  if (!first.ok() || !nexthop.ok() || first->family() != net::Family::kIPv4 ||
      first->length() == 0) {
    return absl::InvalidArgumentError("want N,IPV4-PREFIX,NEXTHOP: " + value);
  }
  const uint32_t base = first->address().v4().value();
  const int length = first->length();
  for (uint32_t i = 0; i < n; ++i) {
    pb::RouteEntry* e = routes->add_routes();
    ipc::ToProto(net::Prefix(net::IPv4Address(base + (i << (32 - length))), length),
                 e->mutable_network());
    ipc::ToProto(*nexthop, e->mutable_nexthop());
  }
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  base::SetLogTag("rib-test-client");
  std::string instance = "rib-test-client", protocol;
  ipc::RouterOptions options;
  pb::RoutesRequest routes;
  std::vector<net::IPAddress> interests;
  std::vector<std::pair<std::string, std::string>> redists;
  base::ProgramOptions flags("sluice-rib-test-client",
                             "sluice-rib-test-client: a protocol component for the RIB's tests");
  CLI::App& app = flags.app();
  app.add_option("--instance", instance, "our instance name");
  app.add_option("--finder", options.finder_address, "the Finder");
  app.add_option("--protocol", protocol, "the protocol we register and own");
  base::AddParsedOption(
      app, "--route",
      [&routes](const std::string& value) {
        size_t comma = value.find(',');
        auto network = net::Prefix::Parse(value.substr(0, comma));
        auto nexthop =
            net::IPAddress::Parse(comma == std::string::npos ? "" : value.substr(comma + 1));
        if (!network.ok() || !nexthop.ok()) {
          return absl::InvalidArgumentError("want PREFIX,NEXTHOP: " + value);
        }
        pb::RouteEntry* e = routes.add_routes();
        ipc::ToProto(*network, e->mutable_network());
        ipc::ToProto(*nexthop, e->mutable_nexthop());
        return absl::OkStatus();
      },
      "PREFIX,NEXTHOP: a route to add; repeatable", true);
  base::AddParsedOption(
      app, "--routes",
      [&routes](const std::string& value) { return AddRouteRange(value, &routes); },
      "N,PREFIX,NEXTHOP: N routes to add, the IPv4 PREFIX and those of its length after it", true);
  base::AddParsedOption(
      app, "--interest",
      [&interests](const std::string& value) {
        auto address = net::IPAddress::Parse(value);
        if (!address.ok()) return absl::InvalidArgumentError("want an address: " + value);
        interests.push_back(*address);
        return absl::OkStatus();
      },
      "ADDRESS: register interest in it; repeatable", true);
  base::AddParsedOption(
      app, "--redist",
      [&redists](const std::string& value) {
        size_t colon = value.find(':');
        if (colon == std::string::npos) return absl::InvalidArgumentError("want FAMILY:PROTOCOL");
        redists.emplace_back(value.substr(0, colon), value.substr(colon + 1));
        return absl::OkStatus();
      },
      "FAMILY:PROTOCOL: subscribe to redistribution; repeatable", true);
  if (std::optional<int> exit = flags.Parse(argc, argv)) return *exit;

  boost::asio::io_context io;
  ipc::XrlRouter router(io, "rib_test_client", instance, options);
  auto print = [](const std::string& line) { std::cout << line << std::endl; };
  (void)router.Handle(
      kRouteInfoInvalid,
      [&](const cpb::RouteInfoInvalidRequest& r) -> absl::StatusOr<cpb::RouteInfoInvalidReply> {
        print("invalid " + ipc::FromProto(r.valid_subnet())->ToString());
        return cpb::RouteInfoInvalidReply();
      });
  (void)router.Handle(
      kRedistRoutes,
      [&](const cpb::RedistRoutesRequest& r) -> absl::StatusOr<cpb::RedistRoutesReply> {
        for (const cpb::RedistChange& c : r.changes()) {
          print("redist " + r.family() + " " + r.protocol() + " " +
                cpb::RedistChange::Op_Name(c.op()) + " " +
                ipc::FromProto(c.route().network())->ToString());
        }
        if (r.dump_done()) print("dump_done " + r.family() + " " + r.protocol());
        return cpb::RedistRoutesReply();
      });
  router.OnReady([&](absl::Status status) {
    if (!status.ok()) return;
    print("ready " + router.instance_name());
    if (!protocol.empty()) {
      pb::RegisterProtocolRequest reg;
      reg.set_protocol(protocol);
      reg.set_target(router.instance_name());
      router.Call("rib", kRegisterProtocol, reg, [&](absl::StatusOr<pb::RegisterProtocolReply> r) {
        if (!r.ok()) print("error " + std::string(r.status().message()));
      });
      routes.set_protocol(protocol);
      // Ordered after register_protocol (one stream to the RIB).
      router.Call("rib", kAddRoutes, routes, [&](absl::StatusOr<pb::RoutesReply> r) {
        print(r.ok() ? "added " + std::to_string(r->applied())
                     : "error " + std::string(r.status().message()));
      });
    }
    for (const net::IPAddress& address : interests) {
      pb::RegisterInterestRequest req;
      req.set_client(router.instance_name());
      ipc::ToProto(address, req.mutable_address());
      router.Call("rib", kRegisterInterest, req,
                  [&, address](absl::StatusOr<pb::RegisterInterestReply> r) {
                    if (!r.ok()) {
                      print("error " + std::string(r.status().message()));
                      return;
                    }
                    print("interest " + address.ToString() +
                          (r->resolvable() ? " resolvable " : " unresolvable ") +
                          ipc::FromProto(r->valid_subnet())->ToString());
                  });
    }
    for (const auto& [family, proto] : redists) {
      pb::RedistSubscribeRequest req;
      req.set_target(router.instance_name());
      req.set_family(family);
      req.set_protocol(proto);
      router.Call("rib", kRedistSubscribe, req, [&](absl::StatusOr<pb::RedistSubscribeReply> r) {
        if (!r.ok()) print("error " + std::string(r.status().message()));
      });
    }
  });
  if (absl::Status s = router.Start(); !s.ok()) {
    std::cerr << "sluice-rib-test-client: " << s.message() << "\n";
    return 1;
  }
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) { io.stop(); });
  io.run();
  return 0;
}
