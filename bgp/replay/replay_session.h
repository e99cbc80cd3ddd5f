#pragma once
// ReplaySession: one BGP session of sluice-replay on Boost.Asio — a minimal speaker that opens
// (or accepts) a TCP connection, exchanges OPENs and KEEPALIVEs (RFC 4271 §8: OpenSent,
// OpenConfirm, Established), then writes pre-encoded UPDATEs as fast as TCP takes them, or at the
// capture's pace, while keeping the session alive: KEEPALIVEs every hold/3 seconds, the peer's
// hold timer honoured, its UPDATEs counted (prefixes and End-of-RIB markers).
//
// Order of work once Established: the table stream (ending with End-of-RIB markers), then, if
// asked, after a delay the withdrawal stream; then it waits for the peer's End-of-RIB if asked,
// lingers if asked, and closes with a Cease NOTIFICATION (RFC 4486 subcode 2). Extra routes
// (SetExtra) go one UPDATE at a time when asked (AnnounceNext), never before the table is written:
// a single new route from a peer whose table is loaded, in the same session.
//
// Restarts (RFC 4724, RFC 8538): with `graceful_restart` the session advertises the Graceful
// Restart capability (N bit set, F bit for the families it sends routes of). With `reconnect` a
// dropped connection is opened again (active: after a back-off of 0.2 s doubling to 2 s;
// passive: the next Accept()), the table is sent again (the reconnect encoder's, if set) with
// its End-of-RIB, and with graceful restart our OPENs after the first carry the R bit. As a
// receiver (track_held) with graceful restart, a drop without Hard Reset keeps the peer's routes
// as stale (see HeldRoutes) and waits for the peer to come back; its End-of-RIB per family, or
// its restart time running out, sweeps what was not announced again.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bgp/replay/asio.h"
#include "bgp/replay/feed_encoder.h"
#include "bgp/replay/held_routes.h"
#include "bgp/wire/message_framer.h"
#include "bgp/wire/open_message.h"
#include "bgp/wire/update_decoder.h"

namespace sluice::bgp::replay {

struct SessionOptions {
  std::string name;                               // for messages: the capture peer
  boost::asio::ip::tcp::endpoint remote;          // where to connect (active open)
  std::optional<boost::asio::ip::address> local;  // source address to bind, if any
  uint32_t local_as = 0;
  uint32_t peer_as = 0;  // 0: accept any
  net::IPv4Address router_id;
  uint16_t hold_time = 90;         // seconds offered
  bool extended_messages = false;  // offer RFC 8654
  AfiSafiSet families;             // offered (unicast families of the feed)
  std::optional<double> pace;      // replay at the capture's pace times this factor
  double withdraw_after = -1;      // seconds after the table to withdraw everything; < 0: never
  // Flap mode (route flap damping tests): one flap per `flap_every` seconds — every route is
  // withdrawn half a period after the table was sent and announced again half a period later;
  // `flaps` cycles (0: until stopped), ending with the routes announced. > 0 overrides
  // withdraw_after.
  double flap_every = 0;
  uint64_t flaps = 0;
  bool wait_eor = false;        // stay until the peer's End-of-RIB for every family
  double linger = 0;            // seconds to stay up at the end; < 0: until stopped
  double connect_timeout = 30;  // seconds of connection attempts (active open)
  bool track_held = false;      // keep the set of prefixes the peer's UPDATEs leave us holding
  // Advertise graceful restart with this restart time (seconds, at most 4095) and, as a
  // receiver, keep a restarting peer's routes (see above).
  std::optional<uint16_t> graceful_restart;
  bool reconnect = false;  // open the session again when the connection drops
};

// Seconds on the monotonic clock (CLOCK_MONOTONIC, shared by every process of the host): lets
// a benchmark compare times printed by several sluice-replay processes.
double MonotonicSeconds();

struct SessionStats {
  std::string state = "Idle";
  std::string error;              // why the session ended early, if it did
  uint64_t messages_sent = 0;     // UPDATEs of the streams
  uint64_t prefixes_sent = 0;     // announcements written to the socket
  uint64_t withdrawals_sent = 0;  // prefixes_sent and withdrawals_sent: this connection's
  uint64_t skipped = 0;           // NLRI the session could not carry
  uint64_t updates_received = 0;
  uint64_t prefixes_received = 0;
  uint64_t withdrawals_received = 0;
  double first_update_received = -1;  // seconds after Established
  double last_update_received = -1;
  bool end_of_rib_received = false;
  double table_seconds = -1;     // Established → last table octet written
  double withdraw_seconds = -1;  // first → last withdrawal octet written
  uint64_t flaps = 0;            // withdraw + announce cycles done (flap mode)
  uint64_t extra_sent = 0;       // extra UPDATEs written or queued (AnnounceNext)
  std::optional<Notification> notification_received;
  std::optional<Notification> notification_sent;
  std::string negotiated;  // summary of the peer's OPEN
  // With track_held: prefixes the peer announced and has not withdrawn, and when that set last
  // changed (MonotonicSeconds(); -1: never).
  uint64_t prefixes_held = 0;
  uint64_t prefixes_stale = 0;  // of prefixes_held: kept from before a drop, not yet refreshed
  double held_changed_mono = -1;
  double table_started_mono = -1;     // first table octet written
  double withdraw_started_mono = -1;  // first withdrawal octet written
  // Restarts.
  uint64_t connections = 0;  // times the session reached Established
  uint64_t drops = 0;        // connections lost that the session went on after
  std::string last_drop;     // why the last of them ended
  uint64_t stale_kept = 0;   // routes kept as stale at drops (graceful restart helper)
  uint64_t stale_swept = 0;  // stale routes removed: End-of-RIB, F bit clear, or restart time
  uint64_t flushed = 0;      // routes removed at drops without graceful restart
};

class ReplaySession {
 public:
  // Encodes the table and withdrawal streams for the given parameters. Called once before the
  // session starts (for the parameters we offer), and again if the negotiated ones differ.
  using Encoder =
      std::function<void(const SessionParams&, EncodedStream* table, EncodedStream* withdraw)>;

