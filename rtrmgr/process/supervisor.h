#pragma once
// Supervisor: the router manager's child processes. Starts each program as its launch plan
// says (command line, environment, inherited descriptors such as its credential pipe, the user
// and capabilities it runs with: rtrmgr/process/privileges.h), writes its stdout and stderr to
// a log file, notices its death (SIGCHLD on the event loop), and starts it again after a
// back-off unless the router manager is stopping. The others recover on their own through the
// Finder's lifetime events (DESIGN.md § Processes); the router manager pushes the restarted
// process's configuration when it registers again.
//
// The children outlive the router manager (DESIGN.md § Restarts): each runs in its own session
// (setsid), so neither a terminal's signals nor the death of the router manager reach it, and a
// successor adopts it (Adopt): it watches a process it is not the parent of through a pidfd
// (pidfd_open(2); readable once the process has exited) and restarts it like any child.
//
// Log files are opened without following symbolic links and must be regular files owned by
// the router manager's user; a child whose log is not is not started.
//
// Back-off: 0.2 s after the first death, doubling to at most 10 s; back to 0.2 s once a child
// has run 30 s. StopAll() sends SIGTERM in the reverse order of Add() and SIGKILL to what is
// still running after the grace time; Restart() sends the signal it is given (SIGUSR2: "exit so
// that a successor takes over; leave your state for it").

#include <signal.h>
#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "rtrmgr/process/privileges.h"
#include "rtrmgr/process/saved_state.h"

namespace sluice::rtrmgr {

// How to start a child, asked for at every (re)start so that it follows the configuration.
struct LaunchPlan {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // "NAME=VALUE" added to the router manager's environment
  // Descriptors the child inherits: (number in the child, descriptor here). The plan owns the
  // descriptors here; the supervisor closes them once the child has started.
  std::vector<std::pair<int, int>> fds;
  std::optional<ChildPrivileges> privileges;  // root only: the user and capabilities to take
  ~LaunchPlan();
  LaunchPlan() = default;
  LaunchPlan(LaunchPlan&&) noexcept;
  LaunchPlan& operator=(LaunchPlan&&) = delete;
};

class Supervisor {
 public:
  struct Child {
    std::string name;  // "finder", "fea", "rib", "bgp"
    std::function<absl::StatusOr<LaunchPlan>()> plan;
    std::string log_file;  // stdout and stderr, appended
    pid_t pid = 0;         // 0: not running
    uint32_t restarts = 0;
    std::string last_exit;  // "exit 1", "signal 9"
    bool restart = true;    // start again when it dies
    std::chrono::steady_clock::time_point started;
    std::chrono::milliseconds backoff{200};
    std::unique_ptr<boost::asio::steady_timer> timer;
    // Who the process is (saved_state.h): its program and /proc start time.
    std::string program;
    uint64_t start_time = 0;
    // Adopted: started by a predecessor; not our child, watched through `pidfd`.
    bool adopted = false;
    std::unique_ptr<boost::asio::posix::stream_descriptor> pidfd;
  };

  explicit Supervisor(boost::asio::io_context& io);
  ~Supervisor();

  // Called after a child has been (re)started, and after it has died (with its exit text).
  std::function<void(const std::string& name, pid_t pid)> on_started;
  std::function<void(const std::string& name, const std::string& how)> on_exited;

  // Adds and starts a child. Errors: the plan's, or the program or its log cannot be used
  // (the path in the message).
  absl::Status Add(std::string name, std::function<absl::StatusOr<LaunchPlan>()> plan,
                   std::string log_file);
  // Adds a child that a predecessor started and that is still running (`record`: checked
  // again here, after the pidfd is open, so that a recycled pid is never adopted). When the
  // process is gone it is started as Add() would. Errors: Add()'s.
  absl::Status Adopt(const ChildRecord& record, std::function<absl::StatusOr<LaunchPlan>()> plan,
                     std::string log_file);
  // Stops one child (`signal`, SIGKILL after `grace`) and starts it again at once with its
  // current command line (a changed FEA backend, bgp threads). SIGUSR2 asks it to leave its
  // state (routes in the kernel, at the RIB, at the peers) for its successor.
  void Restart(const std::string& name, std::chrono::milliseconds grace, int signal = SIGUSR2);
  // Another sign that `name` may have died (the Finder's death event): handles the death now
  // if its process has exited.
  void CheckExited(const std::string& name);
  // Lets go of every adopted child without signalling it: it runs on, unsupervised.
  void ReleaseAdopted();
  // Stops every child, the last added first, waiting at most `grace` for each before SIGKILL.
  // Blocks; no restarts afterwards.
  void StopAll(std::chrono::milliseconds grace);

  const Child* Find(const std::string& name) const;
  const std::vector<std::unique_ptr<Child>>& children() const { return children_; }

 private:
  Child& NewChild(std::string name, std::function<absl::StatusOr<LaunchPlan>()> plan,
                  std::string log_file);
  absl::Status Spawn(Child& child);
  // The plan's environment on top of ours (less NOTIFY_SOCKET), as execve(2) wants it.
  static std::vector<std::string> ChildEnvironment(const LaunchPlan& plan);
  void WaitSignals();
  void Reap();
  // After `child` died (`how`: its exit text): report it and start it again after the back-off.
  void Died(Child& child, const std::string& how);
  // Waits (on the loop) for the adopted `child`'s pidfd to become readable: its exit.
  void WatchAdopted(Child& child);
  // Sends `signal` to `child`'s process (through its pidfd when adopted).
  void SignalProcess(const Child& child, int signal);
  // True once `child`'s process has exited, waiting at most `wait` (reaps our own children).
  bool WaitExit(Child& child, std::chrono::milliseconds wait, int* status);
  // Stops `child`'s process synchronously (`signal`, then SIGKILL after `grace`).
  void StopProcess(Child& child, std::chrono::milliseconds grace, int signal = SIGTERM);

  boost::asio::io_context& io_;
  boost::asio::signal_set sigchld_;
  std::vector<std::unique_ptr<Child>> children_;
  bool stopping_ = false;
};

// Opens `path` for appending without following a symbolic link; it must be a regular file
// owned by this process's user. Errors: FailedPrecondition / Unavailable naming the file.
absl::StatusOr<int> OpenLogFile(const std::string& path);

// "exit N" or "signal N" for a waitpid status.
std::string ExitText(int wait_status);
// VmRSS / VmHWM of a process in kB (0 when unknown).
uint64_t ProcessMemoryKb(pid_t pid, const char* field);

}  // namespace sluice::rtrmgr
