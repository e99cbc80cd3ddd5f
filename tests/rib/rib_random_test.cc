// Randomized sequences through the whole RIB network, both families: several protocols adding,
// replacing and deleting routes over a small pool of overlapping prefixes, admin distance
// changes, protocol deaths mid-stream, interfaces going up and down under EGP routes, FEA
// rebirths, interest registrations and redistribution — with background work interleaved at
// random points. A CacheStage after every stage checks the consistency rules throughout; at the
// end, the FIB, every lookup, every registration and every redistribution stream must equal
// what an independent model computes from the routes the protocols last sent.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <random>
#include <set>

#include "rib/rib.h"
#include "tests/rib/rib_test_util.h"

namespace sluice::rib {
namespace {

using testing::A;
using testing::P;

// --- The model: what the RIB should converge to ----------------------------------------------

struct Model {
  struct Iface {
    bool up = true;
    std::map<net::IPAddress, int> addresses;
  };
  std::map<std::string, ProtocolClass> classes;
  std::map<std::string, uint16_t> distances;
  std::map<std::string, std::map<net::Prefix, RouteInput>> routes;
  std::map<std::string, Iface> interfaces;

  static bool Better(const RibRoute& a, const RibRoute& b) {
    if (a.admin_distance != b.admin_distance) return a.admin_distance < b.admin_distance;
    return a.protocol.name() < b.protocol.name();
  }
  static void Keep(std::optional<RibRoute>& best, const RibRoute& r) {
    if (!best || Better(r, *best)) best = r;
  }
  RibRoute Route(const std::string& protocol, const RouteInput& in) const {
    RibRoute r;
    r.network = in.network;
    r.nexthop = in.nexthop;
    r.ifname = in.ifname.empty() ? Symbol() : Symbol::Intern(in.ifname);
    r.metric = in.metric;
    r.protocol = Symbol::Intern(protocol);
    r.admin_distance = distances.at(protocol);
    r.tags = TagSet::Of(in.tags);
    return r;
  }

  // Best route per prefix of one class (connected counts as an IGP).
  std::map<net::Prefix, RibRoute> BestOf(ProtocolClass c, net::Family f) const {
    std::map<net::Prefix, std::optional<RibRoute>> best;
    for (const auto& [protocol, table] : routes) {
      if (classes.at(protocol) != c) continue;
      for (const auto& [p, in] : table) {
        if (p.family() == f) Keep(best[p], Route(protocol, in));
      }
    }
    if (c == ProtocolClass::kIgp) {
      // Connected: per subnet, the first interface by name that is up.
      for (const auto& [name, iface] : interfaces) {
        if (!iface.up) continue;
        for (const auto& [address, length] : iface.addresses) {
          const net::Prefix p(address, length);
          if (p.family() != f) continue;
          RibRoute r;
          r.network = p;
          r.ifname = Symbol::Intern(name);
          r.protocol = Symbol::Intern("connected");
          r.admin_distance = 0;
          auto& slot = best[p];
          if (!slot || Better(r, *slot)) slot = r;
        }
      }
    }
    std::map<net::Prefix, RibRoute> out;
    for (auto& [p, r] : best) out.emplace(p, *r);
    return out;
  }

  static const RibRoute* Lpm(const std::map<net::Prefix, RibRoute>& table,
                             const net::IPAddress& a) {
    for (int len = a.bits(); len >= 0; --len) {
      auto it = table.find(net::Prefix(a, len));
      if (it != table.end()) return &it->second;
    }
    return nullptr;
  }

  static std::optional<Resolution> Resolve(const std::map<net::Prefix, RibRoute>& igp,
                                           net::IPAddress a) {
    uint32_t metric = 0;
    for (int depth = 0; depth < 8; ++depth) {
      const RibRoute* m = Lpm(igp, a);
      if (m == nullptr) return std::nullopt;
      if (depth == 0) metric = m->metric;
      if (!m->nexthop) return Resolution{a, m->ifname, metric};
      if (!m->ifname.empty()) return Resolution{m->nexthop, m->ifname, metric};
      a = *m->nexthop;
    }
    return std::nullopt;
  }

