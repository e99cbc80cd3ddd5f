#include "rtrmgr/process/supervisor.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "base/log.h"

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

LaunchPlan::~LaunchPlan() {
  for (const auto& [target, fd] : fds) {
    if (fd >= 0) close(fd);
  }
}

LaunchPlan::LaunchPlan(LaunchPlan&& other) noexcept
    : argv(std::move(other.argv)),
      env(std::move(other.env)),
      fds(std::exchange(other.fds, {})),
      privileges(std::move(other.privileges)) {}

absl::StatusOr<int> OpenLogFile(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640);
  if (fd < 0) {
    if (errno == ELOOP) {
      return absl::FailedPreconditionError(
          absl::StrCat("log file ", path, " is a symbolic link: refusing to follow it"));
    }
    return absl::UnavailableError(
        absl::StrCat("cannot open log file ", path, ": ", std::strerror(errno)));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
    close(fd);
    return absl::FailedPreconditionError(absl::StrCat(
        "log file ", path, " is not a regular file of uid ", geteuid(), ": refusing it"));
  }
  return fd;
}

Supervisor::Child& Supervisor::NewChild(std::string name,
                                        std::function<absl::StatusOr<LaunchPlan>()> plan,
                                        std::string log_file) {
  auto child = std::make_unique<Child>();
  child->name = std::move(name);
  child->plan = std::move(plan);
  child->log_file = std::move(log_file);
  child->timer = std::make_unique<boost::asio::steady_timer>(io_);
  children_.push_back(std::move(child));
  return *children_.back();
}

absl::Status Supervisor::Add(std::string name, std::function<absl::StatusOr<LaunchPlan>()> plan,
                             std::string log_file) {
  return Spawn(NewChild(std::move(name), std::move(plan), std::move(log_file)));
}

std::vector<std::string> Supervisor::ChildEnvironment(const LaunchPlan& plan) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    // The service manager's channel is the router manager's alone (service_notify.h).
    if (name == "NOTIFY_SOCKET") continue;
    bool replaced = false;
    for (const std::string& add : plan.env) {
      replaced = replaced || add.substr(0, add.find('=')) == name;
    }
    if (!replaced) env.push_back(std::move(entry));
  }
  env.insert(env.end(), plan.env.begin(), plan.env.end());
  return env;
}

namespace {

// In the child after fork(2): only system calls until exec (the parent has threads).
[[noreturn]] void ExecChild(const LaunchPlan& plan, int log, char* const* argv, char* const* envp) {
  auto fail = [](const char* what) {
    const char prefix[] = "sluice-rtrmgr: cannot start the process: ";
    (void)!write(2, prefix, sizeof(prefix) - 1);
    (void)!write(2, what, std::strlen(what));
    (void)!write(2, "\n", 1);
    _exit(126);
  };
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, 0);
  if (log >= 0) {
    dup2(log, 1);
    dup2(log, 2);
  }
  // Descriptors were moved above every target number by the parent: no clash.
  for (const auto& [target, fd] : plan.fds) {
    if (dup2(fd, target) < 0) fail("dup2");
  }
  if (plan.privileges) {
    if (const char* failed = EnterChildPrivileges(*plan.privileges)) fail(failed);
  }
  // A session of its own: a terminal's hang-up or ^C, or a signal to the router manager's
  // process group, does not reach it; it keeps running when the router manager dies, for a
  // successor to adopt.
  setsid();
  execve(argv[0], argv, envp);
  fail("execve");
  _exit(127);  // not reached: fail() exits
}

// Moves the plan's descriptors above every number a child inherits them as.
void RaiseDescriptors(LaunchPlan& plan) {
  int floor = 10;
  for (const auto& [target, fd] : plan.fds) floor = std::max(floor, target + 1);
  for (auto& [target, fd] : plan.fds) {
    const int raised = fcntl(fd, F_DUPFD_CLOEXEC, floor);
    if (raised < 0) continue;
    close(fd);
    fd = raised;
  }
}

}  // namespace

absl::Status Supervisor::Spawn(Child& child) {
  absl::StatusOr<LaunchPlan> plan = child.plan();
  if (!plan.ok())
    return absl::Status(plan.status().code(),
                        child.name + ": " + std::string(plan.status().message()));
  std::vector<std::string> args = plan->argv;
  if (args.empty()) return absl::InvalidArgumentError(child.name + ": empty command line");
  if (access(args[0].c_str(), X_OK) != 0) {
    return absl::NotFoundError(
        absl::StrCat(child.name, ": cannot run ", args[0], ": ", std::strerror(errno)));
  }
  absl::StatusOr<int> log = OpenLogFile(child.log_file);
  if (!log.ok())
    return absl::Status(log.status().code(),
                        child.name + ": " + std::string(log.status().message()));
  RaiseDescriptors(*plan);
  std::vector<std::string> env = ChildEnvironment(*plan);
  std::vector<char*> cargv;
  for (std::string& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::vector<char*> cenv;
  for (std::string& e : env) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(*log);
    return absl::InternalError(absl::StrCat(child.name, ": fork: ", std::strerror(errno)));
  }
  if (pid == 0) ExecChild(*plan, *log, cargv.data(), cenv.data());
  close(*log);
  child.pid = pid;
  child.adopted = false;
  child.pidfd.reset();
  child.program = args[0];
  child.start_time = ProcessStartTime(pid).value_or(0);
  child.started = std::chrono::steady_clock::now();
  SLUICE_LOG(kInfo) << "started " << child.name << " (pid " << pid << "): " << args[0]
                    << (plan->privileges
                            ? absl::StrCat(" as ", plan->privileges->user.name, ", capabilities ",
                                           CapabilityNames(plan->privileges->capabilities))
                            : "");
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
      if (c->pid != pid || c->adopted) continue;
      Died(*c, ExitText(status));
      break;
    }
  }
}

void Supervisor::Died(Child& child, const std::string& how) {
  const pid_t pid = child.pid;
  child.pid = 0;
  child.adopted = false;
  child.pidfd.reset();
  child.last_exit = how;
  if (stopping_) {
    SLUICE_LOG(kInfo) << child.name << " (pid " << pid << ") ended: " << how;
  } else {
    SLUICE_LOG(kWarning) << child.name << " (pid " << pid << ") ended: " << how;
  }
  if (on_exited) on_exited(child.name, how);
  if (stopping_ || !child.restart) return;
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
}

void Supervisor::StopProcess(Child& child, std::chrono::milliseconds grace, int signal) {
  if (child.pid <= 0) return;
  const pid_t pid = child.pid;
  SignalProcess(child, signal);
  int status = 0;
  if (!WaitExit(child, grace, &status)) {
    SLUICE_LOG(kWarning) << child.name << " (pid " << pid << ") ignored signal " << signal
                         << ": SIGKILL";
    SignalProcess(child, SIGKILL);
    WaitExit(child, std::chrono::milliseconds(5000), &status);
  }
  child.last_exit = child.adopted ? "stopped" : ExitText(status);
  child.pid = 0;
  child.adopted = false;
  child.pidfd.reset();
}

void Supervisor::Restart(const std::string& name, std::chrono::milliseconds grace, int signal) {
  for (auto& c : children_) {
    if (c->name != name) continue;
    c->timer->cancel();
    SLUICE_LOG(kInfo) << "restarting " << name << " (signal " << signal << ")";
    StopProcess(*c, grace, signal);
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
