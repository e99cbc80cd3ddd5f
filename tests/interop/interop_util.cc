#include "tests/interop/interop_util.h"

#include <fcntl.h>
#include <signal.h>
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
