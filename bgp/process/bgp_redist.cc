#include "bgp/process/bgp_redist.h"

#include <utility>

#include "base/log.h"
#include "bgp/stages/bgp_var_rw.h"

namespace sluice::bgp::process {

namespace {

// The BGP view of the route being built, with the RIB's protocol and tag on top.
class RedistVarRW : public policy::VarRW {
 public:
  RedistVarRW(BgpVarRW* bgp, std::string_view protocol, const RedistRoute& route)
      : bgp_(bgp), protocol_(protocol), route_(route) {}
  policy::Value Read(policy::VarId id) override {
    switch (id) {
      case policy::VarId::kProtocol:
        return policy::Value::Text(protocol_);
      case policy::VarId::kTag:
        return route_.tags.empty() ? policy::Value::None() : policy::Value::U32(route_.tags[0]);
      default:
        return bgp_->Read(id);
    }
  }
  void Write(policy::VarId id, const policy::Value& value) override {
    if (id == policy::VarId::kTag) return;  // not a BGP attribute
    bgp_->Write(id, value);
  }

 private:
  BgpVarRW* bgp_;
  std::string_view protocol_;
  const RedistRoute& route_;
};

}  // namespace

BgpRedist::BgpRedist(BgpProcess* bgp, Subscriber subscriber)
    : bgp_(bgp), subscriber_(std::move(subscriber)) {}

void BgpRedist::Configure(const std::string& protocol,
                          std::shared_ptr<const policy::Filter> filter) {
  auto [it, fresh] = banks_.try_emplace(protocol);
  it->second.filter = std::move(filter);
  if (fresh) {
    if (subscriber_) {
      for (const net::Family f : {net::Family::kIPv4, net::Family::kIPv6}) {
        subscriber_(f, protocol, true);
      }
    }
    return;
  }
  (void)Push(protocol);
}

absl::Status BgpRedist::Push(const std::string& protocol) {
  auto it = banks_.find(protocol);
  if (it == banks_.end()) {
    return absl::NotFoundError("no redistribution of protocol \"" + protocol + "\"");
  }
  Bank& bank = it->second;
  std::vector<net::Prefix> prefixes;
  prefixes.reserve(bank.routes.size());
  for (const auto& [p, r] : bank.routes) prefixes.push_back(p);
  for (const net::Prefix& p : prefixes) Evaluate(bank, protocol, p);
  return absl::OkStatus();
}

absl::Status BgpRedist::Reset(const std::string& protocol) {
  auto it = banks_.find(protocol);
  if (it == banks_.end()) {
    return absl::NotFoundError("no redistribution of protocol \"" + protocol + "\"");
  }
  if (subscriber_) {
    for (const net::Family f : {net::Family::kIPv4, net::Family::kIPv6}) {
      subscriber_(f, protocol, false);
    }
  }
  std::set<net::Prefix> originated = std::move(it->second.originated);
  for (const net::Prefix& p : originated) (void)bgp_->WithdrawOriginated(p);
  banks_.erase(it);
  return absl::OkStatus();
}

std::vector<std::string> BgpRedist::protocols() const {
  std::vector<std::string> out;
  for (const auto& [name, bank] : banks_) out.push_back(name);
  return out;
}

std::set<net::Prefix> BgpRedist::Originated(const std::string& protocol) const {
  auto it = banks_.find(protocol);
  return it == banks_.end() ? std::set<net::Prefix>() : it->second.originated;
}

void BgpRedist::OnChanges(net::Family family, const std::string& protocol,
                          std::span<const RedistRoute> changes, bool dump_done, bool dump_start) {
  auto it = banks_.find(protocol);
  if (it == banks_.end()) return;
  Bank& bank = it->second;
  if (dump_start) {
    for (const auto& [p, r] : bank.routes) {
      if (p.family() == family) bank.stale.insert(p);
    }
  }
  for (const RedistRoute& c : changes) {
    bank.stale.erase(c.network);
    if (c.deleted) {
      bank.routes.erase(c.network);
    } else {
      bank.routes[c.network] = c;
    }
    Evaluate(bank, protocol, c.network);
  }
  if (dump_done) {
    for (auto s = bank.stale.begin(); s != bank.stale.end();) {
      if (s->family() != family) {
        ++s;
        continue;
      }
      bank.routes.erase(*s);
      Withdraw(bank, *s);
      s = bank.stale.erase(s);
    }
  }
}

void BgpRedist::OnRibBorn() {
  for (auto& [protocol, bank] : banks_) {
    for (const auto& [p, r] : bank.routes) bank.stale.insert(p);
    if (subscriber_) {
      for (const net::Family f : {net::Family::kIPv4, net::Family::kIPv6}) {
        subscriber_(f, protocol, true);
      }
    }
  }
}

void BgpRedist::Withdraw(Bank& bank, const net::Prefix& prefix) {
  if (bank.originated.erase(prefix) > 0) (void)bgp_->WithdrawOriginated(prefix);
}

void BgpRedist::Evaluate(Bank& bank, const std::string& protocol, const net::Prefix& prefix) {
  auto it = bank.routes.find(prefix);
  if (it == bank.routes.end()) {
    Withdraw(bank, prefix);
    return;
  }
  const RedistRoute& route = it->second;
  if (!route.nexthop || route.nexthop->family() != prefix.family()) {
    SLUICE_LOG(kWarning) << "redistributing " << protocol << " route " << prefix.ToString()
                         << ": no nexthop of its family, not announced";
    Withdraw(bank, prefix);
    return;
  }
  PathAttributes base;
  base.origin = Origin::kIncomplete;
  base.as_path = AsPath();
  if (prefix.family() == net::Family::kIPv4) {
    base.next_hop = route.nexthop->v4();
  } else {
    base.mp_next_hop = MpNextHop{*route.nexthop, std::nullopt};
  }
  BgpRoute candidate;
  candidate.net = prefix;
  candidate.attrs = bgp_->store().Intern(std::move(base));
  PolicyContext context;
  context.local_as = bgp_->local().as;
  BgpVarRW bgp_rw;
  bgp_rw.Reset(candidate, context);
  RedistVarRW rw(&bgp_rw, protocol, route);
  const policy::Result result = bank.filter->Run(rw);
  if (!result.accepted()) {
    Withdraw(bank, prefix);
    return;
  }
  PathAttributes out = bgp_rw.attributes();
  absl::Status st = bgp_->Originate(prefix, std::move(out));
  if (!st.ok()) {
    SLUICE_LOG(kWarning) << "redistributing " << protocol << " route " << prefix.ToString() << ": "
                         << st.message();
    Withdraw(bank, prefix);
    return;
  }
  bank.originated.insert(prefix);
}

}  // namespace sluice::bgp::process
