// Which Finder the CLI reaches without options: its own run directory's, or the system router's.

#include "ipc/rundir.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace sluice::ipc {
namespace {

namespace fs = std::filesystem;

// A listening-capable Unix socket file at `path` (bound, never accepted on).
void MakeSocket(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof(addr.sun_path));
  path.copy(addr.sun_path, path.size());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0) << path;
  close(fd);
}

class ClientFinderAddressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sluice-rundir-test-" + std::to_string(getpid()));
    fs::create_directories(root_ / "xdg" / "sluice");
    fs::create_directories(root_ / "system");
    fs::permissions(root_, fs::perms::all);
    fs::permissions(root_ / "xdg", fs::perms::all);
    fs::permissions(root_ / "xdg" / "sluice", fs::perms::all);
    unsetenv("SLUICE_FINDER");
    unsetenv("SLUICE_RUNDIR");
    setenv("XDG_RUNTIME_DIR", (root_ / "xdg").c_str(), 1);
  }
  void TearDown() override { fs::remove_all(root_); }

  // ClientFinderAddress() as an unprivileged user would see it (root's own run directory is
  // always /run/sluice, so a root test asks from a child that dropped to nobody).
  std::string AsUser() {
    if (geteuid() != 0) return ClientFinderAddress(system_dir());
    int pipefd[2];
    EXPECT_EQ(pipe(pipefd), 0);
    pid_t pid = fork();
    if (pid == 0) {
      close(pipefd[0]);
      if (setresuid(65534, 65534, 65534) != 0) _exit(1);
      const std::string address = ClientFinderAddress(system_dir());
      (void)!write(pipefd[1], address.data(), address.size());
      _exit(0);
    }
    close(pipefd[1]);
    std::string out;
    char buf[512];
    for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) > 0;) out.append(buf, n);
    close(pipefd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return out;
  }
  std::string system_dir() const { return (root_ / "system").string(); }
  std::string own_socket() const { return (root_ / "xdg" / "sluice" / "finder.sock").string(); }

  fs::path root_;
};

TEST_F(ClientFinderAddressTest, OwnRunDirectoryWhenNothingListens) {
  EXPECT_EQ(AsUser(), "unix:" + own_socket());
}

TEST_F(ClientFinderAddressTest, SystemRouterWhenOnlyItListens) {
  MakeSocket(system_dir() + "/finder.sock");
  EXPECT_EQ(AsUser(), "unix:" + system_dir() + "/finder.sock");
}

TEST_F(ClientFinderAddressTest, OwnRouterWinsOverTheSystemOne) {
  MakeSocket(system_dir() + "/finder.sock");
  MakeSocket(own_socket());
  EXPECT_EQ(AsUser(), "unix:" + own_socket());
}

TEST_F(ClientFinderAddressTest, EnvironmentWins) {
  MakeSocket(system_dir() + "/finder.sock");
  setenv("SLUICE_FINDER", "tcp:127.0.0.1:19999", 1);
  EXPECT_EQ(ClientFinderAddress(system_dir()), "tcp:127.0.0.1:19999");
  unsetenv("SLUICE_FINDER");
  setenv("SLUICE_RUNDIR", (root_ / "elsewhere").c_str(), 1);
  EXPECT_EQ(ClientFinderAddress(system_dir()),
            "unix:" + (root_ / "elsewhere").string() + "/finder.sock");
  unsetenv("SLUICE_RUNDIR");
}

}  // namespace
}  // namespace sluice::ipc
