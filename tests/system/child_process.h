#pragma once
// ChildProcess: a program started by a system test, its stdout collected line by line.
//
//   auto finder = ChildProcess::Start({BuildPath("finder/sluice-finder"), "--listen", ...});
//   ASSERT_TRUE(finder->WaitForOutput("ready", 5000));
//   finder->Signal(SIGKILL);
//
// stderr goes to the test's stderr (visible in ctest --output-on-failure). The destructor kills
// (SIGKILL) and reaps the process if it still runs.

#include <sys/types.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/interop/free_port.h"

namespace sluice::testing {

// $SLUICE_BUILD_DIR/`relative` (the build tree; set by ctest).
std::string BuildPath(const std::string& relative);

class ChildProcess {
 public:
  // Starts `argv` with the current environment plus `env` ("NAME=value"). Null when it cannot
  // start.
  static std::unique_ptr<ChildProcess> Start(const std::vector<std::string>& argv,
                                             const std::vector<std::string>& env = {});
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  // True once stdout has contained `text` (anywhere since start), waiting up to `ms`.
  bool WaitForOutput(const std::string& text, int ms);
  std::string Output();
  void Signal(int signal);
  // The exit status (or 128 + signal), or nullopt if still running after `ms`. Once it returns a
  // status, Output() holds everything the process wrote (up to 2 s more for the pipe to drain,
  // should a process it started still hold it open).
  std::optional<int> Wait(int ms);

 private:
  ChildProcess() = default;
  void ReadLoop(int fd);

  pid_t pid_ = -1;
  std::optional<int> status_;
  std::thread reader_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::string output_;
  bool output_closed_ = false;  // the reader saw end of file
};

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs a program to completion (at most `ms`), capturing stdout and stderr.
CommandResult RunCommand(const std::vector<std::string>& argv,
                         const std::vector<std::string>& env = {}, int ms = 20000);

}  // namespace sluice::testing
