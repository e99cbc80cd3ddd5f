// sluice-replay's parts: the synthetic table, the attribute rewriting and packing of the feed
// encoder, and two replay sessions talking BGP to each other over loopback TCP (one sends a
// table, the other receives it and counts the prefixes and the End-of-RIB).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "bgp/replay/asio.h"
#include "bgp/replay/feed_encoder.h"
#include "bgp/replay/held_routes.h"
#include "bgp/replay/replay_feed.h"
#include "bgp/replay/replay_session.h"
#include "bgp/wire/update_decoder.h"
#include "tests/interop/interop_util.h"

namespace sluice::bgp::replay {
namespace {

namespace asio = boost::asio;

// Encodes `routes` as a session's table (with End-of-RIB when `end_of_rib`) and its withdrawals.
ReplaySession::Encoder EncoderFor(AttributeStore* store, const std::vector<Route>* routes,
                                  RewriteOptions rw, bool end_of_rib = true) {
  return [routes, rw, store, end_of_rib](const SessionParams& p, EncodedStream* table,
                                         EncodedStream* wd) {
    FeedEncoder e(p, rw, store);
    e.EncodeTable(*routes, table);
    if (end_of_rib) e.EncodeEndOfRib(table);
    e.EncodeWithdrawAll(*routes, wd);
  };
}

// The listening side (AS 65001) of two replay sessions on loopback, kept until the peer closes.
SessionOptions ReceiverOptions(const std::string& name) {
  SessionOptions o;
  o.name = name;
  o.local_as = 65001;
  o.router_id = net::IPv4Address(0x0a000001);
  o.families.Add(kIPv4Unicast);
  o.linger = -1;
  return o;
}

// The connecting side (AS 65002) towards `remote`.
SessionOptions SenderOptions(const SessionOptions& receiver, const std::string& name,
                             const asio::ip::tcp::endpoint& remote) {
  SessionOptions o = receiver;
  o.name = name;
  o.remote = remote;
  o.local_as = 65002;
  o.router_id = net::IPv4Address(0x0a000002);
  o.track_held = false;
  return o;
}

// The sender's rewriting: its own AS prepended, nexthop 127.0.0.1.
RewriteOptions SenderRewrite() {
  RewriteOptions rw;
  rw.local_as = 65002;
  rw.prepend_own_as = true;
  rw.next_hop4 = net::IPv4Address(0x7f000001);
  return rw;
}

// A free loopback endpoint for the receiver to listen on.
asio::ip::tcp::endpoint FreeEndpoint() {
  const int port = sluice::testing::FreeTcpPort();
  EXPECT_GT(port, 0);
  return asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), uint16_t(port));
}

// The receiver accepts on `endpoint`, the sender connects; runs `io` until both sessions are
// done (`on_each_done` runs as each ends), or 60 s have passed (both stopped: "timeout").
void RunPair(asio::io_context& io, const asio::ip::tcp::endpoint& endpoint, ReplaySession& receiver,
             ReplaySession& sender, std::function<void()> on_each_done = nullptr) {
  asio::ip::tcp::acceptor acceptor(io, endpoint);
  acceptor.async_accept([&](const boost::system::error_code& ec, asio::ip::tcp::socket s) {
    ASSERT_FALSE(ec);
    receiver.Accept(std::move(s));
  });
  sender.Connect();
  asio::steady_timer guard(io, std::chrono::seconds(60));
  guard.async_wait([&](const boost::system::error_code& ec) {
    if (!ec) {
      sender.Stop("timeout");
      receiver.Stop("timeout");
    }
  });
  int done = 0;
  sender.on_done = receiver.on_done = [&](ReplaySession*) {
    if (++done == 2) guard.cancel();
    if (on_each_done) on_each_done();
  };
  io.run();
}

TEST(SyntheticTableTest, LooksLikeAnInternetTable) {
  AttributeStore store;
  PeerFeed feed = SyntheticTable(70000, 7, &store);
  ASSERT_EQ(feed.table.size(), 70000u);
  std::map<int, int> lengths;
  double path_length = 0;
  for (const Route& r : feed.table) {
    ++lengths[r.nlri.prefix.length()];
    path_length += r.attributes->AsPathLength();
  }
  EXPECT_NEAR(lengths[24] / 70000.0, 0.55, 0.03);
  EXPECT_NEAR(lengths[22] / 70000.0, 0.10, 0.02);
  EXPECT_GT(lengths[16], 0);
  EXPECT_NEAR(path_length / 70000, 4.0, 0.6);
  EXPECT_NEAR(double(store.size()), 10000, 500);  // about one set per 7 routes
  // Deterministic.
  PeerFeed again = SyntheticTable(70000, 7, &store);
  EXPECT_EQ(again.table[123].nlri, feed.table[123].nlri);
}

