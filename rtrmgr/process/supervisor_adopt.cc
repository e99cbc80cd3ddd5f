// Supervisor: children started by a predecessor (adopted, watched through a pidfd), and the
// signalling and waiting shared by our own and adopted children.

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "rtrmgr/process/supervisor.h"

namespace sluice::rtrmgr {
namespace {

// The system calls themselves: glibc's <sys/pidfd.h> lacks C linkage in some versions.
int PidfdOpen(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }
int PidfdSendSignal(int fd, int signal) {
  return static_cast<int>(syscall(SYS_pidfd_send_signal, fd, signal, nullptr, 0));
}

// True when the pidfd says its process has exited, waiting at most `wait_ms`.
bool PidfdExited(int fd, int wait_ms) {
  pollfd p{fd, POLLIN, 0};
  int r;
  do {
    r = poll(&p, 1, wait_ms);
  } while (r < 0 && errno == EINTR);
  return r > 0;
}

}  // namespace

absl::Status Supervisor::Adopt(const ChildRecord& record,
                               std::function<absl::StatusOr<LaunchPlan>()> plan,
                               std::string log_file) {
  Child& child = NewChild(record.name, std::move(plan), std::move(log_file));
  const int fd = PidfdOpen(record.pid);
  // Checked after the pidfd is open: the pidfd then names this very process, whatever happens
  // to the pid later.
  if (fd < 0 || !IsSameProcess(record)) {
    if (fd >= 0) close(fd);
    SLUICE_LOG(kWarning) << record.name << " (pid " << record.pid
                         << ") is no longer running: starting it";
    return Spawn(child);
  }
  child.pid = record.pid;
  child.program = record.program;
  child.start_time = record.start_time;
  child.adopted = true;
  child.started = std::chrono::steady_clock::now();
  child.pidfd = std::make_unique<boost::asio::posix::stream_descriptor>(io_, fd);
  SLUICE_LOG(kInfo) << "adopted " << child.name << " (pid " << child.pid << "): " << child.program;
  WatchAdopted(child);
  if (on_started) on_started(child.name, child.pid);
  return absl::OkStatus();
}

void Supervisor::WatchAdopted(Child& child) {
  child.pidfd->async_wait(boost::asio::posix::stream_descriptor::wait_read,
                          [this, &child, pid = child.pid](const boost::system::error_code& error) {
                            // Cancelled: the descriptor was closed (stopped, restarted, or already
                            // handled).
                            if (error || child.pid != pid || !child.adopted) return;
                            Died(child, "exited (adopted: status unknown)");
                          });
}

void Supervisor::ReleaseAdopted() {
  for (auto& c : children_) {
    if (!c->adopted) continue;
    SLUICE_LOG(kInfo) << "leaving " << c->name << " (pid " << c->pid << ") running";
    c->timer->cancel();
    c->pid = 0;
    c->adopted = false;
    c->pidfd.reset();
  }
}

void Supervisor::CheckExited(const std::string& name) {
  for (auto& c : children_) {
    if (c->name != name || c->pid <= 0) continue;
    if (c->adopted && c->pidfd && PidfdExited(c->pidfd->native_handle(), 0)) {
      Died(*c, "exited (adopted: status unknown)");
    }
  }
}

void Supervisor::SignalProcess(const Child& child, int signal) {
  if (child.pid <= 0) return;
  if (child.adopted && child.pidfd) {
    if (PidfdSendSignal(child.pidfd->native_handle(), signal) != 0 && errno != ESRCH) {
      SLUICE_LOG(kWarning) << "cannot signal " << child.name << " (pid " << child.pid
                           << "): " << std::strerror(errno);
    }
    return;
  }
  kill(child.pid, signal);
}

bool Supervisor::WaitExit(Child& child, std::chrono::milliseconds wait, int* status) {
  if (child.adopted && child.pidfd) {
    return PidfdExited(child.pidfd->native_handle(), static_cast<int>(wait.count()));
  }
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (true) {
    const pid_t r = waitpid(child.pid, status, WNOHANG);
    if (r == child.pid || (r < 0 && errno == ECHILD)) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace sluice::rtrmgr
