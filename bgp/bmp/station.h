#pragma once
// Station: the TCP connection to one BMP monitoring station (RFC 7854 §3.2: the router connects,
// then sends only), with a bounded output buffer, on the exporter's own I/O thread.
//
// Appending never blocks and never waits for the station: it copies the octets into the buffer
// under a mutex. Past `buffer_bytes` octets queued the connection is closed and everything queued
// dropped; the station is connected again after a backoff (1 s, doubling, at most `max_backoff`)
// and must then be re-synchronised from scratch (RFC 7854 §5: state is sent again on each new
// session). A station that closes the connection is noticed at once (a read is kept pending) and
// connected again the same way.
//
// Re-synchronisation: each connection has a generation. Once connected, the station calls
// `on_connected(generation)` (on its I/O thread); the exporter then appends the snapshot with
// AppendSync(generation, ...) and calls EndSync(generation). Until EndSync, live messages
// (Append) are held back and follow the snapshot, so that nothing older is sent after something
// newer. Held messages count against the buffer too. A generation that is no longer current
// (the connection was lost) rejects its snapshot: AppendSync returns false.
//
// Memory: at most `buffer_bytes` queued plus the batch being written (itself at most
// `buffer_bytes`), in OctetQueue chunks, plus the spare chunks kept for reuse
// (OctetQueue::kMaxSpares); everything is freed when the connection is lost.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "bgp/bmp/octet_queue.h"
#include "bgp/session/asio.h"
#include "net/ip_address.h"

namespace sluice::bgp::bmp {

inline constexpr size_t kDefaultBufferBytes = size_t{64} << 20;  // 64 MiB

// The Route Monitoring a station is sent (RFC 7854 §4.6, RFC 9069): bits of
// StationConfig::route_monitoring. Initiation, Peer Up/Down, Statistics and Termination go to
// every station.
enum RouteMonitoringBit : uint8_t {
  kMonitorPrePolicy = 1,   // each peer's Adj-RIB-In as received (its UPDATEs, octet for octet)
  kMonitorPostPolicy = 2,  // each peer's Adj-RIB-In after its import policy (L flag)
  kMonitorLocRib = 4,      // the Loc-RIB (peer type 3)
};
inline constexpr uint8_t kMonitorAll = kMonitorPrePolicy | kMonitorPostPolicy | kMonitorLocRib;

struct StationConfig {
  net::IPAddress address;
  uint16_t port = 0;
  uint8_t route_monitoring = kMonitorAll;     // RouteMonitoringBit set
  size_t buffer_bytes = kDefaultBufferBytes;  // octets queued before the connection is dropped
  double initial_backoff_s = 1;               // first reconnect delay, seconds
  double max_backoff_s = 10;                  // reconnect delay ceiling, seconds
};

// Counters of one station (for `show` and tests).
struct StationStats {
  bool connected = false;
  bool synced = false;      // the snapshot of the current connection was sent (EndSync)
  uint64_t connects = 0;    // connections established
  uint64_t overflows = 0;   // connections dropped because the buffer was full
  uint64_t bytes_sent = 0;  // octets written to the socket
  size_t queued_bytes = 0;  // octets waiting (buffer plus held)
};

class Station : public std::enable_shared_from_this<Station> {
 public:
  static constexpr size_t kWriteNowBytes = size_t{256} << 10;
  static constexpr std::chrono::milliseconds kCoalesce{2};

  // `io` runs on the exporter's thread; `on_connected` is called there.
  Station(boost::asio::io_context& io, StationConfig config,
          std::function<void(uint64_t generation)> on_connected);
  ~Station();
  Station(const Station&) = delete;
  Station& operator=(const Station&) = delete;

  // Starts connecting (posted to the I/O thread).
  void Start();
  // Queues `message` (a final message, e.g. Termination) and closes once it is written or
  // after `grace_s` seconds; no reconnect afterwards.
  void Finish(std::vector<uint8_t> message, double grace_s);
  bool finished() const { return finished_.load(); }

  // Any thread. A live message: queued when the station is synced, held during a snapshot,
  // dropped while disconnected. False when dropped (disconnected, or it overflowed the buffer).
  bool Append(std::span<const uint8_t> message);
  // Any thread. Snapshot octets of connection `generation`; false when that connection is gone
  // (stop the snapshot) or the buffer overflowed.
  bool AppendSync(uint64_t generation, std::span<const uint8_t> messages);
  // Any thread. The snapshot of `generation` is complete: held live messages follow it.
  void EndSync(uint64_t generation);
  // Octets waiting: queued for the socket plus the live messages held during a snapshot.
  size_t queued_bytes() const;
  // Octets queued for the socket, not counting held live messages: a snapshot producer waits
  // while this is above half the buffer. (Held messages go out only after the snapshot, so
  // waiting for them to drain would wait for ever.)
  size_t unsent_bytes() const;
  size_t buffer_bytes() const { return config_.buffer_bytes; }
  const StationConfig& config() const { return config_; }
  bool monitors(RouteMonitoringBit what) const { return (config_.route_monitoring & what) != 0; }
  StationStats stats() const;

 private:
  enum class State { kDisconnected, kSyncing, kLive };

  void Connect();
  void OnConnect(const boost::system::error_code& ec);
  // Keeps a read pending on the connection of `generation`, so that a station closing it is
  // noticed at once rather than at the next write.
  void WatchForClose(uint64_t generation);
  void OnRead(uint64_t generation, const boost::system::error_code& ec);
  // Called with mu_ held: the connection is lost; everything queued is dropped.
  void DisconnectLocked();
  void ScheduleReconnect();
  // Called with mu_ held: drop everything and post a close.
  void OverflowLocked();
  // Appends `octets` to `to` (out_ or held_) within the buffer's bound, else overflows.
  bool QueueLocked(OctetQueue& to, std::span<const uint8_t> octets);
  // Called with mu_ held: has what is queued written — at once when `now` or when at least
  // kWriteNowBytes are queued, else after kCoalesce, so that many small appends (one per batch of
  // routes) become one write and one wake-up of the I/O thread.
  void KickLocked(bool now = false);
  void WriteSoon();
  void Write();
  void OnWrite(const boost::system::error_code& ec, size_t n);
  void CloseSocket();

  boost::asio::io_context& io_;
  const StationConfig config_;
  std::function<void(uint64_t)> on_connected_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer timer_;        // reconnect backoff, Finish's grace
  boost::asio::steady_timer flush_timer_;  // WriteSoon
  double backoff_s_;
  std::atomic<bool> finished_{false};
  bool finishing_ = false;  // I/O thread

  mutable std::mutex mu_;
  State state_ = State::kDisconnected;
  uint64_t generation_ = 0;
  OctetQueue out_;                              // queued for the socket; keeps the spare chunks
  OctetQueue held_;                             // live messages during a snapshot
  OctetQueue writing_;                          // I/O thread only: the batch being written
  std::vector<boost::asio::const_buffer> iov_;  // I/O thread only: writing_'s chunks
  std::array<uint8_t, 512> read_buffer_;        // I/O thread only: what a station sends, ignored
  bool write_posted_ = false;
  bool writing_now_ = false;
  StationStats stats_;
};

}  // namespace sluice::bgp::bmp
