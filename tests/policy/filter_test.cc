#include "policy/filter.h"

#include <thread>

#include "gtest/gtest.h"
#include "policy/parser.h"
#include "policy/simple_route.h"

namespace sluice::policy {
namespace {

FilterSpec Import(std::vector<std::string> names) {
  FilterSpec spec;
  spec.policies = std::move(names);
  return spec;
}

TEST(Filter, FromTextRunsOnARoute) {
  auto f = Filter::FromText(R"(
      prefix-list bogons { 10.0.0.0/8 orlonger; }
      policy-statement in {
        term bogons { from { prefix-list bogons; } then { reject; } }
        term rest { then { local-pref 200; accept; } }
      })",
                            SourceLocation{"r.conf", 1, 1}, Import({"in"}));
  ASSERT_TRUE(f.ok()) << f.status();
  SimpleRoute bogon, good;
  bogon.network = *net::Prefix::Parse("10.9.0.0/16");
  good.network = *net::Prefix::Parse("8.8.8.0/24");
  SimpleRouteVarRW rw(bogon);
  EXPECT_FALSE((*f)->Run(rw).accepted());
  rw.Reset(good);
  Result r = (*f)->Run(rw);
  EXPECT_TRUE(r.accepted());
  EXPECT_TRUE(r.modified);
  EXPECT_EQ(rw.route().local_pref, 200u);
}

// One policy block serves every bank: a RIB redistribution filter compiles from a block that
// also holds BGP-only statements, as long as its own chain suits the RIB.
TEST(Filter, BankOptionsApplyToTheChainOnly) {
  const char* text = R"(
      policy-statement bgp-out { term t { then { as-path prepend 65000 2; accept; } } }
      policy-statement static-to-bgp {
        term t { from { protocol static; tag 7; } then { tag 8; accept; } }
      })";
  CompileOptions rib;
  rib.readable = VarSet().Add(VarId::kProtocol).Add(VarId::kNetwork).Add(VarId::kTag);
  rib.writable = VarSet().Add(VarId::kTag);
  FilterSpec redist = Import({"static-to-bgp"});
  redist.default_verdict = Verdict::kReject;
  auto f = Filter::FromText(text, SourceLocation{"r.conf", 1, 1}, redist, rib);
  ASSERT_TRUE(f.ok()) << f.status();
  SimpleRoute route;
  route.protocol = "static";
  route.tag = 7;
  SimpleRouteVarRW rw(route);
  EXPECT_TRUE((*f)->Run(rw).accepted());
  EXPECT_EQ(rw.route().tag, 8u);
  auto wrong = Filter::FromText(text, SourceLocation{"r.conf", 1, 1}, Import({"bgp-out"}), rib);
  EXPECT_FALSE(wrong.ok());
}

TEST(Filter, DefaultFilterGivesTheDefaultVerdict) {
  SimpleRoute route;
  SimpleRouteVarRW rw(route);
  EXPECT_TRUE(Filter::Default(Verdict::kAccept)->Run(rw).accepted());
  EXPECT_FALSE(Filter::Default(Verdict::kReject)->Run(rw).accepted());
}

// A bad policy is refused with line and column, and the running policy stays unchanged.
TEST(FilterSlot, BadPolicyLeavesTheRunningOneInPlace) {
  FilterSlot slot(Filter::Default(Verdict::kAccept));
  auto good = ParsePolicy("policy-statement in { term t { then { reject; } } }",
                          SourceLocation{"r.conf", 1, 1});
  ASSERT_TRUE(good.ok());
  ASSERT_TRUE(slot.Configure(*good, Import({"in"})).ok());
  std::shared_ptr<const Filter> running = slot.Get();

  auto bad = ParsePolicy("policy-statement in { term t { from { prefix-list nope; } } }",
                         SourceLocation{"r.conf", 1, 1});
  ASSERT_TRUE(bad.ok());
  absl::Status s = slot.Configure(*bad, Import({"in"}));
  EXPECT_EQ(std::string(s.message()), "r.conf:1:51: unknown prefix-list 'nope'");
  EXPECT_EQ(slot.Get(), running);
  SimpleRoute route;
  SimpleRouteVarRW rw(route);
  EXPECT_FALSE(slot.Get()->Run(rw).accepted());

  auto unparsable = Filter::FromText("policy-statement in { term t { then { rejekt; } } }",
                                     SourceLocation{"r.conf", 7, 3}, Import({"in"}));
  ASSERT_FALSE(unparsable.ok());
  EXPECT_EQ(unparsable.status().message().substr(0, 12), "r.conf:7:41:");
}

