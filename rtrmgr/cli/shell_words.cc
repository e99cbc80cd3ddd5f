#include "rtrmgr/cli/shell_words.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"

namespace sluice::rtrmgr::cli {
namespace {

struct Scan {
  std::vector<std::string> words;  // finished
  std::string current;             // the word being read
  bool in_word = false;
  char quote = 0;  // '\'' or '"' while inside one
  bool dangling_backslash = false;
};

Scan ScanLine(std::string_view s) {
  Scan scan;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (scan.quote == '\'') {
      if (c == '\'')
        scan.quote = 0;
      else
        scan.current += c;
    } else if (scan.quote == '"') {
      if (c == '"') {
        scan.quote = 0;
      } else if (c == '\\' && i + 1 < s.size() && (s[i + 1] == '"' || s[i + 1] == '\\')) {
        scan.current += s[++i];
      } else {
        scan.current += c;
      }
    } else if (c == '\\') {
      scan.in_word = true;
      if (i + 1 == s.size()) {
        scan.dangling_backslash = true;
      } else {
        scan.current += s[++i];
      }
    } else if (c == '\'' || c == '"') {
      scan.quote = c;
      scan.in_word = true;
    } else if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
      if (scan.in_word) scan.words.push_back(std::move(scan.current));
      scan.current.clear();
      scan.in_word = false;
    } else {
      scan.current += c;
      scan.in_word = true;
    }
  }
  return scan;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> SplitWords(std::string_view line) {
  Scan scan = ScanLine(line);
  if (scan.quote != 0) {
    return absl::InvalidArgumentError(std::string("unterminated ") + scan.quote);
  }
  if (scan.dangling_backslash) return absl::InvalidArgumentError("backslash at the end");
  if (scan.in_word) scan.words.push_back(std::move(scan.current));
  return std::move(scan.words);
}

LineSoFar SplitForCompletion(std::string_view before_cursor) {
  Scan scan = ScanLine(before_cursor);
  LineSoFar out;
  out.words = std::move(scan.words);
  out.partial = std::move(scan.current);
  out.in_quotes = scan.quote != 0;
  out.in_word = scan.in_word;
  return out;
}

}  // namespace sluice::rtrmgr::cli
