#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rtrmgr/cli/command.h"
#include "rtrmgr/cli/grammar.h"
#include "rtrmgr/cli/shell_words.h"

namespace sluice::rtrmgr::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::IsSupersetOf;

std::vector<std::string> Words(const Completion& c) {
  std::vector<std::string> out;
  for (const Candidate& n : c.next) out.push_back(n.word);
  return out;
}

std::string HelpOf(const Completion& c, const std::string& word) {
  for (const Candidate& n : c.next) {
    if (n.word == word) return n.help;
  }
  return "(not offered)";
}

// A table whose forms use every construct, with help lines the assertions can name.
const std::vector<Command>& TestTable() {
  static const std::vector<Command> table = {
      {"show",
       "operational views",
       {
           {"show bgp peers [ --json ]", "help: peers"},
           {"show bgp routes [ PREFIX ] [ peer ADDR ] [ in | out ] [ --json ]", "help: routes"},
           {"show plumbing { bgp | rib | fea } [ --json ]", "help: plumbing"},
       },
       nullptr},
      {"configure",
       "change the configuration",
       {
           {"configure load FILE [ --check | --confirm MINUTES ]", "help: load"},
           {"configure rollback [ N ]", "help: rollback"},
       },
       nullptr},
  };
  return table;
}

Grammar TestGrammar() {
  absl::StatusOr<Grammar> g = Grammar::Build(TestTable());
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

TEST(CliGrammarTest, EveryFormOfTheCommandTableParsesAndStartsWithItsCommand) {
  ASSERT_FALSE(Commands().empty());
  for (const Command& command : Commands()) {
    ASSERT_FALSE(command.forms.empty()) << command.name;
    for (const Form& form : command.forms) {
      absl::StatusOr<FormNode> tree = ParseForm(form.syntax);
      ASSERT_TRUE(tree.ok()) << tree.status();
      ASSERT_FALSE(tree->children.empty()) << form.syntax;
      EXPECT_EQ(tree->children.front().kind, FormNode::Kind::kKeyword) << form.syntax;
      EXPECT_EQ(tree->children.front().text, command.name) << form.syntax;
      EXPECT_STRNE(form.help, "") << form.syntax;
    }
  }
  absl::StatusOr<Grammar> g = Grammar::Build(Commands());
  EXPECT_TRUE(g.ok()) << g.status();
}

TEST(CliGrammarTest, MalformedFormsAreRefusedNamingTheProblem) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "empty"},
      {"   ", "empty"},
      {"show [ --json", "missing ']'"},
      {"show { bgp | rib", "missing '}'"},
      {"show --json ]", "unopened ']'"},
      {"show bgp }", "unopened '}'"},
      {"show { bgp | }", "empty alternative"},
      {"show [ ]", "empty alternative"},
      {"show { | bgp }", "empty alternative"},
      {"show bgp | rib", "'|' outside brackets"},
      {"show { bgp ]", "']' where '}' belongs"},
      {"show [ bgp }", "'}' where ']' belongs"},
      {"show [--json]", "glued"},
      {"show bgp|rib", "glued"},
      {"show Peers", "neither"},
      {"show 1ADDR", "neither"},
  };
  for (const auto& [syntax, why] : bad) {
    absl::StatusOr<FormNode> tree = ParseForm(syntax);
    ASSERT_FALSE(tree.ok()) << "\"" << syntax << "\" parsed";
    EXPECT_THAT(tree.status().message(), HasSubstr(why)) << syntax;
  }
}

TEST(CliGrammarTest, ATableWithABadFormIsRefusedNamingTheCommand) {
  const std::vector<Command> broken = {{"show", "s", {{"show [ x", "h"}}, nullptr}};
  absl::StatusOr<Grammar> g = Grammar::Build(broken);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("command show"));
  const std::vector<Command> misnamed = {{"show", "s", {{"shwo bgp", "h"}}, nullptr}};
  g = Grammar::Build(misnamed);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("does not start with show"));
}

TEST(CliGrammarTest, AFormParsesIntoKeywordsValuesAndBrackets) {
  absl::StatusOr<FormNode> tree =
      ParseForm("show bgp neighbor ADDR [ received-routes | advertised-routes ] { a | b c }");
  ASSERT_TRUE(tree.ok()) << tree.status();
  using K = FormNode::Kind;
  const std::vector<FormNode>& items = tree->children;
  ASSERT_EQ(items.size(), 6u);
  EXPECT_EQ(items[2].kind, K::kKeyword);
  EXPECT_EQ(items[3].kind, K::kValue);
  EXPECT_EQ(items[3].text, "ADDR");
  EXPECT_EQ(items[4].kind, K::kOptional);
  ASSERT_EQ(items[4].children.size(), 2u);
  EXPECT_EQ(items[4].children[1].children.at(0).text, "advertised-routes");
  EXPECT_EQ(items[5].kind, K::kChoice);
  EXPECT_EQ(items[5].children[1].children.size(), 2u);
}