  std::map<net::Prefix, RibRoute> Winners(net::Family f) const {
    const auto igp = BestOf(ProtocolClass::kIgp, f);
    const auto egp = BestOf(ProtocolClass::kEgp, f);
    std::map<net::Prefix, RibRoute> out = igp;
    for (const auto& [p, e] : egp) {
      RibRoute r = e;
      if (!e.nexthop || !e.ifname.empty()) {
        r.resolved = Resolution{e.nexthop, e.ifname, 0};
      } else if (auto res = Resolve(igp, *e.nexthop)) {
        r.resolved = *res;
      } else {
        continue;  // unresolvable: the IGP route, if any, stays
      }
      auto it = out.find(p);
      if (it == out.end()) {
        out.emplace(p, r);
      } else if (Better(r, it->second)) {
        it->second = r;
      }
    }
    return out;
  }
};

// --- Clients that keep what they are told ----------------------------------------------------

class TrackingRegistrant : public InterestRegistrant {
 public:
  void OnInterestInvalidated(const net::Prefix& subnet) override { answers.erase(subnet); }
  void OnInterestChanged(const InterestAnswer& answer) override {
    auto it = answers.find(answer.valid_subnet);
    if (it == answers.end()) {
      ADD_FAILURE() << "change for unregistered " << answer.valid_subnet.ToString();
      return;
    }
    it->second = answer;
  }
  std::map<net::Prefix, InterestAnswer> answers;
};

// --- The test ------------------------------------------------------------------------------

struct Pools {
  std::vector<net::Prefix> prefixes[2];
  std::vector<net::IPAddress> nexthops[2];
  std::vector<net::IPAddress> probes[2];  // addresses to register interest in
};

Pools MakePools() {
  Pools p;
  for (const char* s :
       {"0.0.0.0/0", "10.0.0.0/8", "10.1.0.0/16", "10.1.1.0/24", "10.1.2.0/24", "10.2.0.0/16",
        "10.2.128.0/17", "192.168.0.0/16", "192.168.1.0/24", "192.168.1.128/25", "172.16.0.0/12",
        "203.0.113.0/24", "198.51.100.0/24", "10.255.0.0/16", "10.255.1.0/24"}) {
    p.prefixes[0].push_back(P(s));
  }
  for (const char* s : {"::/0", "2001:db8::/32", "2001:db8:1::/48", "2001:db8:1:1::/64",
                        "2001:db8:2::/48", "fd00::/8", "fd00:1::/32", "2001:db8:ff01::/64"}) {
    p.prefixes[1].push_back(P(s));
  }
  for (const char* s : {"10.255.0.7", "10.255.1.7", "10.1.1.9", "192.168.1.200", "172.16.5.5",
                        "10.2.200.1", "203.0.113.77"}) {
    p.nexthops[0].push_back(A(s));
  }
  for (const char* s :
       {"2001:db8:ff00::7", "2001:db8:ff01::7", "2001:db8:1:1::9", "fd00:1::5", "2001:db8:2::1"}) {
    p.nexthops[1].push_back(A(s));
  }
  p.probes[0] = p.nexthops[0];
  for (const char* s : {"10.1.3.1", "10.200.0.1", "11.0.0.1", "192.168.1.1", "198.51.100.5"}) {
    p.probes[0].push_back(A(s));
  }
  p.probes[1] = p.nexthops[1];
  p.probes[1].push_back(A("2001:db8:3::1"));
  p.probes[1].push_back(A("3000::1"));
  return p;
}

// Returns the full pushes the RIB began for an FEA that lagged.
void RunSeed(uint32_t seed, int steps, size_t* full_pushes) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  auto chance = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };

