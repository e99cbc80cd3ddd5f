#include "tests/system/child_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>

extern char** environ;

namespace sluice::testing {
namespace {

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::vector<std::string> Environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const std::string& x : extra) overridden |= x.substr(0, x.find('=')) == name;
    if (!overridden) env.push_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

int ExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Starts `argv` with stdout (and stderr when `err_fd` is given) to pipes. The child gets
// SIGKILL when the test process dies, so a killed test leaves no daemons behind.
pid_t Spawn(const std::vector<std::string>& argv_in, const std::vector<std::string>& env_in,
            int out_fd, int err_fd) {
  std::vector<std::string> argv = argv_in;
  std::vector<std::string> env = Environment(env_in);
  auto argv_p = Pointers(argv);
  auto env_p = Pointers(env);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid != 0) return pid;
  // The child: only async-signal-safe calls until exec.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  dup2(out_fd, STDOUT_FILENO);
  if (err_fd >= 0) dup2(err_fd, STDERR_FILENO);
  execve(argv_p[0], argv_p.data(), env_p.data());
  _exit(127);
}

}  // namespace

std::string BuildPath(const std::string& relative) {
  const char* dir = std::getenv("SLUICE_BUILD_DIR");
  return std::string(dir != nullptr ? dir : "build") + "/" + relative;
}

std::unique_ptr<ChildProcess> ChildProcess::Start(const std::vector<std::string>& argv,
                                                  const std::vector<std::string>& env) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return nullptr;
  std::unique_ptr<ChildProcess> child(new ChildProcess());
  child->pid_ = Spawn(argv, env, fds[1], -1);
  close(fds[1]);
  if (child->pid_ < 0) {
    close(fds[0]);
    return nullptr;
  }
  child->reader_ = std::thread([c = child.get(), fd = fds[0]] { c->ReadLoop(fd); });
  return child;
}

void ChildProcess::ReadLoop(int fd) {
  char buffer[4096];
  for (;;) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n <= 0) break;
    std::lock_guard lock(mu_);
    output_.append(buffer, static_cast<size_t>(n));
    changed_.notify_all();
  }
  close(fd);
  std::lock_guard lock(mu_);
  output_closed_ = true;
  changed_.notify_all();
}

ChildProcess::~ChildProcess() {
  if (!status_) {
    kill(pid_, SIGKILL);
    Wait(10000);
  }
  if (reader_.joinable()) reader_.join();
}

bool ChildProcess::WaitForOutput(const std::string& text, int ms) {
  std::unique_lock lock(mu_);
  return changed_.wait_for(lock, std::chrono::milliseconds(ms),
                           [&] { return output_.find(text) != std::string::npos; });
}

std::string ChildProcess::Output() {
  std::lock_guard lock(mu_);
  return output_;
}

void ChildProcess::Signal(int signal) {
  if (!status_) kill(pid_, signal);
}

std::optional<int> ChildProcess::Wait(int ms) {
  if (status_) return status_;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  for (;;) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      status_ = ExitCode(status);
      std::unique_lock lock(mu_);
      changed_.wait_for(lock, std::chrono::seconds(2), [&] { return output_closed_; });
      return status_;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

CommandResult RunCommand(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                         int ms) {
  CommandResult result;
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return result;
  pid_t pid = Spawn(argv, env, out[1], err[1]);
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    close(out[0]);
    close(err[0]);
    result.err = "cannot start " + argv[0];
    return result;
  }
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (open_fds > 0 && std::chrono::steady_clock::now() < deadline) {
    if (poll(fds, 2, 50) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      char buffer[4096];
      ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      (i == 0 ? result.out : result.err).append(buffer, static_cast<size_t>(n));
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  if (open_fds > 0) kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  result.exit_code = open_fds > 0 ? -1 : ExitCode(status);
  return result;
}

}  // namespace sluice::testing
