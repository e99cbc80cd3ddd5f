#pragma once
// NotifySocket: the service manager's end of sd_notify(3), for tests: a Unix datagram socket at
// `path` whose messages ("READY=1", "STOPPING=1", ...) the test reads. Pass it to a program as
// NOTIFY_SOCKET=PATH.
//
//   NotifySocket notify(dir + "/notify.sock");
//   ChildProcess::Start({...}, {"NOTIFY_SOCKET=" + notify.path()});
//   EXPECT_TRUE(notify.WaitFor("READY=1", 10000));

#include <string>

namespace sluice::testing {

class NotifySocket {
 public:
  // Binds `path` (removing a socket left there); ok() says whether that worked.
  explicit NotifySocket(std::string path);
  ~NotifySocket();
  NotifySocket(const NotifySocket&) = delete;
  NotifySocket& operator=(const NotifySocket&) = delete;

  bool ok() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  // True once a message holding the line `line` has arrived (since the socket was made),
  // waiting up to `ms` milliseconds.
  bool WaitFor(const std::string& line, int ms);
  // Every message so far, one per line group, separated by "|".
  const std::string& Received() const { return received_; }
  // Forgets the messages so far: WaitFor then waits for a new one.
  void Forget() { received_.clear(); }

 private:
  bool Seen(const std::string& line) const;

  std::string path_;
  int fd_ = -1;
  std::string received_;
};

}  // namespace sluice::testing
