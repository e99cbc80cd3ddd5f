#pragma once
// A line diff of two texts (a longest common subsequence), for `sluice show configuration diff`.

#include <string>
#include <vector>

namespace sluice::rtrmgr::cli {

struct DiffLine {
  char op;           // ' ' in both, '-' only in `before`, '+' only in `after`
  size_t line;       // 1-based: in `after` for ' ' and '+', in `before` for '-'
  std::string text;  // without the newline
};

// Every line of both texts in order, each marked. Past 4,000 lines on each side the texts are
// compared as wholes: every line of `before` removed and every line of `after` added, unless
// they are equal.
std::vector<DiffLine> LineDiff(const std::string& before, const std::string& after);

// The changed lines with `context` unchanged lines around each run, "- " / "+ " / "  " first,
// and "..." where lines are skipped; "" when nothing changed.
std::string FormatDiff(const std::vector<DiffLine>& diff, size_t context = 3);

}  // namespace sluice::rtrmgr::cli
