#include "policy/lexer.h"

#include "gtest/gtest.h"

namespace sluice::policy {
namespace {

TEST(Lexer, WordsStringsAndPunctuationWithLocations) {
  auto t =
      Lex("prefix-list x {\n  10.0.0.0/8 orlonger; # comment\n  \"a \\\"b\\\"\" ]}", {"f", 1, 1});
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->size(), 10u);
  EXPECT_EQ((*t)[0].text, "prefix-list");
  EXPECT_EQ((*t)[2].kind, TokenKind::kLBrace);
  EXPECT_EQ((*t)[3].text, "10.0.0.0/8");
  EXPECT_EQ((*t)[3].line, 2);
  EXPECT_EQ((*t)[3].column, 3);
  EXPECT_EQ((*t)[5].kind, TokenKind::kSemicolon);
  EXPECT_EQ((*t)[6].kind, TokenKind::kString);
  EXPECT_EQ((*t)[6].text, "a \"b\"");
  EXPECT_EQ((*t)[6].line, 3);
  EXPECT_EQ((*t)[7].kind, TokenKind::kRBracket);
  EXPECT_EQ((*t)[9].kind, TokenKind::kEnd);
}

TEST(Lexer, StartLocationShiftsFirstLineOnly) {
  auto t = Lex("a\n b", {"router.conf", 40, 12});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)[0].line, 40);
  EXPECT_EQ((*t)[0].column, 12);
  EXPECT_EQ((*t)[1].line, 41);
  EXPECT_EQ((*t)[1].column, 2);
}

TEST(Lexer, CommentsAndCommas) {
  auto t = Lex("a /* x\n y */ b // z\n[c,d]", {});
  ASSERT_TRUE(t.ok());
  std::vector<std::string> words;
  for (const auto& tok : *t) {
    if (tok.kind == TokenKind::kWord) words.push_back(tok.text);
  }
  EXPECT_EQ(words, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ((*t)[1].line, 2);
}

TEST(Lexer, ErrorsNameLineAndColumn) {
  auto t = Lex("a\n  \"open", {"p.conf", 1, 1});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(std::string(t.status().message()), "p.conf:2:3: unterminated string (missing '\"')");
  t = Lex("x /* never closed", {"p.conf", 1, 1});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(std::string(t.status().message()), "p.conf:1:3: unterminated comment (missing '*/')");
  t = Lex("ok\x01", {"p.conf", 1, 1});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(std::string(t.status().message()), "p.conf:1:3: unexpected control character 0x01");
}

}  // namespace
}  // namespace sluice::policy
