#pragma once
// A router for the shard stage's equivalence tests: BgpRouting with `threads` worker
// threads (1: the serial pipeline), peers on FakeSessions (each keeps what its remote peer was
// sent, decoded), a FakeRib, and digests of what a user can read: the Loc-RIB, each peer's
// Adj-RIB-Out (as `show` reads it and as the peer received it), the RIB's routes and the UPDATE
// counts. The same input through any number of threads must give the same digests.

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "bgp/stages/bgp_routing.h"
#include "tests/bgp/stages_fakes.h"

namespace sluice::bgp::testing {

// An order-sensitive hash of lines (FNV-1a) and their number.
struct Digest {
  size_t lines = 0;
  uint64_t hash = 1469598103934665603ULL;
  void Add(std::string_view line) {
    for (char c : line) Mix(static_cast<uint8_t>(c));
    Mix('\n');
    ++lines;
  }
  void Mix(uint8_t c) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  std::string ToString() const {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%zu lines #%016llx", lines,
                  static_cast<unsigned long long>(hash));
    return buf;
  }
  friend bool operator==(const Digest&, const Digest&) = default;
};

class ShardRouter {
 public:
  struct Peer {
    RoutingPeerConfig config;
    EstablishedInfo info;
    std::unique_ptr<FakeSession> session;
    SessionListener* listener = nullptr;
    bool up = false;
  };

  // `shard_single_thread`: with threads 1, the shard stage on one worker thread anyway.
  // `validator`: with RPKI (every branch validates against it), or null.
  // `encode_thread`: RouterConfig::encode_thread.
  ShardRouter(int threads, uint32_t local_as, PipelineOptions options = {},
              bool shard_single_thread = false, const rpki::OriginValidator* validator = nullptr,
              bool encode_thread = false) {
    rib_ = std::make_unique<FakeRib>(io_);
    RouterConfig rc;
    rc.local_as = local_as;
    rc.router_id = net::IPv4Address(0xc0000201);  // 192.0.2.1
    rc.threads = threads;
    rc.shard_single_thread = shard_single_thread;
    rc.encode_thread = encode_thread;
    RoutingServices services{nullptr, rib_.get(), &store_};
    services.validator = validator;
    routing_ = std::make_unique<BgpRouting>(io_, rc, services, options);
  }
  ~ShardRouter() {
    routing_.reset();
    RunLoop();
  }

  // An eBGP (or iBGP, same AS) peer running IPv4 and IPv6 unicast.
  Peer& AddPeer(const std::string& name, const net::IPAddress& address, uint32_t as,
                bool as4 = true, policy::FilterSlot* import = nullptr,
                policy::FilterSlot* export_policy = nullptr) {
    auto p = std::make_unique<Peer>();
    p->config.name = name;
    p->config.address = address;
    p->config.peer_as = as;
    p->config.ebgp_requires_policy = false;
    p->config.nexthop_v4 = net::IPAddress(net::IPv4Address(0xc0000201));
    p->config.nexthop_v6 = *net::IPAddress::Parse("2001:db8::1");
    p->config.import_policy = import;
    p->config.export_policy = export_policy;
    SessionParams params;
    params.four_octet_as = as4;
    params.external = as != routing_->config().local_as;
    params.families.Add(kIPv6Unicast);
    p->info.params = params;
    p->info.remote_as = as;
    p->info.remote_address = address;
    p->info.remote_bgp_id =
        address.is_v4() ? address.v4() : net::IPv4Address(0x0a000000 + uint32_t(peers_.size()));
    p->info.local_address = address.is_v4() ? net::IPAddress(net::IPv4Address(0xc0000201))
                                            : *net::IPAddress::Parse("2001:db8::1");
    p->info.route_refresh = true;
    p->session = std::make_unique<FakeSession>(&store_, params);
    auto l = routing_->AddPeer(p->config, p->session.get());
    EXPECT_TRUE(l.ok()) << l.status();
    p->listener = *l;
    Peer& ref = *p;
    peers_[address] = std::move(p);
    return ref;
  }
  void Up(Peer& p) {
    if (p.up) return;
    p.up = true;
    p.session->up = true;
    p.listener->OnEstablished(p.info);
  }
  void Down(Peer& p) {
    if (!p.up) return;
    p.up = false;
    p.session->Reset();
    p.listener->OnSessionDown("test");
  }
  Peer* peer(const net::IPAddress& a) {
    auto it = peers_.find(a);
    return it == peers_.end() ? nullptr : it->second.get();
  }
  const std::map<net::IPAddress, std::unique_ptr<Peer>>& peers() const { return peers_; }

  void Settle() { routing_->Settle(); }
  // Runs what is ready on the event loop, as between two reads of a session. (A loop that ran out
  // of work is stopped, and poll() alone would then run nothing: restart() first.)
  void RunLoop() {
    io_.restart();
    io_.poll();
  }
  // Runs the event loop while the shards' input is full, as a session would stop reading.
  void RunWhilePaused() {
    auto guard = boost::asio::make_work_guard(io_);
    io_.restart();
    while (routing_->input_paused()) io_.run_one_for(std::chrono::milliseconds(1));
  }