TEST(CliGrammarTest, FirstWordsAreTheCommandsWithTheirSummaries) {
  Grammar g = TestGrammar();
  Completion c = g.Complete({}, "");
  EXPECT_TRUE(c.matched);
  EXPECT_FALSE(c.complete);
  EXPECT_THAT(Words(c), ElementsAre("configure", "show"));
  EXPECT_EQ(HelpOf(c, "show"), "operational views");
  EXPECT_THAT(Words(g.Complete({}, "sh")), ElementsAre("show"));
  EXPECT_THAT(Words(g.Complete({}, "x")), IsEmpty());
}

TEST(CliGrammarTest, APartialWordNarrowsTheKeywords) {
  Grammar g = TestGrammar();
  Completion c = g.Complete({"show", "bgp"}, "pe");
  EXPECT_THAT(Words(c), ElementsAre("peers"));
  EXPECT_EQ(HelpOf(c, "peers"), "help: peers");
  EXPECT_THAT(Words(g.Complete({"show", "bgp"}, "")), ElementsAre("peers", "routes"));
  EXPECT_THAT(Words(g.Complete({"show"}, "p")), ElementsAre("plumbing"));
}

TEST(CliGrammarTest, AKeywordOfSeveralFormsIsHelpedByWhatMayFollowIt) {
  Completion c = TestGrammar().Complete({"show"}, "");
  EXPECT_THAT(Words(c), ElementsAre("bgp", "plumbing"));
  EXPECT_EQ(HelpOf(c, "bgp"), "peers | routes");
  EXPECT_EQ(HelpOf(c, "plumbing"), "help: plumbing");
}

TEST(CliGrammarTest, AKeywordOfSeveralFormsOneOfWhichMayEndThereHasThatFormsHelp) {
  const std::vector<Command> table = {{"show",
                                       "s",
                                       {{"show route [ PREFIX ]", "help: winners"},
                                        {"show route summary", "help: summary"},
                                        {"show route for ADDR", "help: for"}},
                                       nullptr}};
  absl::StatusOr<Grammar> g = Grammar::Build(table);
  ASSERT_TRUE(g.ok()) << g.status();
  Completion c = g->Complete({"show"}, "");
  EXPECT_EQ(HelpOf(c, "route"), "help: winners");
  c = g->Complete({"show", "route"}, "");
  EXPECT_TRUE(c.complete);
  EXPECT_EQ(HelpOf(c, "summary"), "help: summary");
  EXPECT_EQ(HelpOf(c, "PREFIX"), "help: winners");
}

TEST(CliGrammarTest, OptionalsInOrderThenEnter) {
  Grammar g = TestGrammar();
  Completion c = g.Complete({"show", "bgp", "routes"}, "");
  EXPECT_TRUE(c.complete);
  EXPECT_THAT(Words(c), ElementsAre("in", "out", "peer", "--json", "PREFIX"));
  EXPECT_TRUE(c.next.back().is_value);
  c = g.Complete({"show", "bgp", "routes", "10.0.0.0/8"}, "");
  EXPECT_TRUE(c.complete);
  EXPECT_THAT(Words(c), ElementsAre("in", "out", "peer", "--json"));
  c = g.Complete({"show", "bgp", "routes", "10.0.0.0/8", "in"}, "");
  EXPECT_THAT(Words(c), ElementsAre("--json"));
  c = g.Complete({"show", "bgp", "routes", "--json"}, "");
  EXPECT_TRUE(c.complete);
  EXPECT_THAT(Words(c), IsEmpty());
}

TEST(CliGrammarTest, AWordThatIsAKeywordHereIsNeverTakenAsAValue) {
  // "peer" could be a PREFIX by shape; it is the keyword, so only its ADDR may follow.
  Completion c = TestGrammar().Complete({"show", "bgp", "routes", "peer"}, "");
  EXPECT_FALSE(c.complete);
  EXPECT_THAT(Words(c), ElementsAre("ADDR"));
}

TEST(CliGrammarTest, ChoicesAreRequiredAndAtMostOneOptionalAlternative) {
  Grammar g = TestGrammar();
  Completion c = g.Complete({"show", "plumbing"}, "");
  EXPECT_FALSE(c.complete);
  EXPECT_THAT(Words(c), ElementsAre("bgp", "fea", "rib"));
  EXPECT_TRUE(g.Complete({"show", "plumbing", "rib"}, "").complete);
  c = g.Complete({"configure", "load", "a.conf"}, "");
  EXPECT_TRUE(c.complete);
  EXPECT_THAT(Words(c), ElementsAre("--check", "--confirm"));
  EXPECT_THAT(Words(g.Complete({"configure", "load", "a.conf", "--check"}, "")), IsEmpty());
  c = g.Complete({"configure", "load", "a.conf", "--confirm"}, "");
  EXPECT_THAT(Words(c), ElementsAre("MINUTES"));
  EXPECT_EQ(HelpOf(c, "MINUTES"), "help: load");
}

