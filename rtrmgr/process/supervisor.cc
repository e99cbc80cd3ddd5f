#include "rtrmgr/process/supervisor.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "net/log.h"

namespace sluice::rtrmgr {

std::string ExitText(int wait_status) {
  if (WIFEXITED(wait_status)) return absl::StrCat("exit ", WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) return absl::StrCat("signal ", WTERMSIG(wait_status));
  return absl::StrCat("status ", wait_status);
}

uint64_t ProcessMemoryKb(pid_t pid, const char* field) {
  if (pid <= 0) return 0;
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  const std::string prefix = absl::StrCat(field, ":");
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) {
      uint64_t kb = 0;
      std::istringstream(line.substr(prefix.size())) >> kb;
      return kb;
    }
  }
  return 0;
}

Supervisor::Supervisor(boost::asio::io_context& io) : io_(io), sigchld_(io, SIGCHLD) {
  WaitSignals();
}

Supervisor::~Supervisor() { StopAll(std::chrono::milliseconds(3000)); }

absl::Status Supervisor::Add(std::string name, std::function<std::vector<std::string>()> argv,
                             std::string log_file) {
  auto child = std::make_unique<Child>();
  child->name = std::move(name);
  child->argv = std::move(argv);
  child->log_file = std::move(log_file);
  child->timer = std::make_unique<boost::asio::steady_timer>(io_);
  Child& c = *child;
  children_.push_back(std::move(child));
  return Spawn(c);
}

absl::Status Supervisor::Spawn(Child& child) {
  std::vector<std::string> args = child.argv();
  if (args.empty()) return absl::InvalidArgumentError(child.name + ": empty command line");
  if (access(args[0].c_str(), X_OK) != 0) {
    return absl::NotFoundError(
        absl::StrCat(child.name, ": cannot run ", args[0], ": ", std::strerror(errno)));
  }
  std::vector<char*> cargv;
  for (std::string& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const int log = open(child.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const pid_t pid = fork();
  if (pid < 0) {
    if (log >= 0) close(log);
    return absl::InternalError(absl::StrCat(child.name, ": fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    // The child: its own process group stays ours (a terminal's ^C reaches everyone); default
    // signal dispositions and mask; stdout/stderr to the log.
    // If the router manager dies without stopping us (SIGKILL), we stop too: nothing is left
    // running without a supervisor.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    if (log >= 0) {
      dup2(log, 1);
      dup2(log, 2);
    }
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  if (log >= 0) close(log);
  child.pid = pid;
  child.started = std::chrono::steady_clock::now();
  SLUICE_LOG(kInfo) << "started " << child.name << " (pid " << pid << "): " << args[0];
  if (on_started) on_started(child.name, pid);
  return absl::OkStatus();
}

void Supervisor::WaitSignals() {
  sigchld_.async_wait([this](const boost::system::error_code& error, int) {
    if (error) return;
    Reap();
    WaitSignals();
  });
}

void Supervisor::Reap() {
  while (true) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    for (auto& c : children_) {
      if (c->pid != pid) continue;
      Child& child = *c;
      child.pid = 0;
      child.last_exit = ExitText(status);
      if (stopping_) {
        SLUICE_LOG(kInfo) << child.name << " (pid " << pid << ") ended: " << child.last_exit;
      } else {
        SLUICE_LOG(kWarning) << child.name << " (pid " << pid << ") ended: " << child.last_exit;
      }
      if (on_exited) on_exited(child.name, child.last_exit);
      if (stopping_ || !child.restart) break;
      const auto ran = std::chrono::steady_clock::now() - child.started;
      if (ran > std::chrono::seconds(30)) child.backoff = std::chrono::milliseconds(200);
      const auto wait = child.backoff;
      child.backoff = std::min(child.backoff * 2, std::chrono::milliseconds(10000));
      child.timer->expires_after(wait);
      child.timer->async_wait([this, &child](const boost::system::error_code& error) {
        if (error || stopping_ || child.pid != 0) return;
        ++child.restarts;
        if (absl::Status s = Spawn(child); !s.ok()) {
          SLUICE_LOG(kError) << s.message();
        }
      });
      break;
    }
  }
}

void Supervisor::StopProcess(Child& child, std::chrono::milliseconds grace) {
  if (child.pid <= 0) return;
  const pid_t pid = child.pid;
  kill(pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  int status = 0;
  while (true) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      SLUICE_LOG(kWarning) << child.name << " (pid " << pid << ") ignored SIGTERM: SIGKILL";
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  child.pid = 0;
  child.last_exit = ExitText(status);
}

void Supervisor::Restart(const std::string& name, std::chrono::milliseconds grace) {
  for (auto& c : children_) {
    if (c->name != name) continue;
    c->timer->cancel();
    StopProcess(*c, grace);
    if (on_exited) on_exited(c->name, c->last_exit);
    ++c->restarts;
    if (absl::Status s = Spawn(*c); !s.ok()) {
      SLUICE_LOG(kError) << s.message();
    }
  }
}

void Supervisor::StopAll(std::chrono::milliseconds grace) {
  stopping_ = true;
  for (auto it = children_.rbegin(); it != children_.rend(); ++it) {
    (*it)->timer->cancel();
    StopProcess(**it, grace);
  }
}

const Supervisor::Child* Supervisor::Find(const std::string& name) const {
  for (const auto& c : children_) {
    if (c->name == name) return c.get();
  }
  return nullptr;
}

}  // namespace sluice::rtrmgr