  // Every route of `query`, page by page, one line each.
  Digest Read(RouteQuery q) {
    Digest d;
    q.max = 5000;
    for (;;) {
      auto page = routing_->ReadRoutes(q);
      if (!page.ok()) {
        d.Add(std::string(page.status().message()));
        return d;
      }
      for (const BgpRoute& r : *page) d.Add(r.ToString());
      if (page->size() < q.max) return d;
      q.after = page->back().net;
    }
  }
  Digest LocRib(net::Family f) {
    RouteQuery q;
    q.view = RibView::kLocRib;
    q.family = f;
    return Read(q);
  }
  Digest AdjRibOut(const Peer& p, net::Family f) {
    RouteQuery q;
    q.view = RibView::kAdjRibOut;
    q.family = f;
    q.peer = p.config.address;
    return Read(q);
  }
  Digest AdjRibIn(const Peer& p, net::Family f) {
    RouteQuery q;
    q.view = RibView::kAdjRibIn;
    q.family = f;
    q.peer = p.config.address;
    return Read(q);
  }
  // What the peer holds from us, as it decoded our UPDATEs.
  static Digest Held(const Peer& p) {
    Digest d;
    for (const auto& [prefix, attrs] : p.session->held) {
      d.Add(prefix.ToString() + " " + (attrs ? attrs->ToString() : "-"));
    }
    return d;
  }
  Digest Rib() const {
    Digest d;
    for (const auto& [prefix, c] : rib_->routes) {
      d.Add(prefix.ToString() + (c.ibgp ? " ibgp " : " ebgp ") + c.nexthop.ToString() + " med " +
            std::to_string(c.med));
    }
    return d;
  }

  boost::asio::io_context& io() { return io_; }
  AttributeStore& store() { return store_; }
  BgpRouting& routing() { return *routing_; }
  FakeRib& rib() { return *rib_; }

 private:
  boost::asio::io_context io_;
  AttributeStore store_;
  std::unique_ptr<FakeRib> rib_;
  std::unique_ptr<BgpRouting> routing_;
  std::map<net::IPAddress, std::unique_ptr<Peer>> peers_;
};

// Everything a user could compare between two routers fed the same input.
struct RouterDigest {
  std::map<std::string, Digest> parts;  // "loc-rib v4", "adj-rib-out 192.0.2.9 v6", ...
  std::map<std::string, size_t> updates_sent;
  std::map<std::string, std::string> first_error;  // by part name ("errors ADDRESS", "rib errors")

  static RouterDigest Of(ShardRouter& r) {
    RouterDigest d;
    for (net::Family f : {net::Family::kIPv4, net::Family::kIPv6}) {
      const std::string fam = f == net::Family::kIPv4 ? " v4" : " v6";
      d.parts["loc-rib" + fam] = r.LocRib(f);
      for (const auto& [address, p] : r.peers()) {
        const std::string who = " " + address.ToString() + fam;
        d.parts["adj-rib-in" + who] = r.AdjRibIn(*p, f);
        d.parts["adj-rib-out" + who] = r.AdjRibOut(*p, f);
      }
    }
    for (const auto& [address, p] : r.peers()) {
      d.parts["held " + address.ToString()] = ShardRouter::Held(*p);
      d.updates_sent[address.ToString()] = p->session->updates;
      if (!p->session->errors.empty()) {
        d.parts["errors " + address.ToString()].Add(p->session->errors.front());
        d.first_error["errors " + address.ToString()] = p->session->errors.front();
      }
    }
    d.parts["rib"] = r.Rib();
    if (!r.rib().errors.empty()) {
      d.parts["rib errors"].Add(r.rib().errors.front());
      d.first_error["rib errors"] = r.rib().errors.front();
    }
    return d;
  }
};

// Expects `got` (threads > 1) to equal `want` (the serial pipeline) part by part.
inline void ExpectSameRouting(const RouterDigest& want, const RouterDigest& got,
                              const std::string& what) {
  for (const auto& [name, d] : got.parts) {
    auto error = got.first_error.find(name);
    EXPECT_TRUE(want.parts.contains(name))
        << what << ": " << name << " only with threads: " << d.ToString()
        << (error != got.first_error.end() ? " (" + error->second + ")" : "");
  }
  ASSERT_EQ(want.parts.size(), got.parts.size()) << what;
  for (const auto& [name, d] : want.parts) {
    auto it = got.parts.find(name);
    ASSERT_NE(it, got.parts.end()) << what << ": " << name;
    EXPECT_EQ(d, it->second) << what << ": " << name << " serial " << d.ToString() << " vs "
                             << it->second.ToString();
  }
}

}  // namespace sluice::bgp::testing
