#include "base/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/log_hook.h"

namespace sluice::base {

std::string HumanCount(double n) {
  if (!std::isfinite(n) || n < 0) return "?";
  if (n < 1000) return absl::StrFormat("%.0f", n);
  static constexpr const char* kUnits[] = {"k", "M", "G", "T"};
  int unit = -1;
  while (n >= 999.95 && unit < 3) {
    n /= 1000;
    ++unit;
  }
  // Three significant digits (absl::StrFormat takes only a constant format).
  if (n < 9.995) return absl::StrFormat("%.2f%s", n, kUnits[unit]);
  if (n < 99.95) return absl::StrFormat("%.1f%s", n, kUnits[unit]);
  return absl::StrFormat("%.0f%s", n, kUnits[unit]);
}

std::string FormatEta(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--";
  const auto s = static_cast<uint64_t>(std::llround(seconds));
  if (s >= 3600) return absl::StrFormat("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  return absl::StrFormat("%d:%02d", s / 60, s % 60);
}

std::string FormatProgress(const Progress& p) {
  std::string tail;
  double fraction = 0;
  if (p.total > 0) {
    fraction = std::min(1.0, double(p.done) / double(p.total));
    absl::StrAppend(&tail, absl::StrFormat(" %5.1f%%  ", 100 * fraction), HumanCount(p.done), "/",
                    HumanCount(p.total));
  } else {
    absl::StrAppend(&tail, "  ", HumanCount(p.done));
  }
  absl::StrAppend(&tail, " ", std::string(p.unit), "  ", HumanCount(p.rate_per_s), "/s");
  if (p.total > 0) {
    const double left = p.done >= p.total ? 0 : double(p.total - p.done);
    absl::StrAppend(&tail, "  ETA ",
                    left == 0          ? FormatEta(0)
                    : p.rate_per_s > 0 ? FormatEta(left / p.rate_per_s)
                                       : "--");
  }
  if (!p.note.empty()) absl::StrAppend(&tail, "  ", std::string(p.note));
  std::string line(p.label);
  if (p.total > 0) {
    // A bar of fixed length, so that it does not jump as the numbers after it change.
    const size_t cells = p.width >= 80 ? 20 : 10;
    const auto full = static_cast<size_t>(fraction * double(cells));
    absl::StrAppend(&line, " [", std::string(full, '#'), std::string(cells - full, '-'), "]");
  }
  absl::StrAppend(&line, tail);
  if (line.size() > p.width) line.resize(p.width);
  return line;
}

ProgressLine::ProgressLine(FILE* out) : out_(out), terminal_(isatty(fileno(out)) == 1) {
  if (!terminal_) return;
  SetStderrLogHook([this] {
    if (!drawn_.exchange(false)) return;
    std::fputs("\r\x1b[K", out_);
    std::fflush(out_);
  });
}

ProgressLine::~ProgressLine() {
  if (terminal_) SetStderrLogHook(nullptr);
  Finish();
}

void ProgressLine::Update(const std::string& bar, const std::string& plain) {
  if (terminal_) {
    // Cut to the terminal's width: a wrapped line would not be redrawn in place.
    winsize size{};
    std::string shown = bar;
    if (ioctl(fileno(out_), TIOCGWINSZ, &size) == 0 && size.ws_col > 1 &&
        shown.size() >= size.ws_col) {
      shown.resize(size.ws_col - 1);
    }
    std::fprintf(out_, "\r%s\x1b[K", shown.c_str());
    drawn_ = true;
  } else {
    std::fprintf(out_, "%s\n", plain.c_str());
  }
  std::fflush(out_);
}

void ProgressLine::Finish() {
  if (!drawn_.exchange(false)) return;
  std::fputc('\n', out_);
  std::fflush(out_);
}

}  // namespace sluice::base
