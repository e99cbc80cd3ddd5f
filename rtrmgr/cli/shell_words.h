#pragma once
// Splitting a line the interactive shell read into words, as a POSIX shell would for the simple
// cases an operator types: blanks separate words, '...' and "..." quote (a quoted '?' or blank is
// part of the word), a backslash outside single quotes takes the next character as is. No
// variables, globs or operators.

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace sluice::rtrmgr::cli {

// The words of a whole line. InvalidArgument on an unterminated quote or a trailing backslash.
absl::StatusOr<std::vector<std::string>> SplitWords(std::string_view line);

// The line up to the cursor, for completion: the finished words, and the word being typed (""
// when the line is empty or ends in a blank). Never fails: an open quote is part of `partial`.
struct LineSoFar {
  std::vector<std::string> words;
  std::string partial;
  bool in_quotes = false;  // the cursor is inside '...' or "..."
  bool in_word = false;    // the cursor is right after a word's character or a quote
};
LineSoFar SplitForCompletion(std::string_view before_cursor);

}  // namespace sluice::rtrmgr::cli
