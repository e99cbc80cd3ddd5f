#include "rtrmgr/cli/shell_line.h"

#include <algorithm>
#include <filesystem>
#include <istream>
#include <ostream>
#include <string>

#include "rtrmgr/cli/shell_words.h"

namespace sluice::rtrmgr::cli {

const std::vector<Command>& ShellCommands() {
  static const std::vector<Command> commands = [] {
    std::vector<Command> all = Commands();
    all.push_back({"help",
                   "the commands and their forms",
                   {{"help", "the commands and their forms"}},
                   nullptr});
    all.push_back({"exit", "leave the shell (Ctrl-D too)", {{"exit", "leave the shell"}}, nullptr});
    all.push_back({"quit", "leave the shell (Ctrl-D too)", {{"quit", "leave the shell"}}, nullptr});
    return all;
  }();
  return commands;
}

int RunLine(std::string_view line, const RunWords& run, std::ostream& err, bool* leave) {
  const size_t start = line.find_first_not_of(" \t\r\n");
  const std::string_view text =
      start == std::string_view::npos ? std::string_view() : line.substr(start);
  if (text.empty() || text[0] == '#') return kOk;
  absl::StatusOr<std::vector<std::string>> words = SplitWords(text);
  if (!words.ok()) {
    err << "sluice: " << words.status().message() << "\n";
    return kUsage;
  }
  const std::string& first = words->front();
  if (first == "exit" || first == "quit") {
    *leave = true;
    return kOk;
  }
  bool known = false;
  for (const Command& command : ShellCommands()) known = known || first == command.name;
  if (!known) {
    err << "sluice: unknown command " << first << " (`?` or `help` lists the commands)\n";
    return kUsage;
  }
  return run(*words);
}

std::vector<std::string> FileCandidates(const std::string& partial) {
  const size_t slash = partial.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : partial.substr(0, slash + 1);
  const std::string name = partial.substr(dir.size());
  std::vector<std::string> out;
  std::error_code error;
  std::filesystem::directory_iterator it(dir.empty() ? "." : dir, error);
  for (; !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
    const std::string entry = it->path().filename().string();
    if (!entry.starts_with(name) || (entry[0] == '.' && !name.starts_with('.'))) continue;
    std::error_code ignored;
    out.push_back(dir + entry + (it->is_directory(ignored) ? "/" : ""));
  }
  std::sort(out.begin(), out.end());
  return out;
}

int RunScriptShell(const RunWords& run, std::istream& in, std::ostream& err) {
  int status = kOk;
  bool leave = false;
  std::string line;
  while (!leave && std::getline(in, line)) {
    if (RunLine(line, run, err, &leave) != kOk) status = kFailed;
  }
  return status;
}

}  // namespace sluice::rtrmgr::cli
