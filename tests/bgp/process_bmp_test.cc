// BMP from a BgpProcess to a station the test runs (bgp/process/bmp_service.h): A (AS 65001,
// 127.0.0.1) originates six routes to B (AS 65002), whose import policy rejects two and sets
// LOCAL_PREF 200 on two. B's station sees the six pre-policy, the four post-policy routes with the
// L flag and the policy's LOCAL_PREF, and the Loc-RIB (RFC 9069); a station that monitors only
// post-policy gets nothing else, also after it reconnects and is re-synchronised. With one
// pipeline and with two shards (the monitor is then called from the shards' threads).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "absl/strings/str_format.h"
#include "bgp/bmp/bmp_message.h"
#include "bgp/process/bgp_process.h"
#include "bgp/process/bmp_service.h"
#include "bgp/process/policy_service.h"
#include "bgp/wire/update_decoder.h"
#include "tests/bgp/session_test_util.h"

namespace sluice::bgp::process {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using testing::Addr;

constexpr uint32_t kAsA = 65001, kAsB = 65002;

net::Prefix P(const std::string& text) { return *net::Prefix::Parse(text); }

constexpr const char* kImportPolicy = R"(prefix-list bogons { 10.0.0.0/8 orlonger; }
prefix-list customers { 198.51.0.0/16 orlonger; }
policy-statement upstream-in {
    term no-bogons { from { prefix-list bogons; } then { reject; } }
    term customers { from { prefix-list customers; } then { local-pref 200; accept; } }
    term rest { then { accept; } }
}
)";
const char* const kPrefixes[] = {"10.1.0.0/16",   "10.2.0.0/24",    "198.51.100.0/24",
                                 "198.51.7.0/24", "203.0.113.0/24", "192.0.2.0/24"};

// What a station received since its last Initiation: per RIB (pre-policy, post-policy, Loc-RIB),
// prefix -> LOCAL_PREF (0 when absent), and the peer address of the Adj-RIB-In messages.
struct Received {
  std::map<std::string, std::map<net::Prefix, uint32_t>> ribs;
  std::set<std::string> adj_rib_in_peers;
  int initiations = 0;
};

// A BMP station: accepts one connection at a time on 127.0.0.1 and decodes what comes.
class TestStation {
 public:
  TestStation() : acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    thread_ = std::thread([this] { Serve(); });
  }
  ~TestStation() {
    stop_ = true;
    Disconnect();
    boost::system::error_code ec;
    acceptor_.close(ec);
    thread_.join();
  }
  uint16_t port() const { return acceptor_.local_endpoint().port(); }
  Received received() const {
    std::lock_guard lock(mu_);
    return received_;
  }
  // Closes the current connection (a collector restart): the router connects again.
  void Disconnect() {
    std::lock_guard lock(mu_);
    boost::system::error_code ec;
    if (socket_) socket_->shutdown(tcp::socket::shutdown_both, ec);
  }

 private:
  void Serve() {
    while (!stop_) {
      auto s = std::make_shared<tcp::socket>(io_);
      boost::system::error_code ec;
      acceptor_.accept(*s, ec);
      if (ec) return;
      {
        std::lock_guard lock(mu_);
        socket_ = s;
      }
      ReadMessages(*s);
    }
  }
  void ReadMessages(tcp::socket& s) {
    boost::system::error_code ec;
    while (true) {
      uint8_t head[6];
      asio::read(s, asio::buffer(head), ec);
      if (ec) return;
      const uint32_t length =
          (uint32_t{head[1]} << 24) | (head[2] << 16) | (head[3] << 8) | head[4];
      if (length < 6) return;
      std::vector<uint8_t> body(length - 6);
      asio::read(s, asio::buffer(body), ec);
      if (ec) return;
      std::lock_guard lock(mu_);
      if (head[5] == 4) {  // Initiation: a new session starts from scratch
        received_.ribs.clear();
        received_.adj_rib_in_peers.clear();
        ++received_.initiations;
      } else if (head[5] == 0 && body.size() > 42) {
        RouteMonitoring(body);
      }
    }
  }
  void RouteMonitoring(const std::vector<uint8_t>& body) {
    const uint8_t type = body[0], flags = body[1];
    const std::string rib = type == 3 ? "loc-rib" : (flags & bmp::kFlagL) ? "post" : "pre";
    if (type != 3) {
      received_.adj_rib_in_peers.insert(
          absl::StrFormat("%d.%d.%d.%d", body[22], body[23], body[24], body[25]));
    }
    SessionParams params;
    params.mrt = true;
    UpdateDecoder decoder(params, &store_);
    UpdateMessage update;
    decoder.Decode(Bytes(body.data() + 42, body.size() - 42), &update);
    auto& routes = received_.ribs[rib];
    for (const Nlri& n : update.withdrawn) routes.erase(n.prefix);
    for (const Nlri& n : update.announced) {
      routes[n.prefix] = update.attributes ? update.attributes->local_pref.value_or(0) : 0;
    }
  }

  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::shared_ptr<tcp::socket> socket_;
  Received received_;
  AttributeStore store_;
};

class ProcessBmpTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    BgpProcessOptions options;
    options.threads = GetParam();
    a_ = std::make_unique<BgpProcess>(io_, BgpProcessOptions());
    b_ = std::make_unique<BgpProcess>(io_, options);
    policy_b_ = std::make_unique<BgpPolicyBackend>(b_.get(), nullptr);
    bmp::ExporterOptions o;
    o.stats_interval_s = 0;
    bmp_ = std::make_unique<BmpControl>(io_, b_.get(), o);
  }
  void TearDown() override {
    bmp_.reset();
    policy_b_.reset();
    a_.reset();
    b_.reset();
  }

  void AddStation(uint16_t port, uint8_t route_monitoring) {
    bmp::StationConfig c;
    c.address = Addr("127.0.0.1");
    c.port = port;
    c.route_monitoring = route_monitoring;
    c.initial_backoff_s = 0.1;
    c.max_backoff_s = 0.1;
    ASSERT_TRUE(bmp_->exporter().AddStation(c).ok());
  }

  // B's import policy, then A (listening on 127.0.0.1) and B (from 127.0.0.2) peer; A originates
  // the six prefixes.
  void ConnectAndOriginate() {
    policy::FilterRequest r;
    r.source = kImportPolicy;
    r.policies = {"upstream-in"};
    r.start.file = "test.conf";
    ASSERT_TRUE(policy_b_->Configure("import:127.0.0.1", r).ok());
    ASSERT_TRUE(a_->SetLocalAs(kAsA).ok());
    ASSERT_TRUE(a_->SetBgpId(net::IPv4Address(0x0a000001)).ok());
    ASSERT_TRUE(b_->SetLocalAs(kAsB).ok());
    ASSERT_TRUE(b_->SetBgpId(net::IPv4Address(0x0a000002)).ok());
    absl::StatusOr<uint16_t> port = a_->Listen(Addr("127.0.0.1"), 0);
    ASSERT_TRUE(port.ok()) << port.status();
    RoutingPeerConfig open;
    open.ebgp_requires_policy = false;
    PeerConfig to_b;
    to_b.address = Addr("127.0.0.2");
    to_b.remote_as = kAsB;
    to_b.passive = true;
    ASSERT_TRUE(a_->AddPeer(to_b, open).ok());
    PeerConfig to_a;
    to_a.address = Addr("127.0.0.1");
    to_a.port = *port;
    to_a.remote_as = kAsA;
    to_a.local_address = Addr("127.0.0.2");
    to_a.connect_retry_s = 1;
    to_a.idle_hold_s = 0.2;
    ASSERT_TRUE(b_->AddPeer(to_a, open).ok());
    PathAttributes attrs;
    attrs.next_hop = *net::IPv4Address::Parse("192.0.2.1");
    for (const char* p : kPrefixes) ASSERT_TRUE(a_->Originate(P(p), attrs).ok());
  }
  bool Run(const std::function<bool()>& condition, double seconds = 10) {
    return testing::RunUntil(io_, condition, seconds);
  }

  boost::asio::io_context io_;
  std::unique_ptr<BgpProcess> a_, b_;
  std::unique_ptr<BgpPolicyBackend> policy_b_;
  std::unique_ptr<BmpControl> bmp_;
};

