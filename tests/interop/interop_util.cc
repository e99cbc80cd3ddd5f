#include "tests/interop/interop_util.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace sluice::testing {
namespace {

std::vector<char*> Argv(const std::vector<std::string>& args) {
  std::vector<char*> out;
  for (const std::string& a : args) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

// PATH plus the sbin folders where Debian puts daemons.
void ExtendPath() {
  static bool done = [] {
    std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
    setenv("PATH", (path + ":/usr/sbin:/sbin:/usr/local/sbin").c_str(), 1);
    return true;
  }();
  (void)done;
}

}  // namespace

TempDir::TempDir(const std::string& prefix) {
  std::string templ =
      (std::filesystem::temp_directory_path() / ("sluice-" + prefix + "-XXXXXX")).string();
  char* p = mkdtemp(templ.data());
  path_ = p ? p : "";
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

std::string TempDir::File(const std::string& name, const std::string& contents) const {
  const std::string p = Path(name);
  std::ofstream(p) << contents;
  return p;
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& output_path)
    : output_path_(output_path) {
  ExtendPath();
  pid_ = fork();
  if (pid_ == 0) {
    const int fd = open(output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    auto args = Argv(argv);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s\n", args[0]);
    _exit(127);
  }
}

ChildProcess::~ChildProcess() { Stop(5); }

bool ChildProcess::Running() {
  if (pid_ <= 0) return false;
  int status;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    status_ = status;
    pid_ = -1;
    return false;
  }
  return r == 0;
}

int ChildProcess::Wait(double seconds) {
  WaitFor([this] { return !Running(); }, seconds);
  return pid_ > 0 ? -1 : status_;
}

int ChildProcess::Stop(double grace_seconds) {
  if (pid_ <= 0) return status_;
  kill(pid_, SIGTERM);
  if (Wait(grace_seconds) == -1 && pid_ > 0) {
    kill(pid_, SIGKILL);
    int status;
    waitpid(pid_, &status, 0);
    status_ = status;
    pid_ = -1;
  }
  return status_;
}

int ChildProcess::Kill() {
  if (pid_ <= 0) return status_;
  kill(pid_, SIGKILL);
  int status;
  waitpid(pid_, &status, 0);
  status_ = status;
  pid_ = -1;
  return status_;
}

std::string ChildProcess::Output() const {
  std::ifstream in(output_path_);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool HaveProgram(const std::string& program) {
  ExtendPath();
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

namespace {
// Whether TCP port `port` can be bound on ::1 now (true where the host has no IPv6 loopback).
bool FreeOnIpv6Loopback(int port) {
  const int fd = socket(AF_INET6, SOCK_STREAM, 0);
  if (fd < 0) return true;
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  a.sin6_port = htons(static_cast<uint16_t>(port));
  const bool free =
      bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 || errno != EADDRINUSE;
  close(fd);
  return free;
}
}  // namespace

// Daemons given the port (GoBGP's listener) bind it on ::1 too, where the kernel hands out
// ephemeral ports independently of 127.0.0.1: a port taken there is skipped.
int FreeTcpPort() {
  for (int attempt = 0; attempt < 20; ++attempt) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof(a);
    int port = -1;
    if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      port = ntohs(a.sin_port);
    }
    const bool free6 = port < 0 || FreeOnIpv6Loopback(port);
    close(fd);
    if (free6) return port;
  }
  return -1;
}

bool WaitFor(const std::function<bool()>& condition, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (true) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

absl::StatusOr<std::string> RunCommand(const std::vector<std::string>& argv) {
  ExtendPath();
  int pipefd[2];
  if (pipe(pipefd) != 0) return absl::InternalError("pipe failed");
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipefd[1], 1);
    close(pipefd[0]);
    close(pipefd[1]);
    const int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, 2);
    auto args = Argv(argv);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(pipefd[1]);
  std::string out;
  char buf[65536];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof(buf))) > 0) out.append(buf, size_t(n));
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(absl::StrCat(argv[0], " exited with status ", status, ": ", out));
  }
  return out;
}

}  // namespace sluice::testing
