#include "rtrmgr/cli/shell_keys.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "rtrmgr/cli/shell_line.h"

namespace sluice::rtrmgr::cli {
namespace {

KeyAction Beep() { return KeyAction{"", "", true}; }
KeyAction Type(std::string text) { return KeyAction{std::move(text), "", false}; }
KeyAction Show(std::string text, std::string listing) {
  return KeyAction{std::move(text), std::move(listing), false};
}

// `text` as typed on the line: a backslash before blanks, quotes and backslashes.
std::string Escaped(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == ' ' || ch == '\t' || ch == '\'' || ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

// What all of `words` (which start with `partial`) have in common beyond it, escaped.
std::string Extension(const std::string& partial, const std::vector<std::string>& words) {
  std::string common = words[0];
  for (const std::string& w : words) {
    common.resize(std::mismatch(common.begin(), common.end(), w.begin(), w.end()).first -
                  common.begin());
  }
  return common.size() > partial.size() ? Escaped(common.substr(partial.size())) : "";
}

// Names the first word that fits no form.
std::string FirstMisfit(const Grammar& grammar, const std::vector<std::string>& words) {
  std::vector<std::string> fit;
  for (const std::string& word : words) {
    std::vector<std::string> more = fit;
    more.push_back(word);
    if (!grammar.Complete(more, "").matched) {
      const std::string before = fit.empty() ? "" : absl::StrJoin(fit, " ") + " ";
      return absl::StrCat("  \"", word, "\" does not fit here; `", before, "?` lists what does\n");
    }
    fit = std::move(more);
  }
  return "";
}

std::string Listing(const Grammar& grammar, const Completion& c, const LineSoFar& line) {
  if (!c.matched) return FirstMisfit(grammar, line.words);
  const bool enter = c.complete && !line.in_word;
  if (c.next.empty() && !enter) {
    return absl::StrCat("  nothing starts with \"", line.partial, "\" here\n");
  }
  size_t width = 7;  // "<Enter>"
  for (const Candidate& n : c.next) width = std::max(width, n.word.size());
  std::string text = "Possible completions:\n";
  for (const Candidate& n : c.next) {
    absl::StrAppend(&text, "  ", n.word, std::string(width + 3 - n.word.size(), ' '), n.help, "\n");
  }
  if (enter) absl::StrAppend(&text, "  <Enter>", std::string(width - 4, ' '), "run the command\n");
  return text;
}

KeyAction TabFile(const std::string& partial) {
  const std::vector<std::string> paths = FileCandidates(partial);
  if (paths.empty()) return Beep();
  if (paths.size() == 1) {
    const std::string& path = paths[0];
    return Type(Escaped(path.substr(partial.size())) + (path.ends_with('/') ? "" : " "));
  }
  KeyAction action = Type(Extension(partial, paths));
  for (const std::string& path : paths) {
    const size_t slash = path.find_last_of('/', path.size() - 2);
    absl::StrAppend(&action.listing, "  ",
                    slash == std::string::npos ? path : path.substr(slash + 1));
  }
  action.listing += "\n";
  return action;
}

}  // namespace

KeyAction OnTab(const Grammar& grammar, const LineSoFar& line) {
  if (line.in_quotes) return Beep();
  const Completion c = grammar.Complete(line.words, line.partial);
  std::vector<std::string> keywords;
  for (const Candidate& n : c.next) {
    if (!n.is_value) keywords.push_back(n.word);
  }
  const bool values = keywords.size() < c.next.size();
  const bool files = !c.next.empty() && std::all_of(c.next.begin(), c.next.end(), [](auto& n) {
    return n.is_value && n.word == "FILE";
  });
  if (files) return TabFile(line.partial);
  if (keywords.size() == 1 && (!values || !line.partial.empty())) {
    return Type(keywords[0].substr(line.partial.size()) + " ");
  }
  if (keywords.empty() && (!values || !line.partial.empty())) return Beep();
  return Show(keywords.empty() ? "" : Extension(line.partial, keywords), Listing(grammar, c, line));
}

KeyAction OnQuestion(const Grammar& grammar, const LineSoFar& line) {
  if (line.in_quotes) return Type("?");
  const Completion c = grammar.Complete(line.words, line.partial);
  const bool keyword =
      std::any_of(c.next.begin(), c.next.end(), [](auto& n) { return !n.is_value; });
  if (!line.partial.empty() && c.matched && !keyword && !c.next.empty()) return Type("?");
  return Show("", Listing(grammar, c, line));
}

}  // namespace sluice::rtrmgr::cli
