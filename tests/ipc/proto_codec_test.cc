#include "ipc/proto_codec.h"

#include <gmock/gmock.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "ipc/types_convert.h"
#include "tests/ipc/proto/codec_test.pb.h"

namespace sluice::ipc {
namespace {

using codec_test::v1::AllTypes;
using ::testing::HasSubstr;

AllTypes Filled() {
  AllTypes m;
  m.set_i32(-7);
  m.set_si32(-8);
  m.set_sf32(-9);
  m.set_u32(4000000000u);
  m.set_f32(11);
  m.set_i64(-1234567890123LL);
  m.set_si64(-13);
  m.set_sf64(-14);
  m.set_u64(18446744073709551615ULL);
  m.set_f64(16);
  m.set_flag(true);
  m.set_dbl(0.125);
  m.set_flt(1.5f);
  m.set_txt("a & b, (c) 100%");
  m.set_bin(std::string("\x00\xff\x10", 3));
  m.set_color(codec_test::v1::GREEN);
  ToProto(*net::IPv4Address::Parse("192.0.2.1"), m.mutable_ipv4());
  ToProto(*net::IPv6Address::Parse("2001:db8::1"), m.mutable_ipv6());
  ToProto(*net::IPAddress::Parse("fe80::1"), m.mutable_ip());
  ToProto(*net::Prefix::Parse("10.0.0.0/8"), m.mutable_ipv4net());
  ToProto(*net::Prefix::Parse("2001:db8::/32"), m.mutable_ipv6net());
  ToProto(*net::Prefix::Parse("192.168.0.0/16"), m.mutable_net());
  ToProto(MacAddress(0x001122aabbccULL), m.mutable_mac());
  m.mutable_inner()->set_a(1);
  m.mutable_inner()->add_children()->set_s("child");
  for (int i = 0; i < 2; ++i) {
    auto* inner = m.add_inners();
    inner->set_a(i);
    ToProto(*net::Prefix::Parse(i == 0 ? "10.0.0.0/8" : "10.1.0.0/16"), inner->mutable_net());
    inner->add_values(i);
    inner->add_values(i + 10);
  }
  m.add_u32s(1);
  m.add_u32s(2);
  m.add_txts("x");
  m.add_txts("");
  m.add_txts("y,z");
  ToProto(*net::IPv4Address::Parse("10.0.0.1"), m.add_ipv4s());
  ToProto(*net::IPAddress::Parse("::1"), m.add_ips());
  ToProto(*net::IPAddress::Parse("::2"), m.add_ips());
  m.add_colors(codec_test::v1::RED);
  m.add_colors(static_cast<codec_test::v1::Color>(7));  // unknown to the schema
  (*m.mutable_counts())["k"] = 3;
  m.set_maybe(0);
  m.set_number(5);
  m.add_bins("");
  m.add_bins("\x01");
  ToProto(*net::Prefix::Parse("2001:db8::/48"), m.add_nets());
  return m;
}

TEST(ProtoCodecTest, EveryFieldTypeRoundTripsThroughText) {
  AllTypes m = Filled();
  auto args = MessageToArgs(m);
  ASSERT_TRUE(args.ok()) << args.status();
  std::string text = args->ToString();
  auto parsed = XrlArgs::Parse(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
  AllTypes back;
  ASSERT_TRUE(ArgsToMessage(*parsed, &back).ok()) << text;
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(m, back))
      << m.DebugString() << "\n---\n"
      << back.DebugString() << "\n"
      << text;
}

TEST(ProtoCodecTest, PrintedFormIsTheDocumentedOne) {
  AllTypes m = Filled();
  std::string text = MessageToArgs(m)->ToString();
  for (const char* part : {
           "i32:i32=-7&si32:i32=-8&sf32:i32=-9&u32:u32=4000000000&f32:u32=11",
           "&u64:u64=18446744073709551615&f64:u64=16&flag:bool=true&dbl:fp64=0.125&flt:fp64=1.5",
           "&txt:txt=a%20%26%20b%2C%20%28c%29%20100%25&bin:binary=00ff10&color:txt=GREEN",
           "&ipv4:ipv4=192.0.2.1&ipv6:ipv6=2001:db8::1&ip:ipvx=fe80::1&ipv4net:ipv4net=10.0.0.0/8",
           "&ipv6net:ipv6net=2001:db8::/32&net:ipvxnet=192.168.0.0/16&mac:mac=00:11:22:aa:bb:cc",
           "&inner:msg=(a:u32=1&s:txt=&children:list<msg>=(a:u32=0&s:txt=child&children:list<msg>="
           "&values:list<u32>=)&values:list<u32>=)",
           "&inners:list<msg>=(a:u32=0&s:txt=&net:ipv4net=10.0.0.0/8&children:list<msg>=&values:"
           "list<u32>=0,10),(a:u32=1",
           "&u32s:list<u32>=1,2&txts:list<txt>=x,\"\",y%2Cz&ipv4s:list<ipv4>=10.0.0.1",
           "&ips:list<ipvx>=::1,::2&colors:list<txt>=RED,7&counts:list<msg>=(key:txt=k&value:u32="
           "3)",
           "&maybe:u32=0&number:u32=5&bins:list<binary>=\"\",01&nets:list<ipvxnet>=2001:db8::/48",
       }) {
    EXPECT_THAT(text, HasSubstr(part));
  }
  // Unset fields with presence are left out; plain scalars are printed at their default.
  AllTypes empty;
  EXPECT_EQ(MessageToArgs(empty)->ToString().substr(0, 40),
            "i32:i32=0&si32:i32=0&sf32:i32=0&u32:u32=");
  EXPECT_THAT(MessageToArgs(empty)->ToString(), Not(HasSubstr("ipv4:")));
  EXPECT_THAT(MessageToArgs(empty)->ToString(), Not(HasSubstr("maybe:")));
}

absl::Status Fill(std::string_view text, AllTypes* m) {
  auto args = XrlArgs::Parse(text);
  if (!args.ok()) return args.status();
  return ArgsToMessage(*args, m);
}

TEST(ProtoCodecTest, EitherFamilyFieldsTakeEveryAddressAtom) {
  AllTypes m;
  ASSERT_TRUE(Fill("ip:ipv4=192.0.2.1&net:ipv6net=2001:db8::/32&ips:list<ipv4>=1.2.3.4", &m).ok());
  EXPECT_EQ(FromProto(m.ip())->ToString(), "192.0.2.1");
  EXPECT_EQ(FromProto(m.net())->ToString(), "2001:db8::/32");
  EXPECT_EQ(FromProto(m.ips(0))->ToString(), "1.2.3.4");
  ASSERT_TRUE(Fill("ip:ipvx=::1&nets:list<ipvxnet>=10.0.0.0/8,2001:db8::/32", &m).ok());
  EXPECT_EQ(FromProto(m.ip())->ToString(), "::1");
  EXPECT_EQ(FromProto(m.nets(1))->ToString(), "2001:db8::/32");
  // Printed as ipvx/ipvxnet, so a list may mix families.
  EXPECT_THAT(MessageToArgs(m)->ToString(), HasSubstr("ip:ipvx=::1&"));
  EXPECT_THAT(MessageToArgs(m)->ToString(),
              HasSubstr("nets:list<ipvxnet>=10.0.0.0/8,2001:db8::/32"));
}

TEST(ProtoCodecTest, EnumsByNameOrNumber) {
  AllTypes m;
  ASSERT_TRUE(Fill("color:txt=RED&colors:list<txt>=GREEN,9", &m).ok());
  EXPECT_EQ(m.color(), codec_test::v1::RED);
  EXPECT_EQ(m.colors(1), 9);
  auto status = Fill("color:txt=BLUE", &m);
  EXPECT_THAT(
      std::string(status.message()),
      HasSubstr(
          "\"BLUE\" is not a value of sluice.codec_test.v1.Color (COLOR_UNSPECIFIED, RED, GREEN)"));
}

TEST(ProtoCodecTest, TypeErrorsNameTheArgument) {
  AllTypes m;
  EXPECT_EQ(std::string(Fill("u32:u32=1&ipv4:u32=5", &m).message()),
            "argument 2 \"ipv4\" (column 11): field ipv4 of sluice.codec_test.v1.AllTypes is ipv4, "
            "not u32");
  EXPECT_THAT(std::string(Fill("nosuch:u32=1", &m).message()),
              HasSubstr("argument 1 \"nosuch\" (column 1): no field nosuch in "
                        "sluice.codec_test.v1.AllTypes (fields: i32, si32,"));
  EXPECT_THAT(std::string(Fill("u32s:u32=1", &m).message()), HasSubstr("is list<u32>, not u32"));
  EXPECT_THAT(std::string(Fill("u32:list<u32>=1", &m).message()),
              HasSubstr("is u32, not list<u32>"));
  EXPECT_THAT(std::string(Fill("ip:ipv4net=1.0.0.0/8", &m).message()),
              HasSubstr("is ipvx, not ipv4net"));
  EXPECT_THAT(std::string(Fill("inner:u32=1", &m).message()), HasSubstr("is msg, not u32"));
  EXPECT_EQ(
      std::string(Fill("inners:list<msg>=(a:u32=1),(a:u32=2&net:ipv4=1.2.3.4)", &m).message()),
      "argument \"inners[1].net\" (column 37): field net of sluice.codec_test.v1.Inner is "
      "ipv4net, not ipv4");
  EXPECT_THAT(std::string(Fill("inner:msg=(children:list<msg>=(zz:u32=1))", &m).message()),
              HasSubstr("argument \"inner.children[0].zz\" (column 32): no field zz in "
                        "sluice.codec_test.v1.Inner"));
}

TEST(ProtoCodecTest, AnAddressWithNoFamilyInAListIsAnError) {
  AllTypes m;
  ToProto(*net::IPAddress::Parse("::1"), m.add_ips());
  m.add_ips();
  EXPECT_THAT(std::string(MessageToArgs(m).status().message()),
              HasSubstr("sluice.codec_test.v1.AllTypes.ips[1] has no address family set"));
}

TEST(ProtoCodecTest, OutOfRangePrefixLengthIsAnError) {
  AllTypes m;
  m.mutable_ipv4net()->set_length(40);
  EXPECT_THAT(std::string(MessageToArgs(m).status().message()), HasSubstr("prefix length 40"));
}

// The CLI converts messages of services it was not compiled with: dynamic descriptors.
TEST(ProtoCodecTest, DynamicMessagesWork) {
  google::protobuf::DescriptorPool pool;
  for (const auto* file :
       {sluice::types::v1::IPv4Address::descriptor()->file(), AllTypes::descriptor()->file()}) {
    google::protobuf::FileDescriptorProto proto;
    file->CopyTo(&proto);
    ASSERT_NE(pool.BuildFile(proto), nullptr);
  }
  google::protobuf::DynamicMessageFactory factory(&pool);
  const auto* desc = pool.FindMessageTypeByName("sluice.codec_test.v1.AllTypes");
  ASSERT_NE(desc, nullptr);
  std::unique_ptr<google::protobuf::Message> dyn(factory.GetPrototype(desc)->New());
  std::string text = MessageToArgs(Filled())->ToString();
  ASSERT_TRUE(ArgsToMessage(*XrlArgs::Parse(text), dyn.get()).ok());
  EXPECT_EQ(MessageToArgs(*dyn)->ToString(), text);
  AllTypes back;
  ASSERT_TRUE(back.ParseFromString(dyn->SerializeAsString()));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(back, Filled()));
}

// AllTypes.inner, then `levels - 1` Inner.children inside it: `levels` nested messages.
AllTypes NestedInners(int levels) {
  AllTypes m;
  codec_test::v1::Inner* inner = m.mutable_inner();
  for (int i = 1; i < levels; ++i) inner = inner->add_children();
  inner->set_a(7);
  return m;
}

TEST(ProtoCodecTest, NestingUpToTheLimitRoundTrips) {
  const AllTypes m = NestedInners(XrlArgs::kMaxNesting);
  auto args = MessageToArgs(m);
  ASSERT_TRUE(args.ok()) << args.status();
  auto parsed = XrlArgs::Parse(args->ToString());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  AllTypes back;
  ASSERT_TRUE(ArgsToMessage(*parsed, &back).ok());
  EXPECT_EQ(back.SerializeAsString(), m.SerializeAsString());
}

TEST(ProtoCodecTest, DeeperNestingIsAnErrorBothWays) {
  // A reply nested deeper than the XRL text allows is refused rather than printed unparseably.
  auto args = MessageToArgs(NestedInners(XrlArgs::kMaxNesting + 1));
  ASSERT_FALSE(args.ok());
  EXPECT_THAT(std::string(args.status().message()),
              HasSubstr("nesting too deep (more than 64 nested messages)"));

  // Arguments built in code (not parsed) deeper than the limit.
  XrlArgs deep = *XrlArgs::Parse("a:u32=7");
  for (int i = 0; i < XrlArgs::kMaxNesting; ++i) {
    XrlArgs outer;
    outer.Add(XrlAtom::List("children", AtomType::kMsg, {XrlValue::Msg(std::move(deep))}));
    deep = std::move(outer);
  }
  XrlArgs top;
  top.Add(XrlAtom("inner", XrlValue::Msg(std::move(deep))));
  AllTypes m;
  absl::Status status = ArgsToMessage(top, &m);
  EXPECT_THAT(std::string(status.message()), HasSubstr("nesting too deep"));
}

}  // namespace
}  // namespace sluice::ipc
