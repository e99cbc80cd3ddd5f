#include "rtrmgr/cli/line_diff.h"

#include "absl/strings/str_split.h"

namespace sluice::rtrmgr::cli {
namespace {

constexpr size_t kMaxLines = 4000;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out = absl::StrSplit(text, '\n');
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

}  // namespace

std::vector<DiffLine> LineDiff(const std::string& before, const std::string& after) {
  const std::vector<std::string> a = Lines(before), b = Lines(after);
  const size_t n = a.size(), m = b.size();
  std::vector<DiffLine> out;
  if (n > kMaxLines || m > kMaxLines) {
    if (a == b) {
      for (size_t j = 0; j < m; ++j) out.push_back({' ', j + 1, b[j]});
      return out;
    }
    for (size_t i = 0; i < n; ++i) out.push_back({'-', i + 1, a[i]});
    for (size_t j = 0; j < m; ++j) out.push_back({'+', j + 1, b[j]});
    return out;
  }
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      at(i, j) = a[i] == b[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    }
  }
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      out.push_back({' ', j + 1, b[j]});
      ++i, ++j;
    } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
      out.push_back({'-', i + 1, a[i]});
      ++i;
    } else {
      out.push_back({'+', j + 1, b[j]});
      ++j;
    }
  }
  return out;
}

std::string FormatDiff(const std::vector<DiffLine>& diff, size_t context) {
  std::vector<bool> show(diff.size(), false);
  for (size_t k = 0; k < diff.size(); ++k) {
    if (diff[k].op == ' ') continue;
    const size_t from = k >= context ? k - context : 0;
    for (size_t x = from; x < diff.size() && x <= k + context; ++x) show[x] = true;
  }
  std::string out;
  bool skipped = false;
  for (size_t k = 0; k < diff.size(); ++k) {
    if (!show[k]) {
      skipped = true;
      continue;
    }
    if (skipped && !out.empty()) out += "...\n";
    skipped = false;
    out += diff[k].op == ' ' ? "  " : std::string(1, diff[k].op) + " ";
    out += diff[k].text + "\n";
  }
  return out;
}

}  // namespace sluice::rtrmgr::cli