// Readers that look at the generation on every route see a new filter, and only a new one:
// a failed Configure leaves the generation where it was.
TEST(FilterSlot, GenerationMovesWithEveryNewFilterOnly) {
  FilterSlot slot(Filter::Default(Verdict::kAccept));
  const uint64_t first = slot.generation();
  auto good = ParsePolicy("policy-statement in { term t { then { reject; } } }",
                          SourceLocation{"r.conf", 1, 1});
  ASSERT_TRUE(good.ok());
  ASSERT_TRUE(slot.Configure(*good, Import({"in"})).ok());
  const uint64_t second = slot.generation();
  EXPECT_NE(second, first);
  auto bad = ParsePolicy("policy-statement in { term t { from { prefix-list nope; } } }",
                         SourceLocation{"r.conf", 1, 1});
  ASSERT_TRUE(bad.ok());
  EXPECT_FALSE(slot.Configure(*bad, Import({"in"})).ok());
  EXPECT_EQ(slot.generation(), second);
  slot.Set(Filter::Default(Verdict::kAccept));
  EXPECT_NE(slot.generation(), second);
}

TEST(FilterWatch, PollsOnlyWhatWasSetSinceTheLastLook) {
  FilterSlot slot(Filter::Default(Verdict::kAccept));
  FilterWatch watch(&slot);
  EXPECT_EQ(watch.seen(), slot.Get());
  EXPECT_FALSE(watch.Poll().has_value());
  std::shared_ptr<const Filter> reject = Filter::Default(Verdict::kReject);
  slot.Set(reject);
  std::optional<std::shared_ptr<const Filter>> polled = watch.Poll();
  ASSERT_TRUE(polled.has_value());
  EXPECT_EQ(*polled, reject);
  EXPECT_EQ(watch.seen(), reject);
  EXPECT_FALSE(watch.Poll().has_value()) << "seen once";
  FilterWatch none(nullptr);
  EXPECT_FALSE(none.Poll().has_value());
  EXPECT_EQ(none.seen(), nullptr);
}

TEST(FilterWatch, PollNewGivesOnlyAnotherFilter) {
  std::shared_ptr<const Filter> accept = Filter::Default(Verdict::kAccept);
  FilterSlot slot(accept);
  FilterWatch watch(&slot);
  slot.Set(accept);
  EXPECT_FALSE(watch.PollNew().has_value()) << "the same filter set again";
  std::shared_ptr<const Filter> reject = Filter::Default(Verdict::kReject);
  slot.Set(reject);
  std::optional<std::shared_ptr<const Filter>> polled = watch.PollNew();
  ASSERT_TRUE(polled.has_value());
  EXPECT_EQ(*polled, reject);
  EXPECT_FALSE(watch.PollNew().has_value()) << "seen once";
}

// Readers on other threads see either the old or the new filter, never a torn one.
TEST(FilterSlot, SwapWhileOtherThreadsRun) {
  FilterSlot slot(Filter::Default(Verdict::kAccept));
  std::atomic<bool> stop{false};
  std::atomic<int> bad_results{0};
  std::vector<std::thread> readers;
  for (int i = 0; i < 2; ++i) {
    readers.emplace_back([&] {
      SimpleRoute route;
      route.med = 1;
      SimpleRouteVarRW rw;
      while (!stop.load()) {
        rw.Reset(route);
        Result r = slot.Get()->Run(rw);
        // Either filter accepts; the second one also sets the MED to 2.
        if (!r.accepted() || (r.modified && rw.route().med != 2u)) ++bad_results;
      }
    });
  }
  auto config =
      ParsePolicy("policy-statement in { term t { then { med 2; accept; } } }", SourceLocation{});
  ASSERT_TRUE(config.ok());
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(slot.Configure(*config, Import({"in"})).ok());
    slot.Set(Filter::Default(Verdict::kAccept));
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad_results.load(), 0);
}

}  // namespace
}  // namespace sluice::policy
