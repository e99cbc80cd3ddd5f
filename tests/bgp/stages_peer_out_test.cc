// PeerOut: prefixes sharing attributes packed into as few UPDATEs as fit, withdrawals first,
// changes that leave the peer's state unchanged not sent, End-of-RIB, flow control on the send
// backlog (alone, or sharing a SendBudget with other peers), and route refresh. What it sends is
// decoded again (golden log of UPDATEs). With an encoding thread (PeerOut::Options::encoder): the
// same UPDATEs, End-of-RIB after the batches on that thread, the reader blocked while it is full,
// and a PeerOut gone with a batch there. Runs under ThreadSanitizer too (label tsan).
#include <gtest/gtest.h>

#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bgp/stages/encode_thread.h"
#include "bgp/stages/encoded_group_cache.h"
#include "bgp/stages/peer_in.h"
#include "bgp/stages/peer_out.h"
#include "bgp/stages/send_budget.h"
#include "tests/bgp/stages_fakes.h"
#include "tests/bgp/stages_test_util.h"
#include "tests/testing/golden.h"

namespace sluice::bgp {
namespace {

using testing::Attr;
using testing::P;

class FakeFlow : public FlowControl {
 public:
  void SetBlocked(bool b) override {
    blocked = b;
    ++changes;
  }
  bool ready() const override { return !blocked; }
  void WhenReady(std::function<void()> cb) override { cb(); }
  bool blocked = false;
  int changes = 0;
};

class PeerOutTest : public testing::StagesTest {
 protected:
  void SetUp() override {
    PeerIn::Options resolved;
    resolved.mark_resolved = true;
    in_ = plumber_.Make<PeerIn>("PeerIn", &plumber_, &tables_, resolved);
    SessionParams params;
    session_ = std::make_unique<testing::FakeSession>(&store_, params);
    out_ = plumber_.Make<PeerOut>("PeerOut", io_, session_.get(), params, kIPv4Unicast, &flow_,
                                  &tables_, Options());
    stage::Plumber::Plumb<BgpRoute>(in_, out_);
    in_->SessionUp(sources_.Intern(testing::Source(1, "P", "10.0.0.1", 65001, false)));
    a_ = Attr().Path({65000, 1}).NextHop("192.0.2.1").In(store_);
    b_ = Attr().Path({65000, 2}).NextHop("192.0.2.1").In(store_);
  }
  net::Prefix N(uint32_t i) { return net::Prefix(net::IPv4Address(0x0a000000 + (i << 8)), 24); }
  virtual PeerOut::Options Options() {
    PeerOut::Options options;
    options.high_water = 100000;
    return options;
  }
  // After a push: until what it handed over is sent (nothing to wait for on the loop).
  virtual void Sent() {}
  void PacksGroupsSuppressesNoChangesAndEndsTheRib();