  ReplaySession(boost::asio::io_context& io, SessionOptions options, Encoder encoder);

  void Connect();                                    // active open
  void Accept(boost::asio::ip::tcp::socket socket);  // passive: an accepted connection
  // Ends the session: Cease NOTIFICATION (if Established or later) and close.
  void Stop(const std::string& why);
  // Extra UPDATEs held back from the table, one message each, encoded for the negotiated
  // parameters when the session reaches Established. Call before Connect/Accept.
  using ExtraEncoder = std::function<std::vector<std::vector<uint8_t>>(const SessionParams&)>;
  void SetExtra(ExtraEncoder encoder) { extra_encoder_ = std::move(encoder); }
  // Sends the next extra UPDATE: at once when the table stream is written, else right after it.
  // False (nothing sent) when none is left or the session is not Established.
  bool AnnounceNext();
  size_t extra_left() const { return extra_.size() - extra_asked_; }

  // Closes the connection without a NOTIFICATION, as a crash would (the session goes on with
  // `reconnect` or when graceful restart keeps the peer's routes).
  void DropConnection();
  // Passive: the session waits for a connection (its first, or the next after a drop).
  bool waiting_for_connection() const { return state_ == State::kIdle && !done_; }
  // The table and withdrawals to send after a reconnect instead of the encoder's. Call before
  // Connect/Accept.
  void SetReconnectEncoder(Encoder encoder) { reconnect_encoder_ = std::move(encoder); }

  // Starts the withdrawal stream now instead of after withdraw_after (once the table is written:
  // at once if it is). Ignored unless withdraw_after >= 0 and the session is Established.
  void WithdrawNow();

  bool done() const { return done_; }
  const SessionStats& stats() const { return stats_; }
  const SessionOptions& options() const { return options_; }
  // Progress: announcements and withdrawals written so far.
  uint64_t progress() const { return stats_.prefixes_sent + stats_.withdrawals_sent; }

