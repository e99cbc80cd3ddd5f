#include "rtrmgr/mainjob/observed_tables.h"

#include <regex>

#include "absl/strings/str_cat.h"
#include "ipc/methods/bgp.h"
#include "ipc/methods/profile.h"
#include "ipc/methods/rib.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/queries.h"

namespace sluice::rtrmgr::mainjob {
namespace {

template <typename Route>
PrefixSet Prefixes(const std::vector<Route>& routes) {
  PrefixSet out;
  for (const Route& r : routes) {
    auto p = ipc::FromProto(r.network());
    if (p.ok()) out.insert(*p);
  }
  return out;
}

// Why the announced prefix `p`, not accepted, is not.
std::string WhyNotAccepted(const ExpectedTable& e, const Tables& t, const net::Prefix& p,
                           uint32_t local_as) {
  if (!e.final.count(p)) return "withdrawn later in the capture";
  if (e.as0.count(p)) return "AS 0 in its AS_PATH: treated as withdrawn (RFC 7607)";
  if (!t.adj_rib_in.count(p)) return "not in the Adj-RIB-In (refused by the UPDATE decoder)";
  std::string why = "refused by the import filter or not resolvable";
  const auto path = e.as_paths.find(p);
  if (path != e.as_paths.end() &&
      (" " + path->second + " ").find(absl::StrCat(" ", local_as, " ")) != std::string::npos) {
    why = absl::StrCat("AS_PATH loop: holds our AS ", local_as);
  }
  return why;
}

}  // namespace

std::string Count(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::optional<Counts> Poll(cli::SyncClient& client, const std::string& upstream,
                           const std::string& downstream) {
  Counts c;
  auto peers = client.Call("bgp", ipc::methods::bgp::kListPeers, bgp::v1::ListPeersRequest());
  if (!peers.ok()) return std::nullopt;
  for (const bgp::v1::PeerInfo& p : peers->peers()) {
    auto a = ipc::FromProto(p.address());
    if (!a.ok()) continue;
    if (a->ToString() == upstream) {
      c.received = p.prefixes_received();
      c.accepted = p.prefixes_accepted();
    }
    if (a->ToString() == downstream) c.downstream = p.prefixes_advertised();
  }
  auto protocols =
      client.Call("rib", ipc::methods::rib::kListProtocols, rib::v1::ListProtocolsRequest());
  if (protocols.ok()) {
    for (const rib::v1::ProtocolInfo& p : protocols->protocols()) {
      if (p.protocol() == "ebgp" || p.protocol() == "ibgp") {
        c.rib += p.routes();
      } else {
        c.rib_other += p.routes();
      }
    }
  }
  // The FEA's count is of every route it holds, whatever the protocol.
  auto plumbing = client.Call("fea", ipc::methods::profile::kDescribePlumbing,
                              profile::v1::DescribePlumbingRequest());
  if (plumbing.ok()) {
    std::smatch m;
    static const std::regex kFib("Fib: ([0-9]+) routes");
    if (std::regex_search(plumbing->text(), m, kFib)) c.fib = std::stoull(m[1]);
  }
  return c;
}

absl::StatusOr<Tables> ReadTables(cli::SyncClient& client, const std::string& upstream,
                                  const std::string& downstream) {
  Tables t;
  for (const char* family : {"ipv4", "ipv6"}) {
    auto in = cli::AllBgpRoutes(client, bgp::v1::ADJ_RIB_IN, upstream, family);
    if (!in.ok()) return in.status();
    auto loc = cli::AllBgpRoutes(client, bgp::v1::LOC_RIB, "", family);
    if (!loc.ok()) return loc.status();
    auto out = cli::AllBgpRoutes(client, bgp::v1::ADJ_RIB_OUT, downstream, family);
    if (!out.ok()) return out.status();
    auto rib = cli::AllRibRoutes(client, family);
    if (!rib.ok()) return rib.status();
    for (const PrefixSet& s : {Prefixes(*in)}) t.adj_rib_in.insert(s.begin(), s.end());
    for (const PrefixSet& s : {Prefixes(*loc)}) t.loc_rib.insert(s.begin(), s.end());
    for (const PrefixSet& s : {Prefixes(*out)}) t.adj_rib_out.insert(s.begin(), s.end());
    for (const rib::v1::RibRoute& r : *rib) {
      auto p = ipc::FromProto(r.network());
      if (!p.ok()) continue;
      if (r.protocol() == "ebgp" || r.protocol() == "ibgp") {
        t.rib.insert(*p);
      } else {
        t.rib_other[*p] =
            absl::StrCat(r.protocol(), " route (admin distance ", r.admin_distance(), ")");
      }
    }
  }
  auto fib = cli::AllFibRoutes(client);
  if (!fib.ok()) return fib.status();
  for (const fea_fib::v1::FibRoute& r : *fib) {
    auto p = ipc::FromProto(r.network());
    if (!p.ok()) continue;
    if (r.protocol() == "ebgp" || r.protocol() == "ibgp") {
      t.fib.insert(*p);
    } else {
      t.fib_other[*p] = r.protocol();
    }
  }
  return t;
}

std::vector<std::string> NotAcceptedOrPropagated(const ExpectedTable& e, const Tables& t,
                                                 const PrefixSet& accepted, uint32_t local_as) {
  std::vector<std::string> reasons;
  for (const net::Prefix& p : e.announced) {
    if (accepted.count(p)) continue;
    reasons.push_back(absl::StrCat(p.ToString(), ": ", WhyNotAccepted(e, t, p, local_as)));
  }
  for (const net::Prefix& p : accepted) {
    if (!t.rib.count(p))
      reasons.push_back(p.ToString() + ": accepted but not in the RIB");
    else if (!t.fib.count(p))
      reasons.push_back(p.ToString() + ": in the RIB, not in the FIB");
    if (!t.adj_rib_out.count(p)) reasons.push_back(p.ToString() + ": not advertised downstream");
  }
  return reasons;
}

bool HoldExactlyTheAccepted(const absl::StatusOr<Tables>& tables, const PrefixSet& accepted) {
  bool good = tables.ok() && !accepted.empty() && tables->adj_rib_out == accepted;
  if (good) {
    for (const net::Prefix& p : accepted) {
      const bool elsewhere = tables->rib_other.count(p) > 0;
      good = good && (elsewhere ? tables->fib_other.count(p) > 0
                                : tables->rib.count(p) > 0 && tables->fib.count(p) > 0);
    }
    good = good && tables->rib.size() <= accepted.size() && tables->fib == tables->rib;
  }
  return good;
}

}  // namespace sluice::rtrmgr::mainjob
