#include "rtrmgr/config/diagnostics.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace sluice::rtrmgr {

std::string Diagnostic::ToString() const { return absl::StrCat(loc.ToString(), ": ", message); }

void Diagnostics::Add(const Location& loc, std::string message) {
  // A group's statement is checked once per peer of the group: say each error once.
  for (const Diagnostic& d : kept_) {
    if (d.message == message && d.loc.line == loc.line && d.loc.column == loc.column &&
        d.loc.file == loc.file) {
      return;
    }
  }
  ++total_;
  if (kept_.size() < limit_) kept_.push_back(Diagnostic{loc, std::move(message)});
}

namespace {

// Reads "LINE:COL: " at the start of `text`; advances `text` past it.
bool ReadLineColumn(std::string_view* text, int* line, int* column) {
  auto number = [&](int* out) {
    size_t n = 0;
    while (n < text->size() && n < 9 && (*text)[n] >= '0' && (*text)[n] <= '9') ++n;
    if (n == 0 || n >= text->size() || (*text)[n] != ':') return false;
    if (!absl::SimpleAtoi(absl::string_view(text->data(), n), out)) return false;
    text->remove_prefix(n + 1);
    return true;
  };
  if (!number(line) || !number(column)) return false;
  if (!text->empty() && text->front() == ' ') text->remove_prefix(1);
  return true;
}

}  // namespace

void Diagnostics::AddPolicyError(const absl::Status& status, std::string_view file,
                                 const Location& fallback) {
  const std::string whole(status.message());
  std::string_view text = whole;
  const std::string prefix = absl::StrCat(file.empty() ? "<policy>" : std::string(file), ":");
  if (text.substr(0, prefix.size()) == prefix) {
    std::string_view rest = text.substr(prefix.size());
    Location loc{std::string(file), 1, 1};
    if (ReadLineColumn(&rest, &loc.line, &loc.column)) {
      Add(loc, std::string(rest));
      return;
    }
  }
  Add(fallback, whole);
}

std::vector<Diagnostic> Diagnostics::Sorted() const {
  std::vector<Diagnostic> out = kept_;
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.loc.line, a.loc.column) < std::tie(b.loc.line, b.loc.column);
  });
  return out;
}

absl::Status Diagnostics::ToStatus() const {
  if (empty()) return absl::OkStatus();
  std::vector<std::string> lines;
  for (const Diagnostic& d : Sorted()) lines.push_back(d.ToString());
  if (total_ > kept_.size()) {
    lines.push_back(absl::StrCat(total_ - kept_.size(), " more errors not shown"));
  }
  return absl::InvalidArgumentError(absl::StrJoin(lines, "\n"));
}

}  // namespace sluice::rtrmgr
