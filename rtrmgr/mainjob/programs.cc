#include "rtrmgr/mainjob/programs.h"

#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

namespace sluice::rtrmgr::mainjob {

using Clock = std::chrono::steady_clock;

std::string BuildDir() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return ".";
  std::string exe(path, static_cast<size_t>(n));
  for (int i = 0; i < 3; ++i) exe.resize(exe.rfind('/'));
  return exe;
}

pid_t Spawn(const std::vector<std::string>& argv, const std::string& out_file,
            const std::string& err_file) {
  std::vector<char*> cargv;
  std::vector<std::string> copy = argv;
  for (std::string& a : copy) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int out = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const int in = open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    setpgid(0, 0);  // a terminal's ^C goes to us; we stop the children in order
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  return pid;
}

namespace {
std::set<pid_t> g_reaped;  // ended and reaped: never signalled again
}  // namespace

bool Running(pid_t pid) {
  if (pid <= 0 || g_reaped.count(pid)) return false;
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == 0) return true;
  g_reaped.insert(pid);
  return false;
}

void Stop(pid_t pid, double seconds) {
  if (!Running(pid)) return;
  kill(pid, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (Clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) != 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Tail(const std::string& path, size_t lines) {
  const std::string text = ReadFile(path);
  size_t pos = text.size();
  for (size_t n = 0; n <= lines; ++n) {
    if (pos == 0) return text;
    pos = text.rfind('\n', pos - 1);
    if (pos == std::string::npos) return text;
  }
  return text.substr(pos + 1);
}

bool EnterPrivateNetworkNamespace() {
  if (unshare(CLONE_NEWNET) != 0) {
    std::cerr << "unshare(CLONE_NEWNET) failed (needs root): " << std::strerror(errno) << "\n";
    return false;
  }
  const int rc = std::system(
      "ip link set lo up && ip link add v0 type veth peer name v1 && "
      "ip addr add 10.1.0.1/24 dev v0 && ip link set v0 up && ip link set v1 up");
  if (rc != 0) std::cerr << "setting up the private network namespace failed\n";
  return rc == 0;
}

}  // namespace sluice::rtrmgr::mainjob