TEST(FeedEncoderTest, RewritesForAnEbgpPeerAndPacksByAttributeSet) {
  AttributeStore store;
  PathAttributes a;
  a.origin = Origin::kIgp;
  a.as_path = AsPath::Sequence({2914, 15169});
  a.next_hop = net::IPv4Address(0x0a000001);
  a.local_pref = 100;
  a.originator_id = net::IPv4Address(1);
  a.cluster_list = {2};
  std::vector<Route> table;
  for (uint32_t i = 0; i < 2000; ++i) {
    table.push_back(
        Route{Nlri{net::Prefix(net::IPv4Address(0x0b000000 + (i << 8)), 24)}, store.Intern(a)});
  }
  RewriteOptions rw;
  rw.local_as = 65099;
  rw.external = true;
  rw.prepend_own_as = true;
  rw.next_hop4 = net::IPv4Address(0x7f000003);
  SessionParams params;
  FeedEncoder encoder(params, rw, &store);
  EncodedStream stream;
  encoder.EncodeTable(table, &stream);
  encoder.EncodeEndOfRib(&stream);
  EXPECT_EQ(stream.prefixes(), 2000u);
  EXPECT_EQ(stream.skipped, 0u);
  EXPECT_LE(stream.messages, 4u);  // 2000 × 4 octets in 4096-octet UPDATEs, plus End-of-RIB

  UpdateDecoder decoder(params, &store);
  UpdateMessage u;
  size_t at = 0, announced = 0;
  bool eor = false;
  while (at < stream.bytes.size()) {
    const size_t len = LoadU16(stream.bytes.data() + at + 16);
    decoder.Decode(Bytes(stream.bytes.data() + at, len), &u);
    ASSERT_TRUE(u.errors.ok()) << u.errors.reason;
    announced += u.announced.size();
    if (u.end_of_rib) eor = true;
    if (u.attributes) {
      EXPECT_EQ(u.attributes->as_path->ToString(), "65099 2914 15169");
      EXPECT_EQ(u.attributes->next_hop->ToString(), "127.0.0.3");
      EXPECT_FALSE(u.attributes->local_pref);
      EXPECT_FALSE(u.attributes->originator_id);
      EXPECT_TRUE(u.attributes->cluster_list.empty());
    }
    at += len;
  }
  EXPECT_EQ(announced, 2000u);
  EXPECT_TRUE(eor);

  EncodedStream withdraw;
  encoder.EncodeWithdrawAll(table, &withdraw);
  EXPECT_EQ(withdraw.withdrawals(), 2000u);
}

// --path-variant: four upstreams (K = 0..3) give every prefix four AS paths of distinct
// lengths, and each upstream has the shortest one for about a quarter of the prefixes.
TEST(FeedEncoderTest, PathVariantsGiveFourDistinctPathsPerPrefix) {
  AttributeStore store;
  const PeerFeed feed = SyntheticTable(4000, 5, &store);
  std::map<net::Prefix, std::vector<size_t>> lengths;  // per prefix, per variant
  for (int k = 0; k < kPathVariants; ++k) {
    RewriteOptions rw;
    rw.local_as = 4200000101u + uint32_t(k);
    rw.prepend_own_as = true;
    rw.path_variant = k;
    rw.next_hop4 = net::IPv4Address(0x7f000003);
    SessionParams params;
    FeedEncoder encoder(params, rw, &store);
    EncodedStream stream;
    encoder.EncodeTable(feed.Table(), &stream);
    ASSERT_EQ(stream.prefixes(), 4000u);
    UpdateDecoder decoder(params, &store);
    UpdateMessage u;
    for (size_t at = 0; at < stream.bytes.size();) {
      const size_t len = LoadU16(stream.bytes.data() + at + 16);
      decoder.Decode(Bytes(stream.bytes.data() + at, len), &u);
      ASSERT_TRUE(u.errors.ok()) << u.errors.reason;
      for (const Nlri& n : u.announced) {
        ASSERT_EQ(u.attributes->as_path->FirstAs(), rw.local_as);
        lengths[n.prefix].push_back(u.attributes->AsPathLength());
      }
      at += len;
    }
  }
  ASSERT_EQ(lengths.size(), 4000u);
  std::map<size_t, int> best_of;  // variant -> prefixes it is the shortest for
  for (const auto& [prefix, l] : lengths) {
    ASSERT_EQ(l.size(), 4u) << prefix.ToString();
    const size_t shortest = *std::min_element(l.begin(), l.end());
    std::set<size_t> distinct(l.begin(), l.end());
    EXPECT_EQ(distinct.size(), 4u) << prefix.ToString();
    EXPECT_EQ(*distinct.rbegin() - shortest, 3u) << prefix.ToString();
    ++best_of[size_t(std::min_element(l.begin(), l.end()) - l.begin())];
  }
  for (int k = 0; k < kPathVariants; ++k) EXPECT_NEAR(best_of[size_t(k)], 1000, 150) << k;
  // The same choice in every process and build: FNV-1a, no per-process seed.
  EXPECT_EQ(PrefixHash(*net::Prefix::Parse("10.0.0.0/8")), 0x748739c4c5b686dbull);
}