  boost::asio::io_context io;
  testing::FakeFib fib(io);
  std::vector<std::string> violations;
  RibOptions options;
  options.insert_cache_stages = true;
  // Half the seeds bound the FEA's backlog tightly: a stalled FEA lags and gets full pushes.
  options.fea = FeaOutOptions{.batch_size = 1 + pick(20),
                              .max_in_flight = 1 + pick(4),
                              .max_backlog = chance(50) ? 1 + pick(40) : 0};
  options.on_violation = [&](const std::string& v) {
    if (violations.size() < 20) violations.push_back(v);
  };
  Rib rib(io, &fib, options);
  // A second FEA that never stalls, dies or restarts: it ends with the same FIB.
  testing::FakeFib other(io);
  ASSERT_TRUE(rib.AddFea("fea-2", &other).ok());
  rib.FeaBorn("fea-2");
  const Pools pools = MakePools();
  Model model;
  const std::vector<std::string> protocols = {"static", "ospf", "rip", "ebgp", "ibgp"};
  for (const std::string& p : protocols) {
    model.classes[p] = DefaultsFor(p).protocol_class;
    model.distances[p] = DefaultsFor(p).admin_distance;
  }
  const char* ifnames[] = {"eth0", "eth1", "eth2"};
  InterfaceEvents* ev = rib.interface_events();
  auto add_address = [&](const char* ifname, const char* address, int length) {
    ev->OnAddressAdded(ifname, A(address), length);
    model.interfaces[ifname].addresses[A(address)] = length;
  };
  for (const char* name : ifnames) {
    ev->OnInterfaceAdded(name, true);
    model.interfaces[name].up = true;
  }
  add_address("eth0", "10.255.0.1", 24);
  add_address("eth0", "2001:db8:ff00::1", 64);
  add_address("eth1", "10.255.1.1", 24);
  add_address("eth1", "2001:db8:ff01::1", 64);
  add_address("eth2", "10.255.0.2", 24);  // the same subnet as eth0

  testing::RecordingSubscriber redist_static;  // ipv4 static
  testing::RecordingSubscriber redist_all;     // ipv6, every protocol
  redist_static.log_changes = redist_all.log_changes = false;
  TrackingRegistrant registrant;
  bool fea_up = false;

  auto random_route = [&](int f, ProtocolClass c) {
    RouteInput r;
    r.network = pools.prefixes[f][pick(pools.prefixes[f].size())];
    const int shape = static_cast<int>(pick(c == ProtocolClass::kEgp ? 10 : 4));
    if (shape == 0) {
      r.ifname = ifnames[pick(3)];
    } else {
      r.nexthop = pools.nexthops[f][pick(pools.nexthops[f].size())];
      if (shape == 1) r.ifname = ifnames[pick(3)];
    }
    r.metric = static_cast<uint32_t>(pick(4));
    if (chance(10)) r.tags = {static_cast<uint32_t>(pick(3))};
    return r;
  };

