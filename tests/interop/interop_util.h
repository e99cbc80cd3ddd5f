#pragma once
// Helpers for interop tests that run real daemons on loopback (../shared/INTEROP.md): a private
// temporary folder, child processes started with their output in files and stopped by PID, free
// TCP ports, waiting for a condition, and running a command for its output.
//
//   TempDir dir("bird");
//   ChildProcess bird({"bird", "-f", "-c", dir.File("bird.conf", config), "-s", dir.Path("ctl")},
//                     dir.Path("bird.out"));
//   ASSERT_TRUE(WaitFor([&] { return RunCommand({"birdc", ...}).ok(); }, 10));

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/interop/free_port.h"

namespace sluice::testing {

// A folder under $TMPDIR, removed with its contents on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Path(const std::string& name) const { return path_ + "/" + name; }
  // Writes `contents` to the file `name` in the folder and returns its path.
  std::string File(const std::string& name, const std::string& contents) const;

 private:
  std::string path_;
};

// A child process (execvp of argv[0]), stdout and stderr to `output_path`. Stop() — or the
// destructor — sends SIGTERM to it by PID, then SIGKILL after `grace_seconds`.
class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& argv, const std::string& output_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool Running();
  // Sends SIGTERM and waits; returns the exit status (as waitpid reports it), or -1.
  int Stop(double grace_seconds = 10);
  // Sends SIGKILL (a crash: no clean shutdown) and reaps it; returns the exit status.
  int Kill();
  // Waits up to `seconds` for the process to exit by itself; its status, or -1 on timeout.
  int Wait(double seconds);
  const std::string& output_path() const { return output_path_; }
  std::string Output() const;  // what it has written so far

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  std::string output_path_;
};

// True when `program` is found on PATH (or in /usr/sbin, /sbin: daemons live there).
bool HaveProgram(const std::string& program);
// Polls `condition` every 100 ms for up to `seconds`; true once it holds.
bool WaitFor(const std::function<bool()>& condition, double seconds);
// Runs a command (no shell) and returns its stdout; an error naming the exit status otherwise.
absl::StatusOr<std::string> RunCommand(const std::vector<std::string>& argv);

}  // namespace sluice::testing
