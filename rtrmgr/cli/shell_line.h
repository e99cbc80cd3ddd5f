#pragma once
// What the interactive and the script shell (shell.h) share: the table they complete from and
// how one line runs.

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "rtrmgr/cli/command.h"
#include "rtrmgr/cli/shell.h"

namespace sluice::rtrmgr::cli {

// Commands() and the shell's own words: help, exit, quit (their `run` is null).
const std::vector<Command>& ShellCommands();

// Splits `line` and runs it through `run`. Blank lines and '#' comments do nothing; exit and
// quit set *leave. A line that does not split, or whose first word is no command, prints an
// error to `err` (kUsage). Returns the exit status (command.h).
int RunLine(std::string_view line, const RunWords& run, std::ostream& err, bool* leave);

// The paths that complete `partial` where a FILE is expected: entries of its directory (the
// current one when it has no '/') whose names start with what follows the last '/', each as
// `partial`'s directory part plus the name, with '/' after a directory; sorted. Dot files only
// when the name typed starts with '.'. Empty when nothing matches or the directory cannot be read.
std::vector<std::string> FileCandidates(const std::string& partial);

}  // namespace sluice::rtrmgr::cli