  for (int step = 0; step < steps; ++step) {
    const int op = static_cast<int>(pick(100));
    const int f = chance(70) ? 0 : 1;
    if (op < 45) {  // a batch of adds and replaces
      const std::string& protocol = protocols[pick(protocols.size())];
      std::vector<RouteInput> batch;
      const size_t n = 1 + pick(4);
      for (size_t i = 0; i < n; ++i) {
        batch.push_back(random_route(chance(70) ? 0 : 1, model.classes[protocol]));
      }
      ASSERT_TRUE(rib.AddRoutes(protocol, batch).ok());
      for (const RouteInput& r : batch) model.routes[protocol][r.network] = r;
    } else if (op < 65) {  // deletes
      const std::string& protocol = protocols[pick(protocols.size())];
      std::vector<net::Prefix> batch;
      for (size_t i = 0; i < 1 + pick(3); ++i) {
        batch.push_back(pools.prefixes[f][pick(pools.prefixes[f].size())]);
      }
      ASSERT_TRUE(rib.DeleteRoutes(protocol, batch).ok());
      for (const net::Prefix& p : batch) model.routes[protocol].erase(p);
    } else if (op < 70) {  // admin distance
      const std::string& protocol = protocols[pick(protocols.size())];
      static const uint16_t kDistances[] = {1, 20, 90, 110, 120, 150, 200};
      const uint16_t d = kDistances[pick(7)];
      ASSERT_TRUE(rib.SetAdminDistance(protocol, d).ok());
      model.distances[protocol] = d;
    } else if (op < 74) {  // a protocol dies; it may come back at once
      const std::string& protocol = protocols[pick(protocols.size())];
      ASSERT_TRUE(rib.ProtocolDied(protocol).ok());
      model.routes[protocol].clear();
    } else if (op < 80) {  // interfaces under the routes
      const char* name = ifnames[pick(3)];
      if (chance(60)) {
        const bool up = !model.interfaces[name].up;
        ev->OnInterfaceUp(name, up);
        model.interfaces[name].up = up;
      } else if (chance(50) && !model.interfaces[name].addresses.empty()) {
        auto it = model.interfaces[name].addresses.begin();
        std::advance(it, pick(model.interfaces[name].addresses.size()));
        ev->OnAddressRemoved(name, it->first);
        model.interfaces[name].addresses.erase(it);
      } else {
        static const std::pair<const char*, int> kAddresses[] = {
            {"10.255.0.3", 24},  {"10.255.1.3", 24},       {"10.1.1.1", 24},
            {"192.168.1.1", 25}, {"2001:db8:ff00::3", 64}, {"fd00:1::1", 48}};
        const auto& [address, length] = kAddresses[pick(6)];
        add_address(name, address, length);
      }
    } else if (op < 83) {  // the FEA is born (again), sometimes after dying
      if (chance(50)) rib.FeaDied();
      fib.Reset();
      rib.FeaBorn();
      fea_up = true;
    } else if (op < 88) {  // interest in an address
      const auto& probes = pools.probes[f];
      const net::IPAddress address = probes[pick(probes.size())];
      InterestAnswer a = rib.RegisterInterest(&registrant, address);
      EXPECT_TRUE(a.valid_subnet.Contains(address));
      EXPECT_EQ(a.route, rib.LookupDestination(address)) << address.ToString();
      registrant.answers[a.valid_subnet] = a;
    } else if (op < 90) {  // redistribution comes and goes
      if (f == 0) {
        if (rib.RedistUnsubscribe(&redist_static, net::Family::kIPv4, "static").ok()) {
          redist_static.routes.clear();
        } else {
          ASSERT_TRUE(rib.RedistSubscribe(&redist_static, net::Family::kIPv4, "static").ok());
        }
      } else {
        if (rib.RedistUnsubscribe(&redist_all, net::Family::kIPv6, "").ok()) {
          redist_all.routes.clear();
        } else {
          ASSERT_TRUE(rib.RedistSubscribe(&redist_all, net::Family::kIPv6, "").ok());
        }
      }
    } else if (op < 92) {  // the FEA stops answering, or answers everything it held
      if (!fib.hold) {
        fib.hold = true;
      } else {
        fib.hold = false;
        while (!fib.held.empty()) fib.Release();
      }
    } else {                           // let some background work run
      if (io.stopped()) io.restart();  // it stops whenever it runs out of work
      for (size_t i = pick(8); i > 0 && io.poll_one() > 0;) --i;
    }
    if (step % 97 == 0) {
      EXPECT_EQ(rib.network(net::Family::kIPv4).VerifyCaches(), 0u);
      EXPECT_EQ(rib.network(net::Family::kIPv6).VerifyCaches(), 0u);
    }
    if (!violations.empty()) break;
  }
  if (!fea_up) rib.FeaBorn();
  fib.hold = false;
  while (!fib.held.empty()) fib.Release();
  io.restart();
  io.run();
  io.restart();
  ASSERT_TRUE(rib.Idle()) << rib.Describe();

  for (const auto& v : violations) ADD_FAILURE() << v;
  EXPECT_EQ(rib.network(net::Family::kIPv4).VerifyCaches(), 0u);
  EXPECT_EQ(rib.network(net::Family::kIPv6).VerifyCaches(), 0u);
  EXPECT_EQ(fib.errors, 0u) << "add of a present or delete of an absent FIB entry";
  EXPECT_EQ(other.errors, 0u) << "fea-2: add of a present or delete of an absent FIB entry";
  EXPECT_EQ(other.Text(), fib.Text()) << "fea-2 and fea end with the same FIB";

