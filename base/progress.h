#pragma once
// A one-line progress bar for long runs (sluice-replay, sluice-mainjob). On a terminal the line is
// redrawn in place ("\r", erase to the end of the line); elsewhere (a file, a pipe) each update
// is a plain line of its own, as before, so logs stay readable.
//
//   base::ProgressLine line(stderr);
//   base::Progress p;
//   p.label = "sluice-replay", p.done = n, p.total = t, p.rate_per_s = r;
//   line.Update(base::FormatProgress(p), plain_text);
//   line.Finish();  // ends the redrawn line with a newline
//
// FormatProgress gives, in at most `width` columns (a 20-cell bar; 10 under 80 columns):
//   sluice-replay [##########----------]  50.0%  500.0k/1.0M prefixes  98.1k/s  ETA 0:05
// Without a total (0): no bar, percentage or ETA. Without a rate (0): "ETA --".

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace sluice::base {

struct Progress {
  std::string_view label;  // "sluice-replay"
  uint64_t done = 0;       // units so far
  uint64_t total = 0;      // units expected; 0: unknown
  double rate_per_s = 0;   // units per second, recently
  std::string_view unit = "prefixes";
  std::string_view note;  // appended as is ("3 of 3 sessions")
  size_t width = 160;     // columns available (ProgressLine also cuts to the terminal)
};

// The line, without a newline. Pure: for tests.
std::string FormatProgress(const Progress& p);
// 999, 1.2k, 45.0k, 1.2M, 3.4G: three significant figures past 999.
std::string HumanCount(double n);
// "0:05", "12:34", "1:02:03"; "--" for a negative or non-finite value.
std::string FormatEta(double seconds);

class ProgressLine {
 public:
  // `out`'s descriptor decides: a terminal gets the bar, anything else plain lines. On a
  // terminal, a log line written to stderr meanwhile first clears the bar (base/log_hook.h); the
  // next Update draws it again below.
  explicit ProgressLine(FILE* out);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  bool terminal() const { return terminal_; }
  // Draws `bar` over the previous one on a terminal (cut to its width); writes `plain` and a
  // newline otherwise.
  void Update(const std::string& bar, const std::string& plain);
  // On a terminal, ends the bar's line (once) so that what follows starts on its own line.
  void Finish();

 private:
  FILE* out_;
  bool terminal_;
  std::atomic<bool> drawn_{false};
};

}  // namespace sluice::base
