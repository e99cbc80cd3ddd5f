#include "policy/as_path_regex.h"

#include <regex>

#include "gtest/gtest.h"

namespace sluice::policy {
namespace {

bool M(std::string_view re, std::string_view path) {
  auto r = AsPathRegex::Compile(re);
  EXPECT_TRUE(r.ok()) << r.status();
  auto p = AsPath::Parse(path);
  EXPECT_TRUE(p.ok()) << p.status();
  return r->Matches(p->view());
}

TEST(AsPathRegex, WholePathSemantics) {
  EXPECT_TRUE(M("1 2 3", "1 2 3"));
  EXPECT_FALSE(M("1 2", "1 2 3"));
  EXPECT_FALSE(M("2 3", "1 2 3"));
  EXPECT_TRUE(M("^1 2 3$", "1 2 3"));
  EXPECT_TRUE(M(".* 3", "1 2 3"));
  EXPECT_TRUE(M("1 .*", "1 2 3"));
  EXPECT_TRUE(M(".* 2 .*", "1 2 3"));
  EXPECT_FALSE(M(".* 4 .*", "1 2 3"));
}

TEST(AsPathRegex, AsNumbersAreSymbolsNotDigits) {
  EXPECT_FALSE(M(".* 174 .*", "1740 2"));
  EXPECT_FALSE(M(".* 74 .*", "174"));
  EXPECT_TRUE(M(".* 174 .*", "1 174 2"));
}

TEST(AsPathRegex, Operators) {
  EXPECT_TRUE(M("1 (2|3) 4", "1 3 4"));
  EXPECT_FALSE(M("1 (2|3) 4", "1 5 4"));
  EXPECT_TRUE(M("1 2+ 4", "1 2 2 2 4"));
  EXPECT_FALSE(M("1 2+ 4", "1 4"));
  EXPECT_TRUE(M("1 2? 4", "1 4"));
  EXPECT_TRUE(M("1 2* 4", "1 4"));
  EXPECT_TRUE(M("1 2{2} 4", "1 2 2 4"));
  EXPECT_FALSE(M("1 2{2} 4", "1 2 4"));
  EXPECT_TRUE(M("1 2{1,} 4", "1 2 2 2 2 4"));
  EXPECT_FALSE(M("1 2{1,2} 4", "1 2 2 2 4"));
  EXPECT_TRUE(M("(1 2)+", "1 2 1 2"));
  EXPECT_FALSE(M("(1 2)+", "1 2 1"));
  EXPECT_TRUE(M("64512-65534 .*", "65000 1"));
  EXPECT_TRUE(M("[1 5-7] 9", "6 9"));
  EXPECT_FALSE(M("[1 5-7] 9", "4 9"));
  EXPECT_TRUE(M("[^1 5-7] 9", "4 9"));
  EXPECT_FALSE(M("[^1 5-7] 9", "1 9"));
  EXPECT_TRUE(M("", ""));
  EXPECT_FALSE(M("", "1"));
  EXPECT_TRUE(M(".*", ""));
}

// Ranges against their definition for AS numbers on both sides of every edge, small and
// 4-octet (the class lookup has a table for numbers below 65536 and a search above).
TEST(AsPathRegex, RangesAtTheirEdges) {
  auto re = AsPathRegex::Compile("[1000-1999 40000-40015 65535 70000-4200000000] .*");
  ASSERT_TRUE(re.ok());
  auto inside = [](uint32_t a) {
    return (a >= 1000 && a <= 1999) || (a >= 40000 && a <= 40015) || a == 65535 ||
           (a >= 70000 && a <= 4200000000u);
  };
  for (uint32_t edge :
       {0u, 1000u, 2000u, 40000u, 40016u, 65535u, 65536u, 70000u, 4200000000u, 4294967295u}) {
    for (uint32_t a : {edge - 1, edge, edge + 1}) {
      const uint32_t path[] = {a, 7};
      EXPECT_EQ(re->Matches(path), inside(a)) << a;
    }
  }
}

TEST(AsPathRegex, SetsAndConfederationsAreSymbolsInOrder) {
  EXPECT_TRUE(M("1 2 3", "1 {2 3}"));
  EXPECT_TRUE(M(".* 65001 .*", "(65001) 1"));
}

TEST(AsPathRegex, ErrorsGiveOffsets) {
  size_t offset = 99;
  auto r = AsPathRegex::Compile("1 (2 3", &offset);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(offset, 6u);
  EXPECT_FALSE(AsPathRegex::Compile("1 ) 2", &offset).ok());
  EXPECT_EQ(offset, 2u);
  EXPECT_FALSE(AsPathRegex::Compile("1 $ 2", &offset).ok());
  EXPECT_EQ(offset, 2u);
  EXPECT_FALSE(AsPathRegex::Compile("5-3", &offset).ok());
  EXPECT_EQ(offset, 0u);
  EXPECT_FALSE(AsPathRegex::Compile("1 x", &offset).ok());
  EXPECT_EQ(offset, 2u);
  EXPECT_FALSE(AsPathRegex::Compile("1{3,2}").ok());
  EXPECT_FALSE(AsPathRegex::Compile("[]").ok());
  EXPECT_FALSE(AsPathRegex::Compile("99999999999").ok());
  EXPECT_FALSE(AsPathRegex::Compile("(.{255}){255}").ok());  // too many positions
  EXPECT_FALSE(AsPathRegex::Compile(std::string(100000, '(')).ok());
  EXPECT_FALSE(AsPathRegex::Compile(std::string(100000, '*')).ok());
  EXPECT_FALSE(AsPathRegex::Compile("1" + std::string(100000, '*')).ok());
  EXPECT_TRUE(AsPathRegex::Compile("1**").ok());
}

// A DFA that would take long to build (500 alternatives of 500 classes, then twelve more
// symbols) is not built: the position automaton answers, and answers right.
TEST(AsPathRegex, CostlyDfaFallsBackToThePositionAutomaton) {
  std::string text = "(1";
  for (int i = 2; i < 500; ++i) text += "|" + std::to_string(i);
  text += ")* . . . . . . . . . . . .";
  auto re = AsPathRegex::Compile(text);
  ASSERT_TRUE(re.ok()) << re.status();
  EXPECT_EQ(re->dfa_states(), 0);
  std::vector<uint32_t> path = {7, 499, 3};
  path.insert(path.end(), 12, 600);
  EXPECT_TRUE(re->Matches(path));
  path[1] = 500;
  EXPECT_FALSE(re->Matches(path));
  path.erase(path.begin(), path.begin() + 3);
  EXPECT_TRUE(re->Matches(path));
  path.pop_back();
  EXPECT_FALSE(re->Matches(path));
}

// One predicate of many ranges repeated to a thousand positions is tested once per class, not
// once per position.
TEST(AsPathRegex, RepeatedSetsOfManyRanges) {
  std::string set = "[";
  for (int i = 0; i < 400; ++i) set += std::to_string(2 * i + 1) + " ";
  set += "]";
  auto re = AsPathRegex::Compile("(" + set + "{255}){4}");
  ASSERT_TRUE(re.ok()) << re.status();
  EXPECT_EQ(re->positions(), 1020);
  std::vector<uint32_t> path(1020);
  for (size_t i = 0; i < path.size(); ++i) path[i] = 2 * (i % 400) + 1;
  EXPECT_TRUE(re->Matches(path));
  path[500] = 2;
  EXPECT_FALSE(re->Matches(path));
}

// Repetitions of parts that match only the empty path make no positions, but expanding them
// nested is 255^5 steps: refused instead of compiling for hours.
TEST(AsPathRegex, NestedRepetitionsOfNothingAreTooLarge) {
  auto re = AsPathRegex::Compile("(((((){255}){255}){255}){255}){255} 1");
  ASSERT_FALSE(re.ok());
  EXPECT_NE(re.status().message().find("expression too large"), std::string::npos) << re.status();
  // A few levels of the same stay fine.
  auto small = AsPathRegex::Compile("((){255}){255} 1");
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_TRUE(small->Matches(std::vector<uint32_t>{1}));
}

// Cross-check against std::regex on the textual path for random paths.
TEST(AsPathRegex, AgreesWithStdRegexOnTextualPaths) {
  const std::pair<const char*, const char*> cases[] = {
      {".* (1|2) .*", "^(.* )?(1|2)( .*)?$"},
      {"3 .*", "^3( .*)?$"},
      {".* 4", "^(.* )?4$"},
      {"1 2* 3", "^1( 2)* 3$"},
  };
  uint32_t seed = 12345;
  auto next = [&] { return (seed = seed * 1103515245 + 12345) >> 16; };
  for (const auto& [ours, theirs] : cases) {
    auto re = AsPathRegex::Compile(ours);
    ASSERT_TRUE(re.ok());
    std::regex std_re(theirs);
    for (int i = 0; i < 500; ++i) {
      std::vector<uint32_t> symbols;
      std::string text;
      const int n = 1 + next() % 5;
      for (int k = 0; k < n; ++k) {
        symbols.push_back(1 + next() % 4);
        text += (k ? " " : "") + std::to_string(symbols.back());
      }
      EXPECT_EQ(re->Matches(symbols), std::regex_match(text, std_re)) << ours << " on " << text;
    }
  }
}

// ".* 1 ." followed by twelve more "." needs 2^13 DFA states: it runs as a position automaton,
// with the same answers.
TEST(AsPathRegex, LargeDfaFallsBackToThePositionAutomaton) {
  auto big = AsPathRegex::Compile(".* 1 . . . . . . . . . . . . .");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->dfa_states(), 0);
  auto small = AsPathRegex::Compile(".* 1 . .");
  ASSERT_TRUE(small.ok());
  EXPECT_GT(small->dfa_states(), 0);
  std::regex big_std("^(.* )?1( [0-9]+){13}$");
  uint32_t seed = 99;
  auto next = [&] { return (seed = seed * 1103515245 + 12345) >> 16; };
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint32_t> symbols;
    std::string text;
    const int n = 10 + next() % 10;
    for (int k = 0; k < n; ++k) {
      symbols.push_back(1 + next() % 2);
      text += (k ? " " : "") + std::to_string(symbols.back());
    }
    EXPECT_EQ(big->Matches(symbols), std::regex_match(text, big_std)) << text;
  }
}

}  // namespace
}  // namespace sluice::policy
