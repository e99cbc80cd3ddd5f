#include "policy/parser.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace sluice::policy {
namespace {

absl::StatusOr<PolicyConfig> Parse(std::string_view text) {
  return ParsePolicy(text, SourceLocation{"t.conf", 1, 1});
}

TEST(Parser, FullExample) {
  auto c = Parse(R"(
    prefix-list bogons { 10.0.0.0/8 orlonger; 0.0.0.0/0 prefix-length 25-32; }
    community-list cust { 65000:100; 65000:*; }
    ext-community-list rt { target:65000:1; }
    large-community-list big { 1:2:3; }
    as-path-list transit { ".* 174 .*"; "^3356 .*"; }
    policy-statement upstream-in {
      term no-bogons { from { prefix-list bogons; } then { reject; } }
      term customers {
        from { community cust; as-path-length <= 10; med 1-5; origin igp; }
        to { neighbor 192.0.2.1; protocol bgp; }
        then { local-pref 200; community add [ 65000:200 ]; as-path prepend 65000 2; accept; }
      }
    }
  )");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->sets.size(), 5u);
  EXPECT_EQ(c->sets[0].prefixes.size(), 2u);
  EXPECT_EQ(c->sets[0].prefixes[1].modifier, PrefixModifier::kRange);
  EXPECT_EQ(c->sets[0].prefixes[1].min_length, 25);
  ASSERT_EQ(c->statements.size(), 1u);
  const Term& t = c->statements[0].terms[1];
  EXPECT_EQ(t.name, "customers");
  EXPECT_EQ(t.loc.ToString(), "t.conf:9:12");
  ASSERT_EQ(t.from.size(), 4u);
  EXPECT_EQ(t.from[2].comparison.op, CompareOp::kRange);
  ASSERT_EQ(t.to.size(), 2u);
  EXPECT_TRUE(t.to[0].in_to_block);
  ASSERT_EQ(t.then.size(), 4u);
  EXPECT_EQ(t.then[2].kind, ActionKind::kAsPathPrepend);
  EXPECT_EQ(t.then[2].count, 2u);
}

struct ErrorCase {
  const char* text;
  const char* message;
};

// Each kind of mistake, with the exact location and what was expected.
TEST(Parser, ErrorsNameLineColumnAndWhatWasExpected) {
  const ErrorCase cases[] = {
      {"policy-statement p {\n  term t { from { med 5 } }\n}",
       "t.conf:2:25: expected ';', found '}'"},
      {"policy-statement p { term t { then { local-pref x; } } }",
       "t.conf:1:49: expected a local-pref value (a number 0..4294967295), found 'x'"},
      {"prefix-list l { 10.0.0.1/8; }",
       "t.conf:1:17: host bits set in prefix '10.0.0.1/8' (did you mean 10.0.0.0/8?)"},
      {"prefix-list l { 10.0.0.0/8 prefix-length 4-9; }",
       "t.conf:1:42: prefix-length 4-9 outside 8-32 (the prefix's length to 32)"},
      {"policy-statement p { term t { from { network4 2001:db8::/32; } } }",
       "t.conf:1:47: expected an IPv4 prefix, found '2001:db8::/32'"},
      {"policy-statement p { term t { from { colour red; } } }",
       "t.conf:1:38: unknown match condition 'colour' (expected protocol, network4, network6, "
       "prefix-list, nexthop, neighbor, tag, as-path, as-path-length, community, ext-community, "
       "large-community, origin, med, local-pref or rpki)"},
      {"policy-statement p { term t { from { rpki maybe; } then { reject; } } }",
       "t.conf:1:43: expected an RPKI state (valid, invalid or not-found), found 'maybe'"},
      {"policy-statement p { term t { from { rpki; } } }",
       "t.conf:1:42: expected an RPKI state (valid, invalid or not-found), found ';'"},
      {"policy-statement p {\n  term t { then { rpki valid; accept; } }\n}",
       "t.conf:2:19: 'rpki' cannot be set: a route's RPKI state is the result of origin "
       "validation (RFC 6811); a policy can only match it, in 'from { rpki valid; }' (valid, "
       "invalid or not-found)"},
      {"policy-statement p { term t { then { accept; med 5; } } }",
       "t.conf:1:46: nothing may follow 'accept' in a then block"},
      {"policy-statement p { term t { from { as-path \"1 (2\"; } } }",
       "t.conf:1:51: bad AS-path regular expression \"1 (2\": expected ')' at offset 4"},
      {"community-list c { 65536:1; }",
       "t.conf:1:20: bad community (expected AS:VALUE with each part 0..65535, or no-export, "
       "no-advertise, no-export-subconfed, no-peer, blackhole, graceful-shutdown) '65536:1'"},
      {"policy-statement p { term t { then { community add [ 65000:* ]; } } }",
       "t.conf:1:52: wildcards and ranges are allowed only in 'community delete'; 'community "
       "add' needs exact values"},
      {"policy-statement p { term t { then { next hop; } } }",
       "t.conf:1:43: expected 'term' or 'policy' after 'next', found 'hop'"},
      {"prefix-list a { } prefix-list a { }",
       "t.conf:1:31: set 'a' is already defined at t.conf:1:13"},
      {"policy-statement p { term t { } term t { } }",
       "t.conf:1:38: term 't' is already defined at t.conf:1:27"},
      {"policy-statement p { term t { from { } from { } } }",
       "t.conf:1:40: a second 'from' block in one term"},
      {"policy-statement p { term t { then { as-path prepend 1 0; } } }",
       "t.conf:1:56: a prepend count must be 1..64"},
      {"policy-statement p { term t { then { nexthop 1.2.3; } } }",
       "t.conf:1:46: expected 'self', 'peer' or an address after 'nexthop', found '1.2.3'"},
      {"policy-statement p {", "t.conf:1:21: expected 'term' or '}', found end of input"},
      {"route-map x { }",
       "t.conf:1:1: expected prefix-list, community-list, ext-community-list, "
       "large-community-list, as-path-list or policy-statement, found 'route-map'"},
      {"}",
       "t.conf:1:1: expected prefix-list, community-list, ext-community-list, "
       "large-community-list, as-path-list or policy-statement, found '}'"},
      {"policy-statement p { term t { from { med >= ; } } }",
       "t.conf:1:45: expected a med value (a number 0..4294967295), found ';'"},
      {"policy-statement p { term t { from { tag 9-3; } } }",
       "t.conf:1:42: empty range 9-3 (low above high)"},
  };
  for (const auto& c : cases) {
    auto r = Parse(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(std::string(r.status().message()), c.message) << c.text;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

// The three RFC 6811 states, each one word, in from and to blocks.
TEST(Parser, RpkiStates) {
  auto c = Parse(R"(
    policy-statement rov {
      term invalid { from { rpki invalid; } then { reject; } }
      term valid { from { rpki valid; } then { local-pref 200; } }
      term unknown { to { rpki not-found; } then { accept; } }
    }
  )");
  ASSERT_TRUE(c.ok()) << c.status();
  const auto& terms = c->statements[0].terms;
  ASSERT_EQ(terms.size(), 3u);
  const Condition& invalid = terms[0].from.at(0);
  EXPECT_EQ(invalid.kind, MatchKind::kRpki);
  EXPECT_EQ(invalid.comparison.op, CompareOp::kEq);
  EXPECT_EQ(invalid.comparison.a, static_cast<uint32_t>(RpkiValidation::kInvalid));
  EXPECT_EQ(invalid.loc.ToString(), "t.conf:3:29");
  EXPECT_EQ(terms[1].from.at(0).comparison.a, static_cast<uint32_t>(RpkiValidation::kValid));
  EXPECT_EQ(terms[2].to.at(0).kind, MatchKind::kRpki);
  EXPECT_EQ(terms[2].to.at(0).comparison.a, static_cast<uint32_t>(RpkiValidation::kNotFound));
  // The words are exact: no other spelling is a state.
  for (const char* word : {"Valid", "notfound", "not_found", "unknown", "0"}) {
    auto bad = Parse(absl::StrCat("policy-statement p { term t { from { rpki ", word, "; } } }"));
    EXPECT_FALSE(bad.ok()) << word;
  }
}

// The router manager hands over the body of `policy { ... }` from its file.
TEST(Parser, EmbeddedBlockReportsPositionsInTheOuterFile) {
  const std::string file =
      "protocols { bgp { } }\n"
      "policy {\n"
      "    policy-statement p { term t { then { medd 5; } } }\n"
      "}\n";
  const size_t body = file.find("policy {") + 8;
  auto r = ParsePolicy(std::string_view(file).substr(body), SourceLocation{"router.conf", 2, 9},
                       nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().substr(0, 18), "router.conf:3:42: ");
}

TEST(Parser, StopsAtTheClosingBraceOfTheBlock) {
  // What follows the block is not even lexed: an unterminated string there is not our error.
  const std::string text = " prefix-list a { 10.0.0.0/8; } } protocols { \"open }";
  size_t end = 0;
  auto r = ParsePolicy(text, SourceLocation{"router.conf", 5, 9}, &end);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(end, text.find("} protocols"));
  EXPECT_EQ(r->sets.size(), 1u);
  auto missing = ParsePolicy(" prefix-list a { }", SourceLocation{"router.conf", 5, 9}, &end);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(std::string(missing.status().message()),
            "router.conf:5:27: expected '}' closing the policy block, found end of input");
}

TEST(Parser, NeverCrashesOnTruncatedInput) {
  const std::string text = R"(prefix-list b { 10.0.0.0/8 orlonger; ::/0 prefix-length 49-128; }
    as-path-list a { ".* [64512-65534] .*"; }
    policy-statement p { term t {
      from { network4 [ 1.0.0.0/8 exact 2.0.0.0/8 longer ]; community all [ 1:1 2:* ];
             nexthop 192.0.2.0/24; neighbour 10.0.0.1; origin egp; tag != 3; }
      then { community delete [ 65001:* ]; med subtract 3; nexthop self; tag 4; next policy; }
    } })";
  ASSERT_TRUE(Parse(text).ok());
  for (size_t n = 0; n < text.size(); ++n) {
    auto r = Parse(std::string_view(text).substr(0, n));
    if (!r.ok()) {
      EXPECT_EQ(r.status().message().substr(0, 7), "t.conf:") << n;
    }
  }
}

}  // namespace
}  // namespace sluice::policy