TEST(CliGrammarTest, WordsThatFitNoFormMatchNothing) {
  Grammar g = TestGrammar();
  EXPECT_FALSE(g.Complete({"show", "nonsense"}, "").matched);
  EXPECT_FALSE(g.Complete({"frobnicate"}, "").matched);
  EXPECT_FALSE(g.Complete({"show", "bgp", "peers", "--json", "more"}, "").matched);
  EXPECT_THAT(Words(g.Complete({"show", "nonsense"}, "")), IsEmpty());
  // A value where a keyword is required.
  EXPECT_FALSE(g.Complete({"show", "plumbing", "ospf"}, "").matched);
}

TEST(CliGrammarTest, ValuesAreOfferedWhateverThePartialWord) {
  Completion c = TestGrammar().Complete({"configure", "load"}, "/etc/sl");
  EXPECT_THAT(Words(c), ElementsAre("FILE"));
  EXPECT_TRUE(c.next[0].is_value);
}

TEST(CliGrammarTest, TheRealTableOffersItsVerbsAndShowBgpPeers) {
  absl::StatusOr<Grammar> g = Grammar::Build(Commands());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(Words(g->Complete({}, "")),
              IsSupersetOf({"call", "configure", "profile", "show", "targets"}));
  EXPECT_THAT(Words(g->Complete({"show", "bgp"}, "pe")), ElementsAre("peers"));
  EXPECT_TRUE(g->Complete({"targets"}, "").complete);
  EXPECT_THAT(Words(g->Complete({"call"}, "")), IsSupersetOf({"-f", "XRL"}));
}

TEST(CliGrammarTest, TheRealTableOffersTheRpkiForms) {
  absl::StatusOr<Grammar> g = Grammar::Build(Commands());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(Words(g->Complete({"show"}, "rp")), ElementsAre("rpki"));
  EXPECT_THAT(Words(g->Complete({"show", "rpki"}, "")), IsSupersetOf({"vrps", "--json"}));
  EXPECT_TRUE(g->Complete({"show", "rpki"}, "").complete);
  EXPECT_THAT(Words(g->Complete({"show", "rpki", "vrps"}, "")), IsSupersetOf({"PREFIX"}));
  EXPECT_THAT(Words(g->Complete({"show", "bgp", "routes"}, "")), IsSupersetOf({"rpki"}));
  EXPECT_THAT(Words(g->Complete({"show", "bgp", "routes", "rpki"}, "")),
              ElementsAre("invalid", "not-found", "valid"));
  EXPECT_TRUE(g->Complete({"show", "bgp", "routes", "rpki", "invalid"}, "").complete);
  EXPECT_THAT(
      Words(g->Complete({"show", "bgp", "neighbor", "192.0.2.1", "received-routes", "rpki"}, "")),
      ElementsAre("invalid", "not-found", "valid"));
}

TEST(ShellWordsTest, BlanksSeparateAndQuotesJoin) {
  EXPECT_THAT(*SplitWords("  show   bgp\tpeers "), ElementsAre("show", "bgp", "peers"));
  EXPECT_THAT(*SplitWords(""), IsEmpty());
  EXPECT_THAT(*SplitWords("call 'finder://rib/x?a:txt=b c&d'"),
              ElementsAre("call", "finder://rib/x?a:txt=b c&d"));
  EXPECT_THAT(*SplitWords(R"(a "b \"c\" \\ \d" e\ f '' g)"),
              ElementsAre("a", R"(b "c" \ \d)", "e f", "", "g"));
  EXPECT_THAT(*SplitWords(R"(x'y'"z")"), ElementsAre("xyz"));
}

TEST(ShellWordsTest, UnterminatedQuotesAndTrailingBackslashAreErrors) {
  EXPECT_FALSE(SplitWords("call 'finder://x").ok());
  EXPECT_FALSE(SplitWords("show \"bgp").ok());
  EXPECT_FALSE(SplitWords("show \\").ok());
}

TEST(ShellWordsTest, TheLineSoFarSplitsOffThePartialWord) {
  LineSoFar s = SplitForCompletion("show bgp pe");
  EXPECT_THAT(s.words, ElementsAre("show", "bgp"));
  EXPECT_EQ(s.partial, "pe");
  EXPECT_TRUE(s.in_word);
  EXPECT_FALSE(s.in_quotes);
  s = SplitForCompletion("show bgp ");
  EXPECT_THAT(s.words, ElementsAre("show", "bgp"));
  EXPECT_EQ(s.partial, "");
  EXPECT_FALSE(s.in_word);
  s = SplitForCompletion("call 'finder://rib/x");
  EXPECT_THAT(s.words, ElementsAre("call"));
  EXPECT_EQ(s.partial, "finder://rib/x");
  EXPECT_TRUE(s.in_quotes);
  s = SplitForCompletion("");
  EXPECT_THAT(s.words, IsEmpty());
  EXPECT_FALSE(s.in_word);
}

}  // namespace
}  // namespace sluice::rtrmgr::cli