TEST(ReplaySessionTest, TwoSpeakersExchangeATableOverLoopback) {
  AttributeStore store;
  const std::vector<Route> table = SyntheticTable(20000, 3, &store).Table();
  const std::vector<Route> none;
  asio::io_context io;
  const asio::ip::tcp::endpoint endpoint = FreeEndpoint();
  SessionOptions receiver_options = ReceiverOptions("receiver");
  receiver_options.peer_as = 65002;
  RewriteOptions rw;
  rw.local_as = 65001;
  ReplaySession receiver(io, receiver_options, EncoderFor(&store, &none, rw));
  SessionOptions sender_options = SenderOptions(receiver_options, "sender", endpoint);
  sender_options.peer_as = 65001;
  sender_options.withdraw_after = 0;  // then withdraw everything
  sender_options.linger = 0.5;        // then close with a Cease
  sender_options.wait_eor = true;
  ReplaySession sender(io, sender_options, EncoderFor(&store, &table, SenderRewrite()));
  RunPair(io, endpoint, receiver, sender);

  EXPECT_EQ(sender.stats().error, "");
  EXPECT_EQ(sender.stats().prefixes_sent, 20000u);
  EXPECT_EQ(sender.stats().withdrawals_sent, 20000u);
  EXPECT_GT(sender.stats().table_seconds, 0);
  EXPECT_TRUE(sender.stats().end_of_rib_received);  // the receiver's (empty) table
  EXPECT_EQ(receiver.stats().prefixes_received, 20000u);
  EXPECT_EQ(receiver.stats().withdrawals_received, 20000u);
  EXPECT_TRUE(receiver.stats().end_of_rib_received);
  // The sender ends the session with a Cease (Administrative Shutdown), which the receiver sees.
  ASSERT_TRUE(receiver.stats().notification_received.has_value());
  EXPECT_EQ(receiver.stats().notification_received->code, uint8_t(ErrorCode::kCease));
  EXPECT_EQ(receiver.stats().notification_received->subcode, cease::kAdministrativeShutdown);
}

// The monitor side of a convergence run: the receiver tracks the prefixes it holds, and the
// sender withdraws on demand (WithdrawNow, as --withdraw-on-signal does) once the receiver holds
// the whole table, not after its withdraw_after delay.
TEST(ReplaySessionTest, ReceiverTracksHeldPrefixesAndSenderWithdrawsOnDemand) {
  AttributeStore store;
  const std::vector<Route> table = SyntheticTable(5000, 4, &store).Table();
  const std::vector<Route> none;
  asio::io_context io;
  const asio::ip::tcp::endpoint endpoint = FreeEndpoint();
  SessionOptions receiver_options = ReceiverOptions("monitor");
  receiver_options.track_held = true;
  RewriteOptions rw;
  rw.local_as = 65001;
  ReplaySession receiver(io, receiver_options, EncoderFor(&store, &none, rw));
  SessionOptions sender_options = SenderOptions(receiver_options, "upstream", endpoint);
  sender_options.withdraw_after = 1e7;  // only WithdrawNow() can start the withdrawals in time
  sender_options.linger = 0.2;
  ReplaySession sender(io, sender_options, EncoderFor(&store, &table, SenderRewrite()));

  std::vector<std::string> milestones;
  sender.on_stream = [&](ReplaySession*, const char* m) { milestones.push_back(m); };
  uint64_t most_held = 0;
  bool withdrawn = false;
  receiver.on_held_change = [&](ReplaySession* r) {
    most_held = std::max(most_held, r->stats().prefixes_held);
    if (r->stats().prefixes_held == 5000 && !withdrawn) {
      withdrawn = true;
      sender.WithdrawNow();
    }
  };
  RunPair(io, endpoint, receiver, sender);

  EXPECT_EQ(most_held, 5000u);
  EXPECT_EQ(receiver.stats().prefixes_held, 0u);
  EXPECT_EQ(sender.stats().withdrawals_sent, 5000u);
  EXPECT_EQ(sender.stats().error, "");
  EXPECT_EQ(milestones, (std::vector<std::string>{"table_start", "table_sent", "withdraw_start"}));
  EXPECT_GT(sender.stats().withdraw_started_mono, sender.stats().table_started_mono);
  EXPECT_GE(receiver.stats().held_changed_mono, sender.stats().withdraw_started_mono);
}

