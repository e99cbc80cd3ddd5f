#include "ipc/types_convert.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace sluice::ipc {
namespace {

using ::testing::HasSubstr;

TEST(TypesConvertTest, AddressesRoundTrip) {
  types::v1::IPv4Address v4;
  ToProto(*net::IPv4Address::Parse("192.0.2.1"), &v4);
  EXPECT_EQ(v4.address(), 0xc0000201u);
  EXPECT_EQ(FromProto(v4).ToString(), "192.0.2.1");

  types::v1::IPv6Address v6;
  ToProto(*net::IPv6Address::Parse("2001:db8::1"), &v6);
  EXPECT_EQ(v6.hi(), 0x20010db800000000ULL);
  EXPECT_EQ(v6.lo(), 1u);
  EXPECT_EQ(FromProto(v6).ToString(), "2001:db8::1");

  for (const char* text : {"10.1.2.3", "fe80::1"}) {
    types::v1::IPAddress any;
    ToProto(*net::IPAddress::Parse(text), &any);
    EXPECT_EQ(FromProto(any)->ToString(), text);
  }
  EXPECT_THAT(std::string(FromProto(types::v1::IPAddress()).status().message()),
              HasSubstr("no address family"));
}

TEST(TypesConvertTest, AddressWordsRoundTrip) {
  google::protobuf::RepeatedField<uint32_t> words;
  AppendWords(*net::IPAddress::Parse("192.0.2.1"), &words);
  AppendWords(*net::IPAddress::Parse("2001:db8::1:2"), &words);
  AppendZeroWords(net::Family::kIPv6, &words);
  ASSERT_EQ(words.size(), 1 + 4 + 4);
  EXPECT_EQ(words[0], 0xc0000201u);
  EXPECT_EQ(words[1], 0x20010db8u);
  EXPECT_EQ(words[4], 0x00010002u);
  EXPECT_EQ(AddressFromWords(net::Family::kIPv4, &words[0]).ToString(), "192.0.2.1");
  EXPECT_EQ(AddressFromWords(net::Family::kIPv6, &words[1]).ToString(), "2001:db8::1:2");
  EXPECT_TRUE(AddressFromWords(net::Family::kIPv6, &words[5]).is_unspecified());
  EXPECT_TRUE(AddressFromWords(net::Family::kIPv6, &words[5]).is_v6());
}

TEST(TypesConvertTest, PrefixesRoundTrip) {
  for (const char* text : {"10.0.0.0/8", "0.0.0.0/0", "192.0.2.1/32"}) {
    types::v1::IPv4Prefix p;
    ToProto(*net::Prefix::Parse(text), &p);
    EXPECT_EQ(FromProto(p)->ToString(), text);
    types::v1::IPPrefix any;
    ToProto(*net::Prefix::Parse(text), &any);
    EXPECT_EQ(FromProto(any)->ToString(), text);
  }
  for (const char* text : {"2001:db8::/32", "::/0"}) {
    types::v1::IPv6Prefix p;
    ToProto(*net::Prefix::Parse(text), &p);
    EXPECT_EQ(FromProto(p)->ToString(), text);
    types::v1::IPPrefix any;
    ToProto(*net::Prefix::Parse(text), &any);
    EXPECT_EQ(FromProto(any)->ToString(), text);
  }
  types::v1::IPv4Prefix bad;
  bad.set_length(33);
  EXPECT_FALSE(FromProto(bad).ok());
  types::v1::IPv6Prefix bad6;
  bad6.set_length(129);
  EXPECT_FALSE(FromProto(bad6).ok());
  types::v1::IPv4Prefix host_bits;
  host_bits.set_address(0x0a010203);
  host_bits.set_length(8);
  EXPECT_EQ(FromProto(host_bits)->ToString(), "10.0.0.0/8");
}

TEST(TypesConvertTest, Mac) {
  types::v1::MacAddress m;
  ToProto(*MacAddress::Parse("00:11:22:AA:bb:cc"), &m);
  EXPECT_EQ(m.address(), 0x001122aabbccULL);
  EXPECT_EQ(FromProto(m).ToString(), "00:11:22:aa:bb:cc");
}

}  // namespace
}  // namespace sluice::ipc
