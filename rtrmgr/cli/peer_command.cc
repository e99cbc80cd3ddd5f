// sluice clear | enable | disable bgp neighbor ADDR: an operator's actions on one BGP peer
// (bgp/1.0).
//
//   clear bgp neighbor ADDR            reset_peer: Cease / Administrative Reset (RFC 4486)
//   clear bgp neighbor ADDR soft [in]  route_refresh: the peer sends its routes again (RFC 2918)
//   clear bgp neighbor ADDR soft out   route_refresh outbound: our Adj-RIB-Out is sent again
//   clear bgp neighbor ADDR soft       both
//   enable bgp neighbor ADDR           enable_peer
//   disable bgp neighbor ADDR          disable_peer by_operator: Cease / Administrative
//                                      Shutdown; stays down through reloads that leave the
//                                      peer's configuration alone

#include <iostream>

#include "ipc/methods/bgp.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/command.h"
#include "rtrmgr/cli/queries.h"

namespace sluice::rtrmgr::cli {
namespace {

// ADDR from "bgp neighbor ADDR ..."; the words after it in `rest`.
absl::StatusOr<net::IPAddress> Neighbor(const std::vector<std::string>& args,
                                        std::vector<std::string>* rest) {
  if (args.size() < 3 || args[0] != "bgp" || args[1] != "neighbor") {
    return absl::InvalidArgumentError("");
  }
  rest->assign(args.begin() + 3, args.end());
  return net::IPAddress::Parse(args[2]);
}

int Done(Context& c, const std::string& verb, const std::string& what, const absl::Status& s) {
  if (s.ok()) {
    *c.out << what << "\n";
    return kOk;
  }
  *c.err << "sluice " << verb << " bgp neighbor: " << s.message() << "\n";
  return kFailed;
}

absl::Status Refresh(SyncClient& client, const net::IPAddress& a, bool outbound) {
  bgp::v1::RouteRefreshRequest q;
  ipc::ToProto(a, q.mutable_address());
  q.set_outbound(outbound);
  return client.Call("bgp", ipc::methods::bgp::kRouteRefresh, q).status();
}

int Run(const char* verb, const std::vector<std::string>& args, Context& c) {
  std::vector<std::string> rest;
  absl::StatusOr<net::IPAddress> a = Neighbor(args, &rest);
  const bool clear = std::string(verb) == "clear";
  const bool soft = clear && !rest.empty() && rest[0] == "soft";
  const std::string direction = soft && rest.size() == 2 ? rest[1] : "";
  const bool good_rest = rest.empty() || (soft && rest.size() == 1) ||
                         (soft && rest.size() == 2 && (direction == "in" || direction == "out"));
  if (!a.ok() && !a.status().message().empty()) {  // ADDR is not an address
    *c.err << "sluice " << verb << " bgp neighbor: " << a.status().message() << "\n";
    return kUsage;
  }
  if (!a.ok() || !good_rest) {
    *c.err << Usage(*FindCommand(verb));
    return kUsage;
  }
  SyncClient client(c.finder_address, c.timeout_ms);
  bgp::v1::PeerRequest q;
  ipc::ToProto(*a, q.mutable_address());
  const std::string peer = a->ToString();
  if (!clear) {
    const bool enable = std::string(verb) == "enable";
    q.set_by_operator(!enable);
    const auto& method = enable ? ipc::methods::bgp::kEnablePeer : ipc::methods::bgp::kDisablePeer;
    return Done(c, verb, peer + (enable ? " enabled" : " disabled (administratively down)"),
                client.Call("bgp", method, q).status());
  }
  if (!soft) {
    return Done(c, verb, peer + " reset",
                client.Call("bgp", ipc::methods::bgp::kResetPeer, q).status());
  }
  if (direction != "out") {
    if (absl::Status s = Refresh(client, *a, false); !s.ok()) return Done(c, verb, "", s);
    *c.out << peer << ": route refresh sent (soft in)\n";
  }
  if (direction != "in") {
    if (absl::Status s = Refresh(client, *a, true); !s.ok()) return Done(c, verb, "", s);
    *c.out << peer << ": Adj-RIB-Out sent again (soft out)\n";
  }
  return kOk;
}

}  // namespace

int RunClear(const std::vector<std::string>& args, Context& c) { return Run("clear", args, c); }
int RunEnable(const std::vector<std::string>& args, Context& c) { return Run("enable", args, c); }
int RunDisable(const std::vector<std::string>& args, Context& c) { return Run("disable", args, c); }

}  // namespace sluice::rtrmgr::cli