const std::map<net::Prefix, uint32_t> kPostPolicy = {{P("198.51.100.0/24"), 200},
                                                     {P("198.51.7.0/24"), 200},
                                                     {P("203.0.113.0/24"), 0},
                                                     {P("192.0.2.0/24"), 0}};

// How many of this process's threads are called `name` (/proc/self/task/*/comm).
int ThreadsNamed(const std::string& name) {
  int n = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string got;
    std::getline(comm, got);
    n += got == name;
  }
  return n;
}

// top -H, perf and the benchmarks tell the stations' thread from the event loop by its name,
// which it takes when it starts.
TEST_P(ProcessBmpTest, TheStationsThreadIsNamed) {
  for (int i = 0; i < 500 && ThreadsNamed("bgp-bmp") == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(ThreadsNamed("bgp-bmp"), 1);
}

TEST_P(ProcessBmpTest, PostPolicyRoutesCarryTheImportPolicysResult) {
  TestStation station;
  AddStation(station.port(), bmp::kMonitorAll);
  ConnectAndOriginate();
  auto post_policy_in = [&] {
    Received r = station.received();
    return r.ribs["pre"].size() == 6 && r.ribs["post"] == kPostPolicy &&
           r.ribs["loc-rib"].size() == 4;
  };
  ASSERT_TRUE(Run(post_policy_in)) << "pre " << station.received().ribs["pre"].size() << ", post "
                                   << station.received().ribs["post"].size() << ", Loc-RIB "
                                   << station.received().ribs["loc-rib"].size();
  Received r = station.received();
  EXPECT_EQ(r.adj_rib_in_peers, std::set<std::string>{"127.0.0.1"});
  EXPECT_EQ(r.ribs["loc-rib"], kPostPolicy);
  // A withdrawal reaches every view.
  ASSERT_TRUE(a_->WithdrawOriginated(P("198.51.7.0/24")).ok());
  ASSERT_TRUE(Run([&] {
    Received now = station.received();
    return now.ribs["post"].size() == 3 && now.ribs["loc-rib"].size() == 3 &&
           now.ribs["pre"].size() == 5;
  }));
}

TEST_P(ProcessBmpTest, AStationGetsOnlyWhatItMonitorsAlsoAfterItReconnects) {
  TestStation station;
  AddStation(station.port(), bmp::kMonitorPostPolicy);
  ConnectAndOriginate();
  ASSERT_TRUE(Run([&] { return station.received().ribs["post"] == kPostPolicy; }))
      << "post " << station.received().ribs["post"].size();
  EXPECT_EQ(station.received().ribs.size(), 1u);  // no pre-policy, no Loc-RIB
  EXPECT_EQ(station.received().initiations, 1);
  // The collector restarts: the new session is re-synchronised from the post-policy view.
  station.Disconnect();
  ASSERT_TRUE(Run([&] {
    Received r = station.received();
    return r.initiations == 2 && r.ribs["post"] == kPostPolicy;
  })) << "initiations "
      << station.received().initiations;
  EXPECT_EQ(station.received().ribs.size(), 1u);
  ASSERT_TRUE(a_->WithdrawOriginated(P("203.0.113.0/24")).ok());
  ASSERT_TRUE(Run([&] { return station.received().ribs["post"].size() == 3; }));
}

INSTANTIATE_TEST_SUITE_P(Shards, ProcessBmpTest, ::testing::Values(1, 2));

}  // namespace
}  // namespace sluice::bgp::process