// --extra (route_path_bench's "same peer" samples): routes held back from the table go one
// UPDATE each when asked, never before the table is written, in the same session.
TEST(ReplaySessionTest, ExtraRoutesGoOneAtATimeAfterTheTable) {
  AttributeStore store;
  const PeerFeed feed = SyntheticTable(1000, 5, &store);
  const std::vector<Route> all = feed.Table();
  const std::vector<Route> table(all.begin(), all.end() - 2);
  const std::vector<Route> extra(all.end() - 2, all.end());
  asio::io_context io;
  const asio::ip::tcp::endpoint endpoint = FreeEndpoint();
  SessionOptions receiver_options = ReceiverOptions("monitor");
  receiver_options.track_held = true;
  RewriteOptions rw;
  rw.local_as = 65001;
  const std::vector<Route> none;
  ReplaySession receiver(io, receiver_options, EncoderFor(&store, &none, rw));
  SessionOptions sender_options = SenderOptions(receiver_options, "upstream", endpoint);
  rw = SenderRewrite();
  ReplaySession sender(io, sender_options, EncoderFor(&store, &table, rw));
  sender.SetExtra([&](const SessionParams& p) {
    std::vector<std::vector<uint8_t>> messages;
    FeedEncoder e(p, rw, &store);
    for (const Route& r : extra) {
      EncodedStream one;
      e.EncodeTable({r}, &one);
      messages.push_back(one.bytes);
    }
    return messages;
  });
  EXPECT_FALSE(sender.AnnounceNext());  // not Established

  bool asked_during_table = false, asked_second = false, none_left = true;
  sender.on_stream = [&](ReplaySession* s, const char* m) {
    // Asked while the table is being written: it waits for the table's end.
    if (std::string(m) == "table_start") asked_during_table = s->AnnounceNext();
  };
  std::vector<uint64_t> held;
  receiver.on_held_change = [&](ReplaySession* r) {
    held.push_back(r->stats().prefixes_held);
    if (r->stats().prefixes_held == table.size() + 1 && !asked_second) {
      asked_second = sender.AnnounceNext();
      none_left = !sender.AnnounceNext() && sender.extra_left() == 0;
    } else if (r->stats().prefixes_held == all.size()) {
      sender.Stop("done");
    }
  };
  RunPair(io, endpoint, receiver, sender, [&] { receiver.Stop("done"); });

  EXPECT_TRUE(asked_during_table);
  EXPECT_TRUE(asked_second);
  EXPECT_TRUE(none_left);
  EXPECT_EQ(sender.stats().extra_sent, 2u);
  ASSERT_GE(held.size(), 2u);
  // The table first, then each extra route on its own.
  EXPECT_EQ(held[held.size() - 2], table.size() + 1);
  EXPECT_EQ(held.back(), all.size());
  EXPECT_EQ(std::count(held.begin(), held.end(), table.size()), 1);
  EXPECT_EQ(sender.stats().error, "");
}

