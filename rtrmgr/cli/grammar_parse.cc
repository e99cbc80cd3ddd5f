// ParseForm (grammar.h): recursive descent over the blank-separated tokens of a form.
#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "rtrmgr/cli/grammar.h"

namespace sluice::rtrmgr::cli {
namespace {

using Kind = FormNode::Kind;

absl::Status Bad(std::string_view syntax, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("form \"", std::string(syntax), "\": ", std::string(why)));
}

// Classifies a word token: a keyword, a VALUE, or an error.
absl::StatusOr<Kind> WordKind(std::string_view syntax, std::string_view t) {
  if (t.find_first_of("[]{}|") != std::string_view::npos) {
    return Bad(syntax, absl::StrCat("bracket glued to a word in \"", std::string(t), "\""));
  }
  const bool has_upper = std::any_of(t.begin(), t.end(), absl::ascii_isupper);
  if (!has_upper) return Kind::kKeyword;
  const bool value_chars = std::all_of(t.begin(), t.end(), [](char c) {
    return absl::ascii_isupper(c) || absl::ascii_isdigit(c) || c == '-' || c == '_';
  });
  if (value_chars && absl::ascii_isupper(t[0])) return Kind::kValue;
  return Bad(syntax, absl::StrCat("\"", std::string(t),
                                  "\" is neither a keyword (lower case) nor a VALUE"));
}

class FormParser {
 public:
  FormParser(std::string_view syntax)
      : syntax_(syntax),
        tokens_(absl::StrSplit(absl::string_view(syntax.data(), syntax.size()), ' ',
                               absl::SkipWhitespace())) {}

  absl::StatusOr<FormNode> Parse() {
    if (tokens_.empty()) return Bad(syntax_, "empty");
    absl::StatusOr<FormNode> form = Sequence();
    if (!form.ok()) return form;
    if (pos_ < tokens_.size()) {
      const std::string& t = tokens_[pos_];
      return Bad(syntax_, t == "|" ? "'|' outside brackets" : absl::StrCat("unopened '", t, "'"));
    }
    return form;
  }

 private:
  // Items up to the end or a '|', ']' or '}' (not consumed).
  absl::StatusOr<FormNode> Sequence() {
    FormNode seq{Kind::kSequence, "", {}};
    while (pos_ < tokens_.size()) {
      const std::string& t = tokens_[pos_];
      if (t == "|" || t == "]" || t == "}") break;
      absl::StatusOr<FormNode> item = Item();
      if (!item.ok()) return item;
      seq.children.push_back(*std::move(item));
    }
    return seq;
  }

  absl::StatusOr<FormNode> Item() {
    const std::string& t = tokens_[pos_++];
    if (t == "[" || t == "{") return Group(t == "[" ? Kind::kOptional : Kind::kChoice);
    absl::StatusOr<Kind> kind = WordKind(syntax_, t);
    if (!kind.ok()) return kind.status();
    return FormNode{*kind, t, {}};
  }

  // After '[' or '{': alternatives separated by '|', up to the matching close.
  absl::StatusOr<FormNode> Group(Kind kind) {
    const std::string close = kind == Kind::kOptional ? "]" : "}";
    FormNode group{kind, "", {}};
    while (true) {
      absl::StatusOr<FormNode> alternative = Sequence();
      if (!alternative.ok()) return alternative;
      if (alternative->children.empty()) return Bad(syntax_, "empty alternative");
      group.children.push_back(*std::move(alternative));
      if (pos_ == tokens_.size()) return Bad(syntax_, absl::StrCat("missing '", close, "'"));
      const std::string& t = tokens_[pos_++];
      if (t == close) return group;
      if (t != "|") return Bad(syntax_, absl::StrCat("'", t, "' where '", close, "' belongs"));
    }
  }

  std::string_view syntax_;
  std::vector<std::string> tokens_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<FormNode> ParseForm(std::string_view syntax) { return FormParser(syntax).Parse(); }

}  // namespace sluice::rtrmgr::cli
