// The netlink route codec without a kernel: messages written and read back, malformed ones.
#include "fea/rtnl_route_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include <cstring>
#include <memory>

#include "fea/netlink_socket.h"

namespace sluice::fea {
namespace {

InterfaceTree Interfaces() {
  InterfaceTree tree;
  for (uint32_t index : {2u, 3u}) {
    Interface link;
    link.index = index;
    link.name = index == 2 ? "eth0" : "eth1";
    tree.SetInterface(link);
  }
  return tree;
}

KernelRoute ReadOne(const std::vector<char>& buffer) {
  const auto* nlh = reinterpret_cast<const nlmsghdr*>(buffer.data());
  EXPECT_TRUE(NetlinkMessageOk(nlh, static_cast<int>(buffer.size())));
  auto route = ParseRoute(nlh);
  EXPECT_TRUE(route.ok() && route->has_value()) << route.status();
  return route.ok() && route->has_value() ? **route : KernelRoute();
}

TEST(RtnlRouteCodecTest, NewRouteReadsBack) {
  const InterfaceTree interfaces = Interfaces();
  auto route = FibRoute::Parse("2001:db8::/32 via fe80::1 dev eth0 via fe80::2 dev eth1 weight 3");
  ASSERT_TRUE(route.ok()) << route.status();
  std::vector<char> buffer;
  ASSERT_TRUE(AppendNewRoute(buffer, 1, NLM_F_ACK, RouteWrite::kReplace, *route,
                             KernelRouteTarget(), interfaces)
                  .ok());
  const KernelRoute back = ReadOne(buffer);
  EXPECT_EQ(back.prefix, route->prefix);
  EXPECT_EQ(back.metric, 1024u);  // IPv6 metric 0 as the kernel stores it
  EXPECT_EQ(back.table, 254u);
  EXPECT_EQ(back.ToFibRoute(interfaces).nexthops, route->nexthops);
}

TEST(RtnlRouteCodecTest, DelRouteReadsBack) {
  std::vector<char> buffer;
  AppendDelRoute(buffer, 1, 0, *net::Prefix::Parse("10.0.0.0/8"), 20, KernelRouteTarget());
  const KernelRoute back = ReadOne(buffer);
  EXPECT_EQ(back.prefix, *net::Prefix::Parse("10.0.0.0/8"));
  EXPECT_EQ(back.metric, 20u);
}

TEST(RtnlRouteCodecTest, MalformedMessagesAreErrors) {
  std::vector<char> buffer;
  AppendDelRoute(buffer, 1, 0, *net::Prefix::Parse("10.0.0.0/8"), 20, KernelRouteTarget());
  auto* nlh = reinterpret_cast<nlmsghdr*>(buffer.data());
  auto* rtm = static_cast<rtmsg*>(NLMSG_DATA(nlh));
  rtm->rtm_dst_len = 33;
  EXPECT_THAT(std::string(ParseRoute(nlh).status().message()),
              ::testing::HasSubstr("prefix length 33"));
  nlh->nlmsg_len = sizeof(nlmsghdr) + 4;
  EXPECT_THAT(std::string(ParseRoute(nlh).status().message()),
              ::testing::HasSubstr("shorter than struct rtmsg"));
}

// A gateway attribute of the wrong size, or interface 0, names no nexthop.
TEST(RtnlRouteCodecTest, AttributesThatNameNothingMakeNoNexthop) {
  std::vector<char> written;
  AppendDelRoute(written, 1, 0, *net::Prefix::Parse("10.0.0.0/8"), 20, KernelRouteTarget());
  for (bool oif : {false, true}) {
    std::vector<uint32_t> buffer(64);
    std::memcpy(buffer.data(), written.data(), written.size());
    auto* nlh = reinterpret_cast<nlmsghdr*>(buffer.data());
    const uint8_t eight[8] = {192, 0, 2, 1, 0, 0, 0, 0};
    if (oif) {
      mnl_attr_put_u32(nlh, RTA_OIF, 0);
    } else {
      mnl_attr_put(nlh, RTA_GATEWAY, sizeof(eight), eight);
    }
    auto route = ParseRoute(nlh);
    ASSERT_TRUE(route.ok() && route->has_value());
    EXPECT_TRUE((*route)->nexthops.empty()) << (oif ? "RTA_OIF 0" : "8-octet RTA_GATEWAY");
  }
}

// An attribute running past the message's length is not read, even when the length rounded up
// to the alignment would cover it (the buffer ends at the length here, as a receive can).
TEST(RtnlRouteCodecTest, AttributesEndWithTheMessage) {
  std::vector<char> written;
  AppendDelRoute(written, 1, 0, *net::Prefix::Parse("0.0.0.0/0"), 20, KernelRouteTarget());
  // Header, rtmsg, RTA_TABLE (8 octets), RTA_PRIORITY (8): cut 3 octets into the priority.
  const size_t cut = sizeof(nlmsghdr) + sizeof(rtmsg) + 8 + 5;
  ASSERT_EQ(written.size(), cut + 3);
  std::unique_ptr<char[]> exact(new char[cut]);
  std::memcpy(exact.get(), written.data(), cut);
  auto* nlh = reinterpret_cast<nlmsghdr*>(exact.get());
  nlh->nlmsg_len = cut;
  auto route = ParseRoute(nlh);
  ASSERT_TRUE(route.ok() && route->has_value());
  EXPECT_EQ((*route)->metric, 0u);
}

// A length field of 2 GiB or more is not a message (mnl_nlmsg_ok takes it for one, as a negative
// int, and the receive loop then walked off the buffer).
TEST(RtnlRouteCodecTest, MessageLengthsBeyondTheBufferAreRefused) {
  alignas(nlmsghdr) char buffer[32] = {};
  auto* nlh = reinterpret_cast<nlmsghdr*>(buffer);
  nlh->nlmsg_len = 32;
  EXPECT_TRUE(NetlinkMessageOk(nlh, 32));
  EXPECT_FALSE(NetlinkMessageOk(nlh, 31));
  nlh->nlmsg_len = 0x97979797u;
  EXPECT_FALSE(NetlinkMessageOk(nlh, 32));
  nlh->nlmsg_len = 8;
  EXPECT_FALSE(NetlinkMessageOk(nlh, 32));
  EXPECT_FALSE(NetlinkMessageOk(nlh, 8));
}

}  // namespace
}  // namespace sluice::fea