// Flap mode (for the route flap damping tests): the table, then three cycles of withdraw
// everything / announce everything again, ending announced.
TEST(ReplaySessionTest, FlapModeWithdrawsAndAnnouncesAgainAndEndsAnnounced) {
  AttributeStore store;
  const std::vector<Route> table = SyntheticTable(100, 5, &store).Table();
  const std::vector<Route> none;
  asio::io_context io;
  const asio::ip::tcp::endpoint endpoint = FreeEndpoint();
  SessionOptions receiver_options = ReceiverOptions("receiver");
  receiver_options.peer_as = 65002;
  RewriteOptions rw;
  rw.local_as = 65001;
  ReplaySession receiver(io, receiver_options, EncoderFor(&store, &none, rw, false));
  SessionOptions sender_options = SenderOptions(receiver_options, "sender", endpoint);
  sender_options.peer_as = 65001;
  sender_options.flap_every = 0.2;
  sender_options.flaps = 3;
  sender_options.linger = 0.3;
  ReplaySession sender(io, sender_options, EncoderFor(&store, &table, SenderRewrite(), false));
  RunPair(io, endpoint, receiver, sender);

  EXPECT_EQ(sender.stats().error, "");
  EXPECT_EQ(sender.stats().flaps, 3u);
  EXPECT_EQ(receiver.stats().prefixes_received, 400u);  // the table, then again after each flap
  EXPECT_EQ(receiver.stats().withdrawals_received, 300u);
}

// Runs a receiver (listening) and a sender that may reconnect: every connection goes to the
// receiver when it waits for one, else it is closed.
void RunReconnecting(asio::io_context& io, const asio::ip::tcp::endpoint& endpoint,
                     ReplaySession& receiver, ReplaySession& sender) {
  asio::ip::tcp::acceptor acceptor(io, endpoint);
  std::function<void()> accept = [&] {
    acceptor.async_accept([&](const boost::system::error_code& ec, asio::ip::tcp::socket s) {
      if (ec) return;
      if (receiver.waiting_for_connection()) receiver.Accept(std::move(s));
      accept();
    });
  };
  accept();
  sender.Connect();
  asio::steady_timer guard(io, std::chrono::seconds(60));
  guard.async_wait([&](const boost::system::error_code& ec) {
    if (!ec) {
      ADD_FAILURE() << "timeout";
      sender.Stop("timeout");
      receiver.Stop("timeout");
    }
  });
  int done = 0;
  sender.on_done = receiver.on_done = [&](ReplaySession*) {
    if (++done < 2) return;
    guard.cancel();
    acceptor.close();
  };
  io.run();
}

// A restart seen from both ends: the sender (--reconnect) loses its connection without a
// NOTIFICATION, reconnects and sends a different table (its first `drop` routes left out,
// `add` routes new); the receiver either keeps the routes as a graceful restart helper or, without
// graceful restart, removes them at the drop.
struct RestartRun {
  std::vector<uint64_t> held;  // the receiver's held count at each change
  SessionStats receiver, sender;
};

RestartRun RunRestart(bool receiver_graceful_restart, size_t total, size_t drop, size_t add) {
  AttributeStore store;
  const std::vector<Route> all = SyntheticTable(total, 6, &store).Table();
  const std::vector<Route> first(all.begin(), all.end() - ptrdiff_t(add));
  const std::vector<Route> again(all.begin() + ptrdiff_t(drop), all.end());
  const std::vector<Route> none;
  asio::io_context io;
  const asio::ip::tcp::endpoint endpoint = FreeEndpoint();
  SessionOptions receiver_options = ReceiverOptions("helper");
  receiver_options.track_held = true;
  receiver_options.reconnect = true;  // waits for the next connection either way
  if (receiver_graceful_restart) receiver_options.graceful_restart = 120;
  RewriteOptions rw;
  rw.local_as = 65001;
  ReplaySession receiver(io, receiver_options, EncoderFor(&store, &none, rw));
  SessionOptions sender_options = SenderOptions(receiver_options, "restarting", endpoint);
  sender_options.graceful_restart = 90;
  sender_options.reconnect = true;
  ReplaySession sender(io, sender_options, EncoderFor(&store, &first, SenderRewrite()));
  sender.SetReconnectEncoder(EncoderFor(&store, &again, SenderRewrite()));

  RestartRun run;
  bool dropped = false;
  receiver.on_held_change = [&](ReplaySession* r) {
    const SessionStats& st = r->stats();
    run.held.push_back(st.prefixes_held);
    if (!dropped && st.prefixes_held == first.size()) {
      dropped = true;
      asio::post(io, [&] { sender.DropConnection(); });
    } else if (dropped && st.connections == 2 && st.prefixes_held == again.size() &&
               st.prefixes_stale == 0) {
      sender.Stop("done");
      receiver.Stop("done");
    }
  };
  RunReconnecting(io, endpoint, receiver, sender);
  run.receiver = receiver.stats();
  run.sender = sender.stats();
  return run;
}

