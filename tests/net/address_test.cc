#include <gtest/gtest.h>

#include "absl/container/flat_hash_set.h"
#include "net/ip_address.h"
#include "net/prefix.h"

namespace sluice::net {
namespace {

TEST(IPv4Address, ParsePrint) {
  auto a = IPv4Address::Parse("192.0.2.1");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->value(), 0xc0000201u);
  EXPECT_EQ(a->ToString(), "192.0.2.1");
  for (const char* bad :
       {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.4 ", "a.b.c.d"}) {
    EXPECT_FALSE(IPv4Address::Parse(bad).ok()) << bad;
  }
}

TEST(IPv6Address, Rfc5952CanonicalForm) {
  struct Case {
    const char* in;
    const char* out;
  } cases[] = {
      {"2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"},
      {"2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"},     // first of two equal runs
      {"2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"},  // one zero group is not compressed
      {"2001:DB8::", "2001:db8::"},
      {"::", "::"},
      {"::1", "::1"},
      {"::2", "::2"},
      {"::ffff:192.0.2.1", "::ffff:192.0.2.1"},
      {"1:0:0:2:0:0:0:3", "1:0:0:2::3"},  // the longest run wins
      {"fe80::1:2:3:4", "fe80::1:2:3:4"},
  };
  for (const auto& c : cases) {
    auto a = IPv6Address::Parse(c.in);
    ASSERT_TRUE(a.ok()) << c.in;
    EXPECT_EQ(a->ToString(), c.out) << c.in;
    EXPECT_EQ(IPv6Address::Parse(a->ToString()).value(), *a);
  }
  for (const char* bad : {"", ":::", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "g::"}) {
    EXPECT_FALSE(IPv6Address::Parse(bad).ok()) << bad;
  }
}

TEST(IPAddress, BytesRoundTrip) {
  uint8_t b4[4];
  IPv4Address::Parse("10.20.30.40")->ToBytes(b4);
  EXPECT_EQ(IPv4Address::FromBytes(b4).ToString(), "10.20.30.40");
  uint8_t b6[16];
  IPv6Address::Parse("2001:db8:1:2:3:4:5:6")->ToBytes(b6);
  EXPECT_EQ(b6[0], 0x20);
  EXPECT_EQ(b6[15], 0x06);
  EXPECT_EQ(IPv6Address::FromBytes(b6).ToString(), "2001:db8:1:2:3:4:5:6");
}

TEST(Prefix, ParseMaskContains) {
  auto p = Prefix::Parse("10.0.0.0/8");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->ToString(), "10.0.0.0/8");
  EXPECT_TRUE(p->Contains(IPAddress::Parse("10.255.0.1").value()));
  EXPECT_FALSE(p->Contains(IPAddress::Parse("11.0.0.1").value()));
  EXPECT_FALSE(p->Contains(IPAddress::Parse("::a00:1").value()));  // other family
  EXPECT_TRUE(p->Contains(Prefix::Parse("10.1.0.0/16").value()));
  EXPECT_FALSE(Prefix::Parse("10.1.0.0/16")->Contains(*p));
  EXPECT_TRUE(p->Overlaps(Prefix::Parse("10.1.0.0/16").value()));
  EXPECT_FALSE(p->Overlaps(Prefix::Parse("11.0.0.0/8").value()));

  auto host_bits = Prefix::Parse("10.1.2.3/8");
  ASSERT_FALSE(host_bits.ok());
  EXPECT_NE(host_bits.status().message().find("host bits"), std::string::npos);
  EXPECT_EQ(Prefix::ParseAndMask("10.1.2.3/8")->ToString(), "10.0.0.0/8");
  for (const char* bad : {"10.0.0.0", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/", "x/8",
                          "2001:db8::/129", "10.0.0.0/8x", "10.0.0.0/0008"}) {
    EXPECT_FALSE(Prefix::Parse(bad).ok()) << bad;
  }
  EXPECT_EQ(Prefix::Parse("2001:db8::/32")->ToString(), "2001:db8::/32");
  EXPECT_EQ(Prefix::Parse("::/0")->ToString(), "::/0");
  EXPECT_EQ(Prefix::Parse("0.0.0.0/0")->ToString(), "0.0.0.0/0");
  EXPECT_EQ(Prefix::Parse("10.0.0.0/8")->Truncated(4).ToString(), "0.0.0.0/4");
}

TEST(Prefix, OrderAndHash) {
  auto P = [](const char* s) { return Prefix::Parse(s).value(); };
  EXPECT_LT(P("10.0.0.0/8"), P("10.0.0.0/16"));
  EXPECT_LT(P("10.0.0.0/16"), P("10.1.0.0/16"));
  EXPECT_LT(P("255.0.0.0/8"), P("::/0"));  // IPv4 first
  EXPECT_NE(P("0.0.0.0/0"), P("::/0"));
  absl::flat_hash_set<Prefix> set = {P("10.0.0.0/8"), P("10.0.0.0/8"), P("::/0"), P("0.0.0.0/0")};
  EXPECT_EQ(set.size(), 3u);
  EXPECT_EQ(sizeof(Prefix), 24u);
}

}  // namespace
}  // namespace sluice::net
