#include "bench/bgp/bench_station.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace sluice::bgp::bench {
namespace {

// A listening socket on 127.0.0.1 with a port the kernel picks; -1 on failure.
int ListenOnLoopback(uint16_t* port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 1) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

// The child: accepts one connection and reads it until it closes, into one reused buffer.
[[noreturn]] void DiscardForever(int listener) {
  const int fd = ::accept(listener, nullptr, nullptr);
  std::vector<char> buffer(size_t{1} << 20);
  while (fd >= 0 && ::read(fd, buffer.data(), buffer.size()) > 0) {
  }
  ::_exit(0);
}

}  // namespace

absl::StatusOr<std::unique_ptr<BenchStation>> BenchStation::Start(uint8_t route_monitoring) {
  uint16_t port = 0;
  const int listener = ListenOnLoopback(&port);
  if (listener < 0) return absl::InternalError(absl::StrCat("listen: ", std::strerror(errno)));
  std::unique_ptr<BenchStation> s(new BenchStation());
  s->child_ = ::fork();
  if (s->child_ == 0) DiscardForever(listener);
  ::close(listener);
  if (s->child_ < 0) return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));

  bmp::StationConfig config;
  config.address = net::IPAddress(net::IPv4Address(0x7f000001));
  config.port = port;
  config.route_monitoring = route_monitoring;
  BenchStation* self = s.get();
  s->station_ = std::make_shared<bmp::Station>(
      s->io_, config, [self](uint64_t generation) { self->station_->EndSync(generation); });
  s->stations_->Add(s->station_);
  s->thread_ = std::thread([self] { self->io_.run(); });
  s->station_->Start();
  for (int i = 0; i < 500 && !s->station_->stats().synced; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!s->station_->stats().synced) return absl::InternalError("the station did not accept");
  s->slot_.Set(s->monitor_);
  return s;
}

BenchStation::~BenchStation() {
  slot_.Clear();
  stations_->Clear();
  if (station_ != nullptr) {
    station_->Finish({}, 1.0);
    for (int i = 0; i < 300 && !station_->finished(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  work_.reset();
  io_.stop();
  if (thread_.joinable()) thread_.join();
  if (child_ > 0) {
    ::kill(child_, SIGTERM);
    ::waitpid(child_, nullptr, 0);
  }
}

void BenchStation::PeerUp(const net::IPAddress& address, uint32_t as, const SessionParams& params) {
  bmp::PeerHeader header;
  header.address = address;
  header.as = as;
  header.bgp_id = address.is_v4() ? address.v4().value() : 0;
  monitor_->PeerUp(address, header, params);
}

void BenchStation::Drain() const {
  // Nothing queued and nothing more sent for 10 ms: the last write has completed too.
  uint64_t sent = bytes_sent();
  for (int i = 0; i < 3000; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const uint64_t now = bytes_sent();
    if (station_->queued_bytes() == 0 && now == sent) return;
    sent = now;
  }
}

}  // namespace sluice::bgp::bench