TEST(ReplayRestartTest, GracefulRestartHelperKeepsRoutesAndSweepsTheStaleOnes) {
  const RestartRun run = RunRestart(true, 1000, 100, 50);
  // The sender reconnected once and sent its new table (900 routes) with End-of-RIB.
  EXPECT_EQ(run.sender.connections, 2u);
  EXPECT_EQ(run.sender.drops, 1u);
  EXPECT_EQ(run.sender.error, "");
  EXPECT_EQ(run.sender.prefixes_sent, 900u);
  EXPECT_EQ(run.receiver.connections, 2u);
  EXPECT_EQ(run.receiver.prefixes_received, 950u + 900u);
  // Across the drop the receiver held every route until the End-of-RIB swept the 100 that were
  // not sent again; never a withdrawal.
  ASSERT_FALSE(run.held.empty());
  const auto sweep = std::find(run.held.begin(), run.held.end(), 1000u);
  ASSERT_NE(sweep, run.held.end()) << "the 50 new routes arrived next to the 950 kept";
  EXPECT_EQ(*std::min_element(std::find(run.held.begin(), run.held.end(), 950u), sweep + 1), 950u);
  EXPECT_EQ(run.held.back(), 900u);
  EXPECT_EQ(run.receiver.stale_kept, 950u);
  EXPECT_EQ(run.receiver.stale_swept, 100u);
  EXPECT_EQ(run.receiver.flushed, 0u);
  EXPECT_EQ(run.receiver.withdrawals_received, 0u);
  EXPECT_TRUE(run.receiver.end_of_rib_received);
  // The OPEN after the reconnect carried R (and N and F, as the first did).
  EXPECT_NE(run.receiver.negotiated.find("graceful-restart(restart-time 90 R N ipv4-unicast/F)"),
            std::string::npos)
      << run.receiver.negotiated;
  // Both sides set N, so the deliberate end was a Hard Reset.
  ASSERT_TRUE(run.sender.notification_sent.has_value());
  EXPECT_EQ(run.sender.notification_sent->subcode, cease::kHardReset);
}

TEST(ReplayRestartTest, WithoutGracefulRestartTheDropRemovesTheRoutes) {
  const RestartRun run = RunRestart(false, 1000, 100, 50);
  EXPECT_EQ(run.receiver.connections, 2u);
  EXPECT_EQ(run.receiver.flushed, 950u);
  EXPECT_EQ(run.receiver.stale_kept, 0u);
  EXPECT_EQ(run.receiver.stale_swept, 0u);
  EXPECT_NE(std::find(run.held.begin(), run.held.end(), 0u), run.held.end());
  EXPECT_EQ(run.held.back(), 900u);
  EXPECT_EQ(run.receiver.withdrawals_received, 0u);
  // Without N from the receiver, the sender's end is a plain Cease.
  ASSERT_TRUE(run.sender.notification_sent.has_value());
  EXPECT_EQ(run.sender.notification_sent->subcode, cease::kAdministrativeShutdown);
}

TEST(HeldRoutesTest, StaleMarksSurviveUntilSweptOrAnnounced) {
  HeldRoutes held;
  const net::Prefix a = *net::Prefix::Parse("10.0.0.0/24"), b = *net::Prefix::Parse("10.0.1.0/24");
  const net::Prefix c = *net::Prefix::Parse("2001:db8::/32");
  EXPECT_TRUE(held.Announce(a));
  EXPECT_TRUE(held.Announce(b));
  EXPECT_TRUE(held.Announce(c));
  EXPECT_FALSE(held.Announce(a));
  AfiSafiSet v4;
  v4.Add(kIPv4Unicast);
  EXPECT_EQ(held.MarkStale(v4), 1u);  // IPv6 not kept
  EXPECT_EQ(held.size(), 2u);
  EXPECT_EQ(held.stale(), 2u);
  EXPECT_FALSE(held.Announce(a));  // again: no longer stale
  EXPECT_EQ(held.stale(), 1u);
  EXPECT_EQ(held.Sweep(v4), 1u);  // b
  EXPECT_EQ(held.size(), 1u);
  EXPECT_EQ(held.stale(), 0u);
  EXPECT_TRUE(held.Withdraw(a));
  EXPECT_FALSE(held.Withdraw(a));
  EXPECT_EQ(held.size(), 0u);
}

}  // namespace
}  // namespace sluice::bgp::replay