  for (net::Family family : {net::Family::kIPv4, net::Family::kIPv6}) {
    const auto winners = model.Winners(family);
    // The FIB holds exactly the winners.
    std::map<net::Prefix, FibRoute> want_fib;
    for (const auto& [p, r] : winners) want_fib.emplace(p, FibRoute::From(r));
    std::map<net::Prefix, FibRoute> got_fib;
    for (const auto& [p, r] : fib.fib) {
      if (p.family() == family) got_fib.emplace(p, r);
    }
    EXPECT_EQ(got_fib.size(), want_fib.size());
    for (const auto& [p, r] : want_fib) {
      auto it = got_fib.find(p);
      if (it == got_fib.end()) {
        ADD_FAILURE() << "FIB lacks " << r.ToString();
      } else if (!(it->second == r)) {
        ADD_FAILURE() << "FIB has " << it->second.ToString() << " want " << r.ToString();
      }
    }
    for (const auto& [p, r] : got_fib) {
      if (!want_fib.contains(p)) ADD_FAILURE() << "FIB has extra " << r.ToString();
    }
    // Lookups answer the winners, resolution included.
    const int f = family == net::Family::kIPv4 ? 0 : 1;
    for (const net::Prefix& p : pools.prefixes[f]) {
      auto it = winners.find(p);
      std::optional<RibRoute> want;
      if (it != winners.end()) want = it->second;
      EXPECT_EQ(rib.LookupPrefix(p), want) << p.ToString();
    }
    for (const net::IPAddress& a : pools.probes[f]) {
      const RibRoute* m = Model::Lpm(winners, a);
      EXPECT_EQ(rib.LookupDestination(a), m ? std::optional<RibRoute>(*m) : std::nullopt)
          << a.ToString();
    }
    EXPECT_EQ(rib.ListRoutes(family, std::nullopt, 1000).size(), winners.size());
  }

  // Registrations still held were kept right by the notifications: every address of the
  // subnet (first, middle, last) has the answer's route as its longest-match winner.
  for (const auto& [subnet, answer] : registrant.answers) {
    const auto winners = model.Winners(subnet.family());
    const int bits = subnet.address().bits();
    std::vector<net::IPAddress> addresses = {subnet.address()};
    if (subnet.length() < bits) {
      addresses.push_back(net::Prefix(subnet.address(), bits).address());
      if (subnet.is_v4()) {
        const uint32_t base = subnet.v4().value();
        const uint32_t size =
            subnet.length() == 0 ? 0xffffffffu : (1u << (32 - subnet.length())) - 1;
        addresses.push_back(net::IPv4Address(base + size / 2));
        addresses.push_back(net::IPv4Address(base + size));
      } else {
        const net::IPv6Address a = subnet.v6();
        if (subnet.length() >= 64) {
          const uint64_t size =
              subnet.length() == 64 ? ~uint64_t{0} : (uint64_t{1} << (128 - subnet.length())) - 1;
          addresses.push_back(net::IPv6Address(a.hi(), a.lo() + size));
        } else {
          const uint64_t size =
              subnet.length() == 0 ? ~uint64_t{0} : (uint64_t{1} << (64 - subnet.length())) - 1;
          addresses.push_back(net::IPv6Address(a.hi() + size, ~uint64_t{0}));
        }
      }
    }
    for (const net::IPAddress& a : addresses) {
      const RibRoute* m = Model::Lpm(winners, a);
      EXPECT_EQ(answer.route, m ? std::optional<RibRoute>(*m) : std::nullopt)
          << "registration " << subnet.ToString() << " at " << a.ToString();
    }
  }

  // Redistribution streams end where the winners are.
  auto check_redist = [&](testing::RecordingSubscriber& sub, net::Family family,
                          const char* protocol) {
    if (!rib.network(family).RedistUnsubscribe(&sub, Symbol()).ok() &&
        !rib.RedistUnsubscribe(&sub, family, protocol).ok()) {
      return;  // not subscribed at the end
    }
    for (const auto& e : sub.errors) ADD_FAILURE() << e;
    std::map<net::Prefix, RibRoute> want;
    for (const auto& [p, r] : model.Winners(family)) {
      if (*protocol == '\0' || r.protocol.name() == protocol) want.emplace(p, r);
    }
    EXPECT_EQ(sub.routes, want) << "redistribution of " << protocol;
  };
  check_redist(redist_static, net::Family::kIPv4, "static");
  check_redist(redist_all, net::Family::kIPv6, "");
  *full_pushes += fib.full_pushes_begun;
}

TEST(RibRandom, ConsistentAndConvergesToTheModel) {
  size_t full_pushes = 0;
  for (uint32_t seed = 1; seed <= 24; ++seed) {
    RunSeed(seed, 4000, &full_pushes);
    if (HasFailure()) break;
  }
  EXPECT_GT(full_pushes, 0u) << "no seed made the FEA lag: the backlog bound went untested";
  std::cout << "full pushes to a lagging FEA: " << full_pushes << "\n";
}

}  // namespace
}  // namespace sluice::rib
