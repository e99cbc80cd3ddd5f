#pragma once
// Diagnostics: the errors found in one configuration file, each with the file, line and column
// it is about. The configuration is checked as a whole and every error is collected (up to a
// limit), so that an operator fixes a file in one pass instead of one error per attempt.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "policy/lexer.h"

namespace sluice::rtrmgr {

// A position in a configuration file (1-based line and column; a tab is one column).
using Location = policy::SourceLocation;

struct Diagnostic {
  Location loc;
  std::string message;  // what is wrong, without the location
  // "FILE:LINE:COL: message"
  std::string ToString() const;
};

class Diagnostics {
 public:
  // At most `limit` errors are kept; later ones are only counted.
  explicit Diagnostics(size_t limit = 50) : limit_(limit) {}

  // The same message at the same place again is dropped.
  void Add(const Location& loc, std::string message);
  // An error from the policy library, already "FILE:LINE:COL: message" for `file`: its location
  // is read back from the text; `fallback` is used when the text carries none.
  void AddPolicyError(const absl::Status& status, std::string_view file, const Location& fallback);

  bool empty() const { return total_ == 0; }
  size_t count() const { return total_; }  // including those over the limit
  bool full() const { return total_ >= limit_; }
  // The kept errors, in file order (line, then column, then the order they were found).
  std::vector<Diagnostic> Sorted() const;
  // OK when there are no errors; otherwise InvalidArgument whose message is one error per line
  // in file order, plus "N more errors not shown" when over the limit.
  absl::Status ToStatus() const;

 private:
  size_t limit_;
  size_t total_ = 0;
  std::vector<Diagnostic> kept_;
};

}  // namespace sluice::rtrmgr