  std::function<void(ReplaySession*)> on_done;  // the session is over (closed)
  std::function<void(ReplaySession*)> on_sent;  // every stream written
  // Stream milestones: "table_start" and "withdraw_start" (first octet being written),
  // "table_sent" (last table octet written). With track_held: the held set changed.
  std::function<void(ReplaySession*, const char* milestone)> on_stream;
  std::function<void(ReplaySession*)> on_held_change;

 private:
  enum class State { kIdle, kConnect, kOpenSent, kOpenConfirm, kEstablished, kClosing, kDone };
  // How the connection ended, for graceful restart (RFC 8538 §4).
  enum class Drop { kTransport, kNotification, kHardReset };
  using Clock = std::chrono::steady_clock;

  // replay_restart.cc: drops, reconnects, the graceful restart helper.
  Capabilities LocalCapabilities() const;
  Notification StopNotification() const;  // Cease, as a Hard Reset when both sides set N
  void TearDown();                        // timers, socket; stale handlers become no-ops
  bool AfterDrop();                       // true: the session goes on
  AfiSafiSet RetainedFamilies() const;
  void ResetConnection();
  void ScheduleReconnect();
  void OnRestartTimer();
  void SweepOnOpen(const OpenMessage& open);
  void SweepOnEndOfRib(AfiSafi family);
  void HeldChanged();

  SessionParams OfferedParams() const;
  void TryConnect();
  void OnConnected();
  void StartReading();
  void OnMessage(Bytes message);
  void OnOpen(Bytes message);
  void OnEstablished();
  void OnUpdate(Bytes message);
  void Fail(const std::string& error, std::optional<Notification> notify = std::nullopt);
  void SendSmall(std::vector<uint8_t> message);
  void Pump();
  void AfterStreams();
  // Sends `stream` from its start `seconds` from now (flap mode).
  void StreamAfter(EncodedStream* stream, double seconds);
  void StartWithdrawStream();
  void QueueExtra();  // the extras asked for and not yet queued, into small_
  void MaybeFinish();
  void Close();
  void ArmHoldTimer();
  void ArmKeepalive();
  void SetState(State s);
  double Since(Clock::time_point t) const;

  boost::asio::io_context& io_;
  SessionOptions options_;
  Encoder encoder_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer hold_timer_, keepalive_timer_, pace_timer_, misc_timer_;
  State state_ = State::kIdle;
  bool done_ = false;
  SessionStats stats_;
  Clock::time_point connect_started_, established_at_, withdraw_started_;

  AttributeStore store_;
  SessionParams assumed_, params_;
  Negotiated negotiated_;
  uint16_t hold_time_ = 0;
  std::unique_ptr<UpdateDecoder> decoder_;
  UpdateMessage update_;
  AfiSafiSet eor_pending_;
  MessageFramer framer_;

  EncodedStream table_, withdraw_;
  EncodedStream* stream_ = nullptr;  // being written
  size_t written_ = 0;               // octets of *stream_ written
  size_t mark_ = 0;                  // next mark of *stream_ not yet fully written
  bool writing_ = false;
  std::deque<std::vector<uint8_t>> small_;
  std::vector<uint8_t> in_flight_small_;
  bool streams_done_ = false;
  bool lingering_ = false;
  bool withdraw_requested_ = false;  // WithdrawNow() before the table was written
  bool awaiting_withdraw_ = false;   // table written, withdraw_after running
  HeldRoutes held_;
  ExtraEncoder extra_encoder_;
  std::vector<std::vector<uint8_t>> extra_;  // encoded at Established
  size_t extra_next_ = 0;                    // next to announce
  size_t extra_asked_ = 0;                   // AnnounceNext calls granted (sent or waiting)
  bool table_written_ = false;

  // Restarts.
  Encoder reconnect_encoder_;
  uint64_t generation_ = 0;  // bumped at each teardown: handlers of older connections return
  bool passive_ = false;
  bool stopping_ = false;  // Stop() or a final failure: no reconnect
  bool had_open_ = false;  // the peer's OPEN arrived on this connection
  Drop drop_ = Drop::kTransport;
  std::string drop_reason_;
  double backoff_ = 0;  // seconds before the next reconnect attempt
  boost::asio::steady_timer restart_timer_;
};

}  // namespace sluice::bgp::replay
