#include "ipc/xrl_args.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace sluice::ipc {
namespace {

using ::testing::HasSubstr;

XrlArgs ParseOk(std::string_view text) {
  auto args = XrlArgs::Parse(text);
  EXPECT_TRUE(args.ok()) << text << ": " << args.status();
  return args.ok() ? *args : XrlArgs();
}

std::string ParseError(std::string_view text) {
  auto args = XrlArgs::Parse(text);
  EXPECT_FALSE(args.ok()) << text << " parsed as " << (args.ok() ? args->ToString() : "");
  return args.ok() ? "" : std::string(args.status().message());
}

// Every atom type: the printed form, and printing what was parsed gives the text back.
TEST(XrlArgsTest, EveryAtomTypeRoundTrips) {
  const char* cases[] = {
      "a:i32=-2147483648",
      "a:i32=2147483647",
      "a:u32=4294967295",
      "a:i64=-9223372036854775808",
      "a:u64=18446744073709551615",
      "a:bool=true",
      "a:bool=false",
      "a:fp64=0.25",
      "a:fp64=-1e+300",
      "a:txt=hello",
      "a:txt=",
      "a:txt=a%26b%2Cc%28d%29%25e%20f%22%23",
      "a:txt=%C3%A9t%C3%A9",
      "a:binary=00ff10",
      "a:binary=",
      "a:ipv4=192.0.2.1",
      "a:ipv6=2001:db8::1",
      "a:ipv6=::ffff:192.0.2.1",
      "a:ipv4net=10.0.0.0/8",
      "a:ipv6net=2001:db8::/32",
      "a:mac=00:11:22:aa:bb:cc",
      "a:ipvx=192.0.2.1",
      "a:ipvx=2001:db8::1",
      "a:ipvxnet=10.0.0.0/8",
      "a:list<ipvxnet>=10.0.0.0/8,2001:db8::/32",
      "a:msg=(x:u32=1&y:txt=two)",
      "a:msg=()",
      "a:list<u32>=1,2,3",
      "a:list<u32>=",
      "a:list<txt>=a,\"\",c",
      "a:list<txt>=\"\"",
      "a:list<binary>=00,\"\"",
      "a:list<ipv4net>=10.0.0.0/8,192.168.0.0/16",
      "a:list<msg>=(x:u32=1),(x:u32=2&l:list<u32>=4,5)",
      "a:msg=(m:msg=(m:msg=(deep:bool=true)))",
      "a:u32=1&b:txt=x&c:list<ipv6>=::1,fe80::1",
  };
  for (const char* text : cases) {
    XrlArgs args = ParseOk(text);
    EXPECT_EQ(args.ToString(), text);
    EXPECT_EQ(ParseOk(args.ToString()), args) << text;
  }
}

TEST(XrlArgsTest, TypedValuesAreParsed) {
  XrlArgs args = ParseOk(
      "n:i32=-5&t:txt=a%20b&b:binary=0aFF&v4:ipv4=192.0.2.1&m:mac=00:11:22:AA:BB:CC"
      "&r:list<msg>=(p:ipv4net=10.0.0.0/8),(p:ipv4net=10.1.0.0/16)");
  ASSERT_EQ(args.size(), 6u);
  EXPECT_EQ(args[0].value().i32(), -5);
  EXPECT_EQ(args[1].value().txt(), "a b");
  EXPECT_EQ(args[2].value().binary(), std::string("\x0a\xff", 2));
  EXPECT_EQ(args[3].value().ipv4(), *net::IPv4Address::Parse("192.0.2.1"));
  EXPECT_EQ(args[4].value().mac().value(), 0x001122aabbccULL);
  ASSERT_TRUE(args[5].is_list());
  ASSERT_EQ(args[5].list().size(), 2u);
  EXPECT_EQ(args[5].list()[1].msg()[0].value().ipv4net(), *net::Prefix::Parse("10.1.0.0/16"));
  EXPECT_EQ(args[5].column(), 78);  // the column of the atom's name
}

TEST(XrlArgsTest, TopLevelTextMayHoldCommasAndParentheses) {
  XrlArgs args = ParseOk("d:txt=a,b(c)");
  EXPECT_EQ(args[0].value().txt(), "a,b(c)");
  EXPECT_EQ(args.ToString(), "d:txt=a%2Cb%28c%29");
}

TEST(XrlArgsTest, PrinterEscapesEveryOctetThatWouldNotParseBack) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  XrlArgs args;
  args.Add(XrlAtom("t", XrlValue::Txt(all)));
  args.Add(XrlAtom::List("l", AtomType::kTxt,
                         {XrlValue::Txt(all), XrlValue::Txt(""), XrlValue::Txt("\"\"")}));
  args.Add(XrlAtom("m", XrlValue::Msg(XrlArgs().Add(XrlAtom("t", XrlValue::Txt(all))))));
  EXPECT_EQ(ParseOk(args.ToString()), args);
}

