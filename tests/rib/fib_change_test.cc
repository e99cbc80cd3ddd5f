// FibChangeList: what a batch of FIB changes reads back is what was put in, in order, whatever
// the families of the networks and nexthops.
#include "rib/fib_change.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace sluice::rib {
namespace {

net::Prefix P(const char* text) { return *net::Prefix::Parse(text); }
net::IPAddress A(const char* text) { return *net::IPAddress::Parse(text); }

std::vector<FibChange> Sample() {
  const Symbol eth0 = Symbol::Intern("eth0"), ebgp = Symbol::Intern("ebgp");
  const Symbol stat = Symbol::Intern("static");
  return {
      {FibChange::Op::kAdd, {P("203.0.113.0/24"), A("192.0.2.1"), eth0, 7, ebgp, 20}},
      {FibChange::Op::kReplace, {P("10.0.0.0/8"), std::nullopt, eth0, 0, stat, 1}},
      {FibChange::Op::kDelete, {P("2001:db8:99::/48"), A("2001:db8::5"), Symbol(), 3, ebgp, 200}},
      {FibChange::Op::kAdd, {P("198.51.100.128/25"), A("fe80::1"), eth0, 0xFFFFFFFF, ebgp, 20}},
      {FibChange::Op::kAdd, {P("::/0"), std::nullopt, Symbol(), 0, Symbol(), 0xFFFF}},
      {FibChange::Op::kReplace, {P("0.0.0.0/0"), A("192.0.2.254"), Symbol(), 1, stat, 1}},
  };
}

std::vector<FibChange> ReadBack(const FibChangeList& list) {
  std::vector<FibChange> out;
  for (const FibChange& c : list) out.push_back(c);
  return out;
}

TEST(FibChangeList, ReadsBackEveryChangeInOrder) {
  const std::vector<FibChange> sample = Sample();
  FibChangeList list;
  EXPECT_TRUE(list.empty());
  for (const FibChange& c : sample) list.push_back(c);
  EXPECT_EQ(list.size(), sample.size());
  const std::vector<FibChange> got = ReadBack(list);
  EXPECT_EQ(got, sample);
  for (size_t i = 0; i < std::min(got.size(), sample.size()); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(got[i].route.ToString(), sample[i].route.ToString());
  }
}

TEST(FibChangeList, ClearSwapAndShrinkKeepWhatIsHeld) {
  const std::vector<FibChange> sample = Sample();
  FibChangeList a, b;
  a.reserve(4000, net::Family::kIPv4);
  for (const FibChange& c : sample) a.push_back(c);
  a.ShrinkIfSparse();
  EXPECT_EQ(ReadBack(a), sample);
  a.swap(b);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(ReadBack(b), sample);
  b.clear();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.begin(), b.end());
  b.push_back(sample[2]);
  EXPECT_EQ(ReadBack(b), std::vector<FibChange>{sample[2]});
}

}  // namespace
}  // namespace sluice::rib
