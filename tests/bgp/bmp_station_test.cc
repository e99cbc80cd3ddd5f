// A BMP station's connection (bgp/bmp/station.h) against a local acceptor: a snapshot goes
// before the live messages that arrived during it; a station that stops reading is dropped
// once its buffer is full, and is connected again (a new generation, to be re-synchronised).
// The monitor and the exporter feeding it keep the order of what they send.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "bgp/bmp/exporter.h"
#include "bgp/bmp/rib_monitor.h"
#include "bgp/bmp/station.h"
#include "bgp/wire/attribute_store.h"

namespace sluice::bgp::bmp {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

std::span<const uint8_t> S(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Hands `batch` to `monitor` as a stage does: the monitor may take it, so each call gets a copy.
void Tell(RibMonitor& monitor, MonitoredRib rib, RouteChanges batch) {
  monitor.OnRouteChanges(rib, batch);
}

class StationTest : public ::testing::Test {
 protected:
  StationTest()
      : acceptor_(accept_io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)),
        work_(asio::make_work_guard(io_)),
        thread_([this] { io_.run(); }) {}
  ~StationTest() override {
    if (station_) station_->Finish({}, 0.1);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    work_.reset();
    io_.stop();
    thread_.join();
  }

  std::shared_ptr<Station> MakeStation(size_t buffer_bytes) {
    StationConfig c;
    c.address = *net::IPAddress::Parse("127.0.0.1");
    c.port = acceptor_.local_endpoint().port();
    c.buffer_bytes = buffer_bytes;
    c.initial_backoff_s = 0.05;
    c.max_backoff_s = 0.05;
    station_ = std::make_shared<Station>(io_, c, [this](uint64_t g) {
      std::lock_guard lock(mu_);
      generations_.push_back(g);
    });
    return station_;
  }

  // A station of 1 MiB connected to `peer` (accepted here), its snapshot ended: live.
  std::shared_ptr<Station> SyncedStation(tcp::socket* peer) {
    auto station = MakeStation(1 << 20);
    station->Start();
    acceptor_.accept(*peer);
    station->EndSync(WaitConnected(1));
    return station;
  }

  // Waits up to 10 s for the station to have connected `n` times; its last generation.
  uint64_t WaitConnected(size_t n) {
    for (int i = 0; i < 1000; ++i) {
      {
        std::lock_guard lock(mu_);
        if (generations_.size() >= n) return generations_[n - 1];
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "the station did not connect " << n << " times";
    return 0;
  }

  asio::io_context accept_io_;
  tcp::acceptor acceptor_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;
  std::shared_ptr<Station> station_;
  std::mutex mu_;
  std::vector<uint64_t> generations_;
};

TEST_F(StationTest, SnapshotGoesBeforeLiveMessagesHeldDuringIt) {
  auto station = MakeStation(1 << 20);
  EXPECT_FALSE(station->Append(S("dropped;")));  // not connected yet: nothing queued
  station->Start();
  tcp::socket peer(accept_io_);
  acceptor_.accept(peer);
  uint64_t g = WaitConnected(1);
  EXPECT_TRUE(station->Append(S("live;")));
  EXPECT_TRUE(station->AppendSync(g, S("snapshot;")));
  EXPECT_FALSE(station->AppendSync(g + 1, S("other;")));  // not this connection's
  station->EndSync(g);
  std::string want = "snapshot;live;";
  std::string got(want.size(), '\0');
  asio::read(peer, asio::buffer(got));
  EXPECT_EQ(got, want);
  EXPECT_TRUE(station->stats().synced);
}

TEST_F(StationTest, LiveMessagesHeldDuringASnapshotDoNotHoldTheSnapshotBack) {
  // The exporter paces a snapshot on unsent_bytes(): were held messages counted, a snapshot
  // during which more than half the buffer of live messages arrived would wait for ever (they
  // leave only after it).
  auto station = MakeStation(1000);
  station->Start();
  tcp::socket peer(accept_io_);
  acceptor_.accept(peer);
  uint64_t g = WaitConnected(1);
  const std::string live(700, 'l');
  EXPECT_TRUE(station->Append(S(live)));
  EXPECT_EQ(station->queued_bytes(), 700u);
  EXPECT_EQ(station->unsent_bytes(), 0u);
  EXPECT_TRUE(station->AppendSync(g, S("snapshot;")));
  EXPECT_LE(station->unsent_bytes(), 9u);
  station->EndSync(g);
  std::string got(9 + 700, '\0');
  asio::read(peer, asio::buffer(got));
  EXPECT_EQ(got, "snapshot;" + live);
}

TEST_F(StationTest, AStationThatStopsReadingIsDroppedAndReconnected) {
  constexpr size_t kBuffer = 256 << 10;
  auto station = MakeStation(kBuffer);
  station->Start();
  tcp::socket stalled(accept_io_);
  acceptor_.accept(stalled);  // never read from
  uint64_t g = WaitConnected(1);
  station->EndSync(g);
  std::string chunk(1024, 'x');
  size_t appended = 0;
  bool dropped = false;
  // The socket buffers take a few MiB; past them the station's own buffer fills.
  for (int i = 0; i < 64 * 1024 && !dropped; ++i) {
    if (station->Append(S(chunk))) {
      appended += chunk.size();
      EXPECT_LE(station->queued_bytes(), kBuffer);
    } else {
      dropped = true;
    }
    if (i % 256 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(dropped) << "appended " << appended << " octets without overflowing";
  EXPECT_EQ(station->stats().overflows, 1u);
  EXPECT_EQ(station->queued_bytes(), 0u);  // the buffer was dropped
  // Connected again: a new generation, which must be re-synchronised.
  tcp::socket second(accept_io_);
  acceptor_.accept(second);
  uint64_t g2 = WaitConnected(2);
  EXPECT_GT(g2, g);
  EXPECT_FALSE(station->AppendSync(g, S("stale;")));
  EXPECT_TRUE(station->AppendSync(g2, S("fresh;")));
  station->EndSync(g2);
  std::string got(6, '\0');
  asio::read(second, asio::buffer(got));
  EXPECT_EQ(got, "fresh;");
}

// A batch of Loc-RIB changes reaches a synchronised station as Route Monitoring messages of peer
// type 3 (RFC 9069) with our AS and BGP Identifier, in order: one UPDATE for the three prefixes
// announced with one attribute set, then one withdrawing the last of them again.
TEST_F(StationTest, LocRibChangesReachTheStationAsPeerTypeThree) {
  tcp::socket peer(accept_io_);
  auto station = SyncedStation(&peer);
  auto set = std::make_shared<StationSet>();
  set->Add(station);
  RibMonitor monitor(set);
  monitor.SetIdentity(65001, 0x0a000001);
  AttributeStore store;
  PathAttributes attrs;
  attrs.origin = Origin::kIgp;
  attrs.as_path = AsPath::Sequence({65002});
  attrs.next_hop = *net::IPv4Address::Parse("192.0.2.2");
  auto route = [&](const char* prefix) {
    BgpRoute r;
    r.net = *net::Prefix::Parse(prefix);
    r.attrs = store.Intern(attrs);
    return r;
  };
  ASSERT_TRUE(monitor.Wants(MonitoredRib::kLocRib));
  RouteChanges batch;
  batch.Add(route("198.51.100.0/24"), false);
  batch.Add(route("203.0.113.0/24"), false);
  batch.Add(route("192.0.2.0/24"), false);
  batch.Add(route("192.0.2.0/24"), true);
  Tell(monitor, MonitoredRib::kLocRib, batch);
  monitor.OnPushDone();  // as the stage does: the monitor keeps nothing past it
  std::vector<std::vector<uint8_t>> updates;
  for (int n = 0; n < 2; ++n) {
    uint8_t head[6];
    asio::read(peer, asio::buffer(head));
    EXPECT_EQ(head[0], 3);  // version
    EXPECT_EQ(head[5], 0);  // Route Monitoring
    uint32_t length = (uint32_t{head[1]} << 24) | (head[2] << 16) | (head[3] << 8) | head[4];
    ASSERT_GT(length, 6u + 42 + 19);
    std::vector<uint8_t> rest(length - 6);
    asio::read(peer, asio::buffer(rest));
    EXPECT_EQ(rest[0], 3);  // peer type Loc-RIB
    EXPECT_EQ(rest[1], 0);  // flags: not filtered
    EXPECT_EQ(std::vector<uint8_t>(rest.begin() + 26, rest.begin() + 34),
              (std::vector<uint8_t>{0, 0, 0xfd, 0xe9, 10, 0, 0, 1}));  // AS 65001, BGP ID
    EXPECT_EQ(rest[42 + 18], 2);                                       // an UPDATE
    updates.emplace_back(rest.begin() + 42, rest.end());
  }
  auto holds = [](const std::vector<uint8_t>& update, std::vector<uint8_t> nlri) {
    return std::search(update.begin(), update.end(), nlri.begin(), nlri.end()) != update.end();
  };
  EXPECT_TRUE(holds(updates[0], {24, 198, 51, 100, 24, 203, 0, 113, 24, 192, 0, 2}));
  // Then the withdrawal: Withdrawn Routes Length 4, then 24, 192, 0, 2.
  EXPECT_TRUE(holds(updates[1], {0, 4, 24, 192, 0, 2})) << "the second is not the withdrawal";
}

// What `peer` receives up to and including the marker "end".
std::vector<uint8_t> ReadUntilEnd(tcp::socket& peer) {
  std::vector<uint8_t> all;
  std::vector<uint8_t> chunk(4096);
  while (all.size() < 3 || std::string(all.end() - 3, all.end()) != "end") {
    size_t n = peer.read_some(asio::buffer(chunk));
    all.insert(all.end(), chunk.begin(), chunk.begin() + n);
  }
  return all;
}

// Post-policy changes go only to stations that monitor them, with the peer's header and the L
// flag, and only while the peer is up.
TEST_F(StationTest, PostPolicyChangesCarryTheLFlagWhileThePeerIsUp) {
  tcp::socket peer(accept_io_);
  auto station = SyncedStation(&peer);
  auto set = std::make_shared<StationSet>();
  set->Add(station);
  RibMonitor monitor(set);
  PeerSourceRegistry sources;
  PeerSource src;
  src.peer_id = 1;
  src.address = *net::IPAddress::Parse("192.0.2.9");
  AttributeStore store;
  PathAttributes attrs;
  attrs.as_path = AsPath::Sequence({65009});
  attrs.next_hop = *net::IPv4Address::Parse("192.0.2.9");
  BgpRoute r;
  r.net = *net::Prefix::Parse("198.51.100.0/24");
  r.attrs = store.Intern(attrs);
  r.source = sources.Intern(src);
  RouteChanges batch;
  batch.Add(r, false);
  Tell(monitor, MonitoredRib::kAdjRibInPost, batch);  // not up: nothing sent
  PeerHeader h;
  h.address = src.address;
  h.as = 65009;
  h.bgp_id = 0xc0000209;
  monitor.PeerUp(src.address, h, SessionParams());
  Tell(monitor, MonitoredRib::kAdjRibInPost, batch);
  monitor.PeerDown(src.address);
  Tell(monitor, MonitoredRib::kAdjRibInPost, batch);  // down: nothing sent
  monitor.OnPushDone();
  station->Append(S("end"));
  std::vector<uint8_t> all = ReadUntilEnd(peer);
  ASSERT_GT(all.size(), 6u + 42);
  const uint32_t length = (uint32_t{all[1]} << 24) | (all[2] << 16) | (all[3] << 8) | all[4];
  EXPECT_EQ(all.size(), length + 3) << "exactly one Route Monitoring message, then the marker";
  EXPECT_EQ(all[6], 0);                 // peer type global
  EXPECT_EQ(all[7], kFlagL);            // post-policy, IPv4, 4-octet AS
  EXPECT_EQ(all[6 + 2 + 8 + 12], 192);  // the peer's address

  // A station that monitors only the Loc-RIB is not asked for post-policy changes.
  set->Remove(station);
  StationConfig loc_only = station->config();
  loc_only.route_monitoring = kMonitorLocRib;
  set->Add(std::make_shared<Station>(io_, loc_only, [](uint64_t) {}));
  EXPECT_FALSE(monitor.Wants(MonitoredRib::kAdjRibInPost));
  EXPECT_TRUE(monitor.Wants(MonitoredRib::kLocRib));
}

// The UPDATEs of the Route Monitoring messages `peer` receives until the marker "end".
std::vector<std::vector<uint8_t>> ReadUpdatesUntilEnd(tcp::socket& peer) {
  std::vector<uint8_t> all = ReadUntilEnd(peer);
  std::vector<std::vector<uint8_t>> updates;
  for (size_t at = 0; at + 6 + 42 < all.size();) {
    const uint32_t length =
        (uint32_t{all[at + 1]} << 24) | (all[at + 2] << 16) | (all[at + 3] << 8) | all[at + 4];
    updates.emplace_back(all.begin() + at + 6 + 42, all.begin() + at + length);
    at += length;
  }
  return updates;
}

// A Loc-RIB batch that repeats the post-policy batch of the same push (every route won) is sent
// as the Loc-RIB's encoder makes it: the post-policy UPDATEs serve only when they are the same
// octets (here the peer speaks 2-octet AS numbers, the Loc-RIB 4-octet ones).
TEST_F(StationTest, ALocRibBatchRepeatingAPostPolicyBatchIsEncodedForTheLocRib) {
  tcp::socket peer(accept_io_);
  auto station = SyncedStation(&peer);
  auto set = std::make_shared<StationSet>();
  set->Add(station);
  RibMonitor monitor(set);
  monitor.SetIdentity(65001, 0x0a000001);
  PeerSourceRegistry sources;
  PeerSource src;
  src.peer_id = 1;
  src.address = *net::IPAddress::Parse("192.0.2.9");
  AttributeStore store;
  PathAttributes attrs;
  attrs.as_path = AsPath::Sequence({4200000001u});
  attrs.next_hop = *net::IPv4Address::Parse("192.0.2.9");
  BgpRoute r;
  r.net = *net::Prefix::Parse("198.51.100.0/24");
  r.attrs = store.Intern(attrs);
  r.source = sources.Intern(src);
  RouteChanges batch;
  batch.Add(r, false);
  PeerHeader h;
  h.address = src.address;
  for (bool four_octet : {false, true}) {
    SessionParams params;
    params.four_octet_as = four_octet;
    monitor.PeerUp(src.address, h, params);
    Tell(monitor, MonitoredRib::kAdjRibInPost, batch);
    Tell(monitor, MonitoredRib::kLocRib, batch);
    monitor.OnPushDone();
    station->Append(S("end"));
    std::vector<std::vector<uint8_t>> got = ReadUpdatesUntilEnd(peer);
    ASSERT_EQ(got.size(), 2u);
    const std::vector<Nlri> nlri = {Nlri{r.net}};
    std::vector<uint8_t> post, loc;
    ASSERT_TRUE(UpdateEncoder(params, false).Announce(attrs, nlri, &post).ok());
    ASSERT_TRUE(UpdateEncoder(LocRibParams(), false).Announce(attrs, nlri, &loc).ok());
    EXPECT_EQ(got[0], post) << "post-policy, four_octet_as " << four_octet;
    EXPECT_EQ(got[1], loc) << "Loc-RIB, four_octet_as " << four_octet;
    EXPECT_EQ(post == loc, four_octet);
  }
}

// A RouteSource without routes: a re-synchronisation sends Peer Ups and nothing else.
class NoRoutes : public RouteSource {
 public:
  void ReadRoutesAsync(const RouteQuery&,
                       std::function<void(absl::StatusOr<std::vector<BgpRoute>>)> done) override {
    done(std::vector<BgpRoute>{});
  }
  uint64_t AdjRibInRoutes(const net::IPAddress&) override { return 0; }
  std::pair<uint32_t, uint32_t> LocalIdentity() override { return {65000, 0x0a000001}; }
};

// The type (RFC 7854 §4.1) of each BMP message read until one of type `last`.
std::vector<int> ReadTypesUntil(tcp::socket& peer, int last) {
  std::vector<int> types;
  while (types.empty() || types.back() != last) {
    uint8_t head[6];
    asio::read(peer, asio::buffer(head));
    uint32_t length = (uint32_t{head[1]} << 24) | (head[2] << 16) | (head[3] << 8) | head[4];
    std::vector<uint8_t> rest(length - 6);
    asio::read(peer, asio::buffer(rest));
    types.push_back(head[5]);
  }
  return types;
}

// The exporter gathers the pre-policy messages of a turn of its loop (one read of a session)
// and copies them to the stations together; a message that follows them — here the session's
// Peer Down, in the same turn — still reaches the station after them.
TEST_F(StationTest, PrePolicyMessagesGatheredOverATurnGoBeforeAPeerDownOfTheSameTurn) {
  asio::io_context loop;
  NoRoutes routes;
  ExporterOptions options;
  options.stats_interval_s = 0;
  BmpExporter exporter(loop, &routes, options);
  StationConfig c;
  c.address = *net::IPAddress::Parse("127.0.0.1");
  c.port = acceptor_.local_endpoint().port();
  ASSERT_TRUE(exporter.AddStation(c).ok());
  tcp::socket station(accept_io_);
  acceptor_.accept(station);
  bool synced = false;
  for (int i = 0; i < 1000 && !synced; ++i) {  // the loop has work only once it connected
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    loop.restart();
    loop.poll();
    synced = exporter.Stations().front().second.synced;
  }
  ASSERT_TRUE(synced);

  TapPeer tp;
  tp.remote_address = *net::IPAddress::Parse("192.0.2.9");
  tp.local_address = *net::IPAddress::Parse("192.0.2.1");
  tp.remote_as = 65009;
  tp.remote_bgp_id = *net::IPv4Address::Parse("192.0.2.9");
  std::vector<uint8_t> update(23, 0);  // an empty UPDATE: header, no routes, no attributes
  std::fill(update.begin(), update.begin() + 16, 0xff);
  update[17] = 23;  // length
  update[18] = 2;   // type
  asio::post(loop, [&] {
    exporter.OnPeerUp(tp, EstablishedInfo(), {}, {});
    exporter.OnMessageReceived(tp, update);
    exporter.OnMessageReceived(tp, update);
    exporter.OnPeerDown(tp, TapDownReason::kRemoteNoNotification, {});
  });
  loop.restart();
  loop.poll();  // the handler, then the pre-policy flush it posted
  std::vector<int> types = ReadTypesUntil(station, /*Peer Down*/ 2);
  auto up = std::find(types.rbegin(), types.rend(), /*Peer Up*/ 3).base() - 1;
  EXPECT_EQ(std::vector<int>(up, types.end()), (std::vector<int>{3, 0, 0, 2}));
}

}  // namespace
}  // namespace sluice::bgp::bmp