TEST(XrlArgsTest, MalformedArgumentsNameColumnAndArgument) {
  EXPECT_EQ(ParseError("a:u32=1&b:ipv4=1.2.3"),
            "column 16: argument 2 \"b\": bad ipv4 value \"1.2.3\": not an IPv4 address");
  EXPECT_THAT(ParseError("a:u32=-1"), HasSubstr("column 7: argument 1 \"a\": bad u32 value"));
  EXPECT_THAT(ParseError("a:u32=4294967296"), HasSubstr("not a 32-bit unsigned integer"));
  EXPECT_THAT(ParseError("a:i32=1x"), HasSubstr("bad i32 value \"1x\""));
  EXPECT_THAT(ParseError("a:bool=yes"), HasSubstr("want true or false"));
  EXPECT_THAT(ParseError("a:binary=abc"), HasSubstr("even number of hex digits"));
  EXPECT_THAT(ParseError("a:ipv4net=10.0.0.1/8"), HasSubstr("bad ipv4net value"));
  EXPECT_THAT(ParseError("a:ipv4net=2001:db8::/32"), HasSubstr("not an IPv4 prefix"));
  EXPECT_THAT(ParseError("a:mac=00:11:22"), HasSubstr("bad mac value"));
  EXPECT_THAT(ParseError("a:ipvx=10.0.0.0/8"), HasSubstr("not an IPv4 or IPv6 address"));
  EXPECT_THAT(ParseError("a:ipvxnet=10.0.0.0"), HasSubstr("bad ipvxnet value"));
  EXPECT_THAT(ParseError("a:u32=1&b:float=2"),
              HasSubstr("column 11: argument 2 \"b\": unknown type \"float\""));
  EXPECT_THAT(ParseError("a:u32"), HasSubstr("expected '=' after the type"));
  EXPECT_THAT(ParseError("a=1"), HasSubstr("column 1: argument 1: expected NAME:TYPE=VALUE"));
  EXPECT_THAT(ParseError("a:u32=1&"), HasSubstr("column 9: empty argument"));
  EXPECT_THAT(ParseError("a:u32=1&&b:u32=2"), HasSubstr("empty argument"));
  EXPECT_THAT(ParseError("a:u32=1&a:u32=2"), HasSubstr("argument 2 \"a\": given twice"));
  EXPECT_THAT(ParseError("a:txt=%4"),
              HasSubstr("column 7: argument 1 \"a\": '%' must be followed"));
  EXPECT_THAT(ParseError("a:txt=%zz"), HasSubstr("'%' must be followed by two hex digits"));
  EXPECT_THAT(ParseError("1a:u32=1"), HasSubstr("bad argument name"));
  EXPECT_THAT(ParseError("a:msg=x:u32=1"), HasSubstr("must be in parentheses"));
  EXPECT_THAT(ParseError("a:msg=(x:u32=1"), HasSubstr("missing ')'"));
  EXPECT_THAT(ParseError("a:msg=(x:u32=1))"), HasSubstr("unexpected ')'"));
  EXPECT_THAT(ParseError("a:list<list<u32>>=1"), HasSubstr("unknown type"));
  EXPECT_EQ(ParseError("r:list<msg>=(p:ipv4net=10.0.0.0/8),(p:ipv4net=10.0.0.0/33)"),
            "column 47: argument r[1].p: bad ipv4net value \"10.0.0.0/33\": "
            "bad prefix length in '10.0.0.0/33' (0..32 expected)");
}

// "a:msg=(" `levels` times, a leaf, then the closing parentheses.
std::string Nested(int levels) {
  std::string text;
  for (int i = 0; i < levels; ++i) text += "a:msg=(";
  text += "x:u32=1";
  text.append(static_cast<size_t>(levels), ')');
  return text;
}

TEST(XrlArgsTest, MsgValuesNestUpToTheLimit) {
  ASSERT_EQ(XrlArgs::kMaxNesting, 64);
  XrlArgs args = ParseOk(Nested(64));
  EXPECT_EQ(args.ToString(), Nested(64));
  int levels = 0;
  for (const XrlArgs* a = &args; a->Find("a") != nullptr; a = &a->Find("a")->value().msg()) {
    ++levels;
  }
  EXPECT_EQ(levels, 64);
}

TEST(XrlArgsTest, DeeperNestingIsAnErrorNamingTheLimit) {
  // The 65th "(" is at column 64 * 7 + 7.
  EXPECT_THAT(ParseError(Nested(65)), HasSubstr("column 455: argument a.a.a."));
  EXPECT_THAT(ParseError(Nested(65)),
              HasSubstr("nesting too deep (more than 64 nested msg values)"));
  // Far deeper text (unclosed, as a runaway generator would write it) stops at the same place
  // instead of exhausting the stack.
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "a:msg=(";
  EXPECT_THAT(ParseError(deep), HasSubstr("nesting too deep"));
  // Inside lists of messages too.
  std::string in_list;
  for (int i = 0; i < 65; ++i) in_list += "l:list<msg>=(";
  EXPECT_THAT(ParseError(in_list), HasSubstr("nesting too deep"));
}

TEST(XrlArgsTest, ColumnOffsetShiftsErrorColumns) {
  auto args = XrlArgs::Parse("a:u32=x", 40);
  ASSERT_FALSE(args.ok());
  EXPECT_THAT(std::string(args.status().message()), HasSubstr("column 47"));
}

TEST(XrlArgsTest, TypesParseAndPrint) {
  EXPECT_EQ(XrlType::Parse("list<ipv6net>")->ToString(), "list<ipv6net>");
  EXPECT_EQ(XrlType::Parse("msg")->atom, AtomType::kMsg);
  EXPECT_FALSE(XrlType::Parse("list<>"));
  EXPECT_FALSE(XrlType::Parse("List<u32>"));
  for (int i = 0; i <= static_cast<int>(AtomType::kIPvXNet); ++i) {
    auto type = static_cast<AtomType>(i);
    EXPECT_EQ(AtomTypeFromName(AtomTypeName(type)), type);
  }
}

}  // namespace
}  // namespace sluice::ipc