  RouteTableSet tables_;
  FakeFlow flow_;
  std::unique_ptr<testing::FakeSession> session_;
  PeerIn* in_ = nullptr;
  PeerOut* out_ = nullptr;
  AttrRef a_, b_;
};

// A session whose send runs more of the loop's work inline: here, another peer's batch.
class ReentrantSession : public testing::FakeSession {
 public:
  using FakeSession::FakeSession;
  bool SendMessages(std::vector<uint8_t> messages) override {
    const bool ok = FakeSession::SendMessages(std::move(messages));
    if (during_send) std::exchange(during_send, nullptr)();
    return ok;
  }
  std::function<void()> during_send;
};

// The PeerOuts of a thread share Flush's scratch; a Flush that starts inside another one's send
// gets its own, and each peer gets exactly its own batch.
TEST_F(PeerOutTest, AFlushInsideAnotherPeersSendKeepsEachBatchApart) {
  SessionParams params;
  ReentrantSession first_session(&store_, params), second_session(&store_, params);
  PeerOut::Options options;
  options.high_water = 100000;
  PeerIn::Options resolved;
  resolved.mark_resolved = true;
  PeerIn* first_in = plumber_.Make<PeerIn>("PeerIn1", &plumber_, &tables_, resolved);
  PeerIn* second_in = plumber_.Make<PeerIn>("PeerIn2", &plumber_, &tables_, resolved);
  PeerOut* first = plumber_.Make<PeerOut>("PeerOut1", io_, &first_session, params, kIPv4Unicast,
                                          &flow_, &tables_, options);
  PeerOut* second = plumber_.Make<PeerOut>("PeerOut2", io_, &second_session, params, kIPv4Unicast,
                                           &flow_, &tables_, options);
  stage::Plumber::Plumb<BgpRoute>(first_in, first);
  stage::Plumber::Plumb<BgpRoute>(second_in, second);
  first_in->SessionUp(sources_.Intern(testing::Source(2, "Q", "10.0.0.2", 65002, false)));
  second_in->SessionUp(sources_.Intern(testing::Source(3, "R", "10.0.0.3", 65003, false)));
  // The first peer's batch is big enough to be sent in several pieces; the second's arrives
  // during the first piece's send.
  for (uint32_t i = 0; i < 20000; ++i) first_in->Announce(N(i), i % 2 ? a_ : b_);
  for (uint32_t i = 30000; i < 30100; ++i) second_in->Announce(N(i), a_);
  first_session.during_send = [&] { second_in->Push(); };
  first_in->Push();
  EXPECT_EQ(first_session.held.size(), 20000u);
  EXPECT_EQ(second_session.held.size(), 100u);
  for (uint32_t i = 0; i < 20000; i += 997) {
    ASSERT_TRUE(first_session.held.contains(N(i))) << i;
    EXPECT_EQ(first_session.held.at(N(i)), i % 2 ? a_ : b_) << i;
  }
  EXPECT_TRUE(second_session.held.contains(N(30000)));
  EXPECT_FALSE(second_session.held.contains(N(0)));
  EXPECT_FALSE(first_session.held.contains(N(30000)));
}

void PeerOutTest::PacksGroupsSuppressesNoChangesAndEndsTheRib() {
  // 2,000 /24s with one attribute set: 4 octets each, two 4,096-octet UPDATEs.
  for (uint32_t i = 0; i < 2000; ++i) in_->Announce(N(i), a_);
  in_->Push();
  Sent();
  EXPECT_EQ(session_->updates, 2u);
  EXPECT_EQ(session_->held.size(), 2000u);
  // Two attribute sets interleaved: one UPDATE per set.
  for (uint32_t i = 2000; i < 2010; ++i) in_->Announce(N(i), i % 2 ? a_ : b_);
  in_->Push();
  Sent();
  EXPECT_EQ(session_->updates, 4u);
  // Withdrawals ride in the first UPDATE with announcements.
  in_->Withdraw(N(0));
  in_->Withdraw(N(1));
  in_->Announce(N(2), b_);
  in_->Push();
  Sent();
  // Changes that end where they started send nothing: withdraw and re-announce the same
  // attributes, or announce and withdraw a new prefix, in one batch.
  const size_t before = session_->updates;
  in_->Withdraw(N(3));
  in_->Announce(N(3), a_);
  in_->Announce(N(5000), a_);
  in_->Withdraw(N(5000));
  in_->Push();
  Sent();
  EXPECT_EQ(session_->updates, before);
  out_->EndOfRib();
  Sent();
  EXPECT_EQ(session_->end_of_ribs, 1u);
  EXPECT_TRUE(out_->counters().end_of_rib_sent);
  EXPECT_EQ(out_->counters().advertised, 2008u);
  EXPECT_EQ(session_->held.size(), 2008u);
  EXPECT_TRUE(session_->errors.empty()) << session_->errors.front();
  EXPECT_GOLDEN(session_->Log(), "tests/bgp/golden/peer_out.updates");
}

TEST_F(PeerOutTest, PacksGroupsSuppressesNoChangesAndEndsTheRib) {
  PacksGroupsSuppressesNoChangesAndEndsTheRib();
}

// The export rules make transient sets (one per shard for the halves of an UPDATE): equal sets
// that are distinct entries still share one UPDATE, and a replace between them sends nothing.
TEST_F(PeerOutTest, EqualSetsThatAreDistinctEntriesShareOneUpdate) {
  AttrRef one = store_.MakeTransient(PathAttributes(*a_));
  AttrRef two = store_.MakeTransient(PathAttributes(*a_));
  ASSERT_NE(one.get(), two.get());
  for (uint32_t i = 0; i < 10; ++i) in_->Announce(N(i), i % 2 ? one : two);
  in_->Announce(N(10), a_);
  in_->Push();
  EXPECT_EQ(session_->updates, 1u);
  EXPECT_EQ(session_->held.size(), 11u);
  BgpRoute from, to;
  from.net = to.net = N(1);
  from.attrs = one;
  to.attrs = two;
  out_->replace_route(from, to, nullptr);
  out_->push(nullptr);
  EXPECT_EQ(session_->updates, 1u);
  EXPECT_TRUE(session_->errors.empty()) << session_->errors.front();
}

TEST_F(PeerOutTest, SeveralChangesOfAPrefixInOneBatchSendItsLastState) {
  in_->Announce(N(1), a_);
  in_->Announce(N(2), a_);
  in_->Push();
  const size_t updates = session_->updates, announced = session_->announced;
  // One batch, each prefix's changes interleaved with the others': N(1) a -> b -> a -> b, N(2)
  // withdrawn and announced again with b, N(4) new.
  in_->Announce(N(1), b_);
  in_->Announce(N(4), b_);
  in_->Withdraw(N(2));
  in_->Announce(N(1), a_);
  in_->Announce(N(2), b_);
  in_->Announce(N(1), b_);
  in_->Push();
  // The peer hears each prefix once, in its last state: one UPDATE, no withdrawal.
  EXPECT_EQ(session_->updates, updates + 1);
  EXPECT_EQ(session_->announced, announced + 3);
  EXPECT_EQ(session_->withdrawn, 0u);
  ASSERT_EQ(session_->held.size(), 3u);
  for (uint32_t i : {1, 2, 4}) EXPECT_EQ(session_->held[N(i)], b_) << N(i).ToString();
  EXPECT_EQ(out_->counters().advertised, 3u);
  // Back where it started, within one batch: nothing to send.
  in_->Announce(N(4), a_);
  in_->Withdraw(N(1));
  in_->Announce(N(4), b_);
  in_->Announce(N(1), b_);
  in_->Push();
  EXPECT_EQ(session_->updates, updates + 1);
  EXPECT_TRUE(session_->errors.empty()) << session_->errors.front();
}

TEST_F(PeerOutTest, ABatchKeepsNoReferenceOnceSent) {
  // Memory follows the table: once a batch is sent, PeerOut holds no attribute set, whether the
  // batch announced it or announced and withdrew it at once.
  AttributeStore other;
  AttrRef made = Attr().Path({65000, 7}).NextHop("192.0.2.1").In(other);
  BgpRoute r;
  r.attrs = made;
  for (uint32_t i = 0; i < 10; ++i) {
    r.net = N(i);
    out_->add_route(r, nullptr);
  }
  EXPECT_EQ(made.use_count(), 12u);  // ours, r's and one per change
  out_->push(nullptr);
  EXPECT_EQ(session_->updates, 1u);
  EXPECT_EQ(made.use_count(), 2u);
  r.net = N(100);
  out_->add_route(r, nullptr);
  out_->delete_route(r, nullptr);
  out_->push(nullptr);
  EXPECT_EQ(session_->updates, 1u);
  EXPECT_EQ(made.use_count(), 2u);
}

TEST_F(PeerOutTest, AMovedRouteGivesItsSetInsteadOfCopyingIt) {
  // The shard stage hands each change over by move: PeerOut keeps the route's reference rather
  // than taking one more, and sends what a copied route would have sent.
  AttributeStore other;
  AttrRef made = Attr().Path({65000, 7}).NextHop("192.0.2.1").In(other);
  for (uint32_t i = 0; i < 10; ++i) {
    BgpRoute r;
    r.net = N(i);
    r.attrs = made;
    static_cast<BgpStage*>(out_)->add_route(std::move(r), nullptr);
    EXPECT_FALSE(r.attrs);  // NOLINT(bugprone-use-after-move): taken, as promised
  }
  EXPECT_EQ(made.use_count(), 11u);  // ours and one per change
  out_->push(nullptr);
  EXPECT_EQ(session_->updates, 1u);
  EXPECT_EQ(session_->announced, 10u);
  EXPECT_EQ(made.use_count(), 1u);
}

// Peers that get the same batch with the same exported sets pay for one encoding: the second
// copies the first's UPDATEs (the same octets), a peer whose encoder writes other octets packs
// its own, and once the loop's turn is over the copies and their references are gone.
TEST_F(PeerOutTest, PeersThatGetTheSameBatchShareItsEncoding) {
  SessionParams two_octet;
  two_octet.four_octet_as = false;
  std::vector<std::unique_ptr<testing::FakeSession>> sessions;
  std::vector<PeerOut*> outs;
  for (const SessionParams& params : {SessionParams(), SessionParams(), two_octet}) {
    sessions.push_back(std::make_unique<testing::FakeSession>(&store_, params));
    PeerOut::Options options;
    options.high_water = 100000;
    outs.push_back(plumber_.Make<PeerOut>("PeerOut" + std::to_string(outs.size()), io_,
                                          sessions.back().get(), params, kIPv4Unicast, &flow_,
                                          &tables_, options));
  }
  // A batch that announces one prefix, then one that withdraws it and announces 30 in two sets.
  auto send_batches = [&](PeerOut* out, uint32_t first) {
    BgpRoute r;
    r.net = N(first + 99);
    r.attrs = b_;
    out->add_route(r, nullptr);
    out->push(nullptr);
    out->delete_route(r, nullptr);
    for (uint32_t i = first; i < first + 30; ++i) {
      r.net = N(i);
      r.attrs = i % 3 ? a_ : b_;
      out->add_route(r, nullptr);
    }
    out->push(nullptr);
  };
  RunLoop();  // a new turn of the loop
  for (PeerOut* out : outs) send_batches(out, 0);
  // Three groups (the withdrawal goes with the first of the second batch): the second peer
  // copies all three; the two-octet AS peer packs its own.
  EXPECT_EQ(outs[0]->counters().groups_shared, 0u);
  EXPECT_EQ(outs[1]->counters().groups_shared, 3u);
  EXPECT_EQ(outs[2]->counters().groups_shared, 0u);
  EXPECT_EQ(sessions[1]->log, sessions[0]->log);
  EXPECT_EQ(sessions[1]->octets, sessions[0]->octets);
  EXPECT_EQ(sessions[1]->held, sessions[0]->held);
  EXPECT_EQ(sessions[2]->held, sessions[0]->held);
  EXPECT_LT(sessions[2]->octets, sessions[0]->octets) << "2-octet AS numbers";
  EXPECT_TRUE(sessions[1]->errors.empty());
  // The turn's cache holds the first peer's three groups, each with a reference to its set.
  EXPECT_EQ(EncodedGroupCache::Local().size(), 3u);
  const uint32_t a_during_turn = a_.use_count();
  // After the turn nothing is held, and a peer whose batch differs packs its own.
  RunLoop();
  EXPECT_EQ(EncodedGroupCache::Local().size(), 0u);
  EXPECT_EQ(a_.use_count(), a_during_turn - 1);
  send_batches(outs[0], 100);
  send_batches(outs[1], 200);
  EXPECT_EQ(outs[1]->counters().groups_shared, 3u);
  EXPECT_TRUE(sessions[1]->held.contains(N(200)));
}

TEST_F(PeerOutTest, ABigBatchGoesToTheSessionInPieces) {
  // 40,000 /24s in 400 sets (100 prefixes, one UPDATE each): one batch of ~180 kB leaves in
  // pieces of about 32 KiB (whole UPDATEs each), not as one buffer.
  std::vector<AttrRef> sets;
  for (uint32_t s = 0; s < 400; ++s) {
    sets.push_back(Attr().Path({65000, 100 + s}).NextHop("192.0.2.1").In(store_));
  }
  BgpRoute r;
  for (uint32_t i = 0; i < 40000; ++i) {
    r.net = N(i);
    r.attrs = sets[i % sets.size()];
    out_->add_route(r, nullptr);
  }
  out_->push(nullptr);
  EXPECT_EQ(session_->held.size(), 40000u);
  EXPECT_EQ(session_->updates, 400u);  // 100 prefixes per set fit one UPDATE
  EXPECT_GT(session_->sends, 4u);
  EXPECT_LE(session_->largest_send, 32u * 1024 + 4096);
  EXPECT_EQ(out_->counters().updates, 400u);
  EXPECT_EQ(out_->counters().octets, session_->octets);
  EXPECT_TRUE(session_->errors.empty()) << session_->errors.front();
}

TEST_F(PeerOutTest, HighBacklogBlocksTheBranchUntilWritable) {
  session_->backlog = 200000;
  in_->Announce(N(1), a_);
  in_->Push();
  EXPECT_TRUE(out_->blocked());
  EXPECT_TRUE(flow_.blocked);
  out_->OnWritable();  // still above the mark: stays blocked
  EXPECT_TRUE(flow_.blocked);
  session_->backlog = 0;
  out_->OnWritable();
  EXPECT_FALSE(flow_.blocked);
  EXPECT_FALSE(out_->blocked());
}

// A budget shared by every peer's queue: one peer gets up to the per-peer maximum, two split the
// total, many get at least the minimum; a session's IPv4 and IPv6 PeerOuts count once.
TEST_F(PeerOutTest, ASharedSendBudgetGivesEachPeerItsShare) {
  SendBudget budget(/*total=*/400000, /*per_peer_min=*/50000, /*per_peer_max=*/300000);
  SessionParams params;
  testing::FakeSession a(&store_, params), b(&store_, params), c(&store_, params);
  FakeFlow flow_a, flow_b, flow_c;
  PeerOut::Options options;
  options.budget = &budget;
  auto make = [&](testing::FakeSession* s, FakeFlow* f, AfiSafi family) {
    return std::make_unique<PeerOut>("PeerOut", io_, s, params, family, f, &tables_, options);
  };
  auto send = [&](PeerOut* out, uint32_t i) {
    BgpRoute r;
    r.net = N(i);
    r.attrs = a_;
    out->add_route(r, nullptr);
    out->push(nullptr);
  };
  auto out_a = make(&a, &flow_a, kIPv4Unicast);
  EXPECT_EQ(budget.share(), 300000u);
  a.backlog = 250000;
  send(out_a.get(), 1);
  EXPECT_FALSE(flow_a.blocked) << "one peer: 250,000 queued is under its 300,000";
  auto out_b = make(&b, &flow_b, kIPv4Unicast);
  auto out_b6 = make(&b, &flow_b, kIPv6Unicast);
  EXPECT_EQ(budget.sessions(), 2u);
  EXPECT_EQ(budget.share(), 200000u);
  send(out_a.get(), 2);
  EXPECT_TRUE(flow_a.blocked) << "two peers: 200,000 each";
  auto out_c = make(&c, &flow_c, kIPv4Unicast);
  EXPECT_EQ(budget.share(), 133333u);
  out_b.reset();
  out_b6.reset();
  out_c.reset();
  EXPECT_EQ(budget.sessions(), 1u);
  a.backlog = 280000;
  out_a->OnWritable();
  EXPECT_FALSE(flow_a.blocked) << "alone again: its share is back to 300,000";
  SendBudget small(/*total=*/100000, /*per_peer_min=*/50000, /*per_peer_max=*/300000);
  int sessions[10];
  for (int& s : sessions) small.Add(&s);
  EXPECT_EQ(small.share(), 50000u) << "never under the per-peer minimum";
  for (int& s : sessions) small.Remove(&s);
  EXPECT_EQ(small.sessions(), 0u);
}

TEST_F(PeerOutTest, RouteRefreshReannouncesEverything) {
  for (uint32_t i = 0; i < 300; ++i) in_->Announce(N(i), i < 150 ? a_ : b_);
  in_->Push();
  const size_t announced = session_->announced;
  out_->Refresh();
  RunLoop();
  EXPECT_EQ(session_->announced, announced + 300);
  EXPECT_EQ(out_->counters().advertised, 300u);
  EXPECT_TRUE(session_->errors.empty()) << session_->errors.front();
}

TEST_F(PeerOutTest, ARefreshOfAPrefixAddedAndDeletedInOneBatchSendsNothing) {
  // The shard stage delivers a refresh's re-announcement in the same batch as the changes
  // around it: announced, re-announced and withdrawn before the push, the peer never had it.
  BgpRoute r;
  r.net = N(7);
  r.attrs = a_;
  out_->add_route(r, nullptr);
  out_->Readvertise(r);
  out_->delete_route(r, nullptr);
  out_->push(nullptr);
  EXPECT_EQ(session_->updates, 0u);
  EXPECT_TRUE(session_->errors.empty()) << session_->errors.front();
  // A re-announcement of what the peer has goes out again.
  out_->add_route(r, nullptr);
  out_->push(nullptr);
  out_->Readvertise(r);
  out_->push(nullptr);
  EXPECT_EQ(session_->announced, 2u);
  EXPECT_EQ(out_->counters().advertised, 1u);
}

// With an encoding thread. Its jobs run in order, so a job that waits for a signal holds back
// everything posted after it.
class PeerOutEncoderTest : public PeerOutTest {
 protected:
  void TearDown() override {
    if (held_) Release();  // a test that stopped early must not leave the thread waiting
    Sent();
  }
  PeerOut::Options Options() override {
    PeerOut::Options options = PeerOutTest::Options();
    options.encoder = &encoder_;
    return options;
  }
  // Until the encoding thread has run everything posted to it (its end-of-turn clears too) and
  // the loop everything that came back.
  void Sent() override {
    do {
      encoder_.Post([] {});  // after the clears posted before it
      while (encoder_.pending() > 0) std::this_thread::yield();
      io_.restart();
    } while (io_.poll() > 0);
  }
  // Holds the encoding thread until Release().
  void Hold() {
    held_ = true;
    encoder_.Post([f = release_.get_future().share()] { f.wait(); });
  }
  void Release() {
    held_ = false;
    release_.set_value();
  }

  EncodeThread encoder_{"test-encode"};
  std::promise<void> release_;
  bool held_ = false;
};

TEST_F(PeerOutEncoderTest, SendsWhatTheLoopSends) {
  PacksGroupsSuppressesNoChangesAndEndsTheRib();  // the same golden log
}

TEST_F(PeerOutEncoderTest, NothingIsSentBeforeTheBatchComesBackAndEndOfRibGoesLast) {
  Hold();
  for (uint32_t i = 0; i < 10; ++i) in_->Announce(N(i), a_);
  in_->Push();
  out_->EndOfRib();
  io_.restart();
  io_.poll();
  EXPECT_EQ(session_->updates, 0u);
  EXPECT_EQ(out_->queue_depth(), 10u) << "on the encoding thread";
  EXPECT_FALSE(out_->end_of_rib_sent());
  Release();
  Sent();
  EXPECT_EQ(session_->held.size(), 10u);
  EXPECT_EQ(session_->end_of_ribs, 1u);
  ASSERT_EQ(session_->log.size(), 2u);
  EXPECT_EQ(session_->log.front().substr(0, 11), "announce 10");
  EXPECT_EQ(session_->log.back().substr(0, 10), "End-of-RIB");
  EXPECT_TRUE(out_->end_of_rib_sent());
  EXPECT_EQ(out_->queue_depth(), 0u);
  EXPECT_EQ(out_->counters().advertised, 10u);
  EXPECT_EQ(out_->counters().updates, 2u);
}

TEST_F(PeerOutEncoderTest, ABusyEncodingThreadBlocksTheReaderOnceTheWaitingBatchIsFull) {
  Hold();
  uint32_t next = 0;
  auto batch = [&](uint32_t changes) {
    for (uint32_t i = 0; i < changes; ++i, ++next) in_->Announce(N(next), next % 2 ? a_ : b_);
    in_->Push();
  };
  batch(100);
  batch(100);  // PeerOut::kMaxInFlight on the thread now
  batch(100);
  EXPECT_FALSE(flow_.blocked) << "100 changes wait";
  batch(PeerOut::kHoldChanges);
  EXPECT_TRUE(flow_.blocked);
  EXPECT_EQ(out_->queue_depth(), next);
  EXPECT_EQ(session_->updates, 0u);
  Release();
  Sent();
  EXPECT_FALSE(flow_.blocked);
  EXPECT_EQ(session_->held.size(), next);
  EXPECT_EQ(out_->counters().advertised, next);
  EXPECT_EQ(out_->queue_depth(), 0u);
  EXPECT_TRUE(session_->errors.empty()) << session_->errors.front();
}

TEST_F(PeerOutEncoderTest, APeerOutGoneWithABatchOnTheThreadSendsNothingAndKeepsNothing) {
  AttributeStore other;  // aborts if destroyed while the batch still holds its set
  AttrRef made = Attr().Path({65000, 7}).NextHop("192.0.2.1").In(other);
  SessionParams params;
  testing::FakeSession session(&store_, params);
  FakeFlow flow;
  auto out = std::make_unique<PeerOut>("PeerOut2", io_, &session, params, kIPv4Unicast, &flow,
                                       &tables_, Options());
  Hold();
  BgpRoute r;
  r.attrs = made;
  for (uint32_t i = 0; i < 10; ++i) {
    r.net = N(i);
    out->add_route(r, nullptr);
  }
  out->push(nullptr);
  out.reset();
  Release();
  Sent();
  EXPECT_EQ(session.updates, 0u);
  EXPECT_EQ(made.use_count(), 2u) << "ours and r's";
}

}  // namespace
}  // namespace sluice::bgp
