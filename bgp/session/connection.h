#pragma once
// Connection: one TCP connection of a BGP session on Boost.Asio — the transport under the FSM. It
// cuts the byte stream into messages (MessageFramer) and hands them to its owner, and writes what
// the owner queues. It knows nothing of BGP states.
//
// Keepalives never starve:
//  - Reading: at most kSliceMessages messages or kSliceTime of handling per event, then the rest
//    is handled in a handler posted to the event loop, so that timers (KEEPALIVE, hold) and other
//    peers run in between, however slow the owner is. Nothing more is read from the socket while
//    whole messages wait in the framer, so memory stays bounded (TCP flow control holds the peer
//    back instead). A read waits for the socket to be readable before it takes a buffer, and the
//    framer gives back its room once the messages are handled: a connection between reads holds
//    at most a partial message, so idle peers cost no read buffer each.
//  - PauseReading(true) stops handing messages to the owner at the next message boundary, and
//    reading from the socket, until PauseReading(false): the owner's consumer is full, and TCP
//    holds the peer back. Writing and timers go on. The peer's KEEPALIVEs are not read either, so
//    a pause longer than the hold time ends the session (the hold timer is the owner's).
//  - Writing: control messages (OPEN, KEEPALIVE, NOTIFICATION, ROUTE-REFRESH: SendUrgent) go out
//    before queued UPDATEs (SendBulk), which are written in chunks of at most kWriteChunk octets
//    cut at message boundaries. A KEEPALIVE therefore waits for at most one chunk, never for the
//    backlog. A chunk gathers the queued buffers (up to kMaxGather of them) into one write: the
//    many small batches a turn of the loop queues while a write is in flight cost one system
//    call, not one each.
//
// Lifetime: owned through std::shared_ptr (every pending operation holds one). Close() detaches the
// owner: no callback reaches it afterwards, even from a handler already queued.
//
// A peer that stops reading (RFC 9687): while something waits to be written and the peer takes
// none of it for the send hold time (SendHoldTimer), the connection fails with OnClosed
// "Send Hold Timer Expired ...". No NOTIFICATION 8 goes out: a write is stuck in the middle of a
// message, and the peer reads nothing anyway; the owner reports the reason.
//
// Faults: Asio calls use their error_code overloads; an exception escaping a handler's own work
// (std::bad_alloc while reading or writing) fails this connection (OnClosed "internal error: ...")
// and nothing else.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bgp/session/asio.h"
#include "bgp/session/send_hold_timer.h"
#include "bgp/wire/byte_io.h"
#include "bgp/wire/message_framer.h"
#include "bgp/wire/notification.h"
#include "net/ip_address.h"

namespace sluice::bgp {

class Connection;

// Told about a connection's events; every callback may call Close() on it.
class ConnectionOwner {
 public:
  virtual ~ConnectionOwner() = default;
  virtual void OnConnected(Connection* c) = 0;  // an outgoing connection is up
  virtual void OnConnectFailed(Connection* c, const std::string& reason) = 0;
  // A whole message, header checked (RFC 4271 §6.1); valid during the call only.
  virtual void OnMessage(Connection* c, Bytes message) = 0;
  // The messages handed over since the last call came in one slice of reading (see the top of
  // this file): what they started may be finished in one go. Called after at least one message.
  virtual void OnSliceEnd(Connection* c) { (void)c; }
  // A bad header: the stream is unusable; `error` is the NOTIFICATION to send.
  virtual void OnHeaderError(Connection* c, const Notification& error) = 0;
  // The peer closed the connection, or it failed.
  virtual void OnClosed(Connection* c, const std::string& reason) = 0;
  // Queued UPDATEs drained to at most kLowWater octets (after each completed write).
  virtual void OnWritable(Connection* c) = 0;
};

// Socket protections, set before connect() (outgoing) or right after accept() (incoming; an
// incoming connection's MD5 key is the listening socket's).
struct ConnectionOptions {
  std::string md5_password;                     // RFC 2385; outgoing only
  int gtsm_hops = 0;                            // RFC 5082: 0 = off
  int multihop_ttl = 0;                         // eBGP multihop: outgoing TTL; 0 = default
  std::optional<net::IPAddress> local_address;  // source to bind (outgoing)
  // RFC 9687 send hold time; unset: SendHoldTimer::kMinimum (8 minutes) until
  // set_send_hold_time() (SendHoldTimer::For(hold time) once negotiated). Zero disables.
  std::optional<std::chrono::milliseconds> send_hold_time;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  static constexpr size_t kReadSize = 64 * 1024;
  static constexpr int kSliceMessages = 256;
  static constexpr std::chrono::microseconds kSliceTime{2000};
  static constexpr size_t kWriteChunk = 64 * 1024;
  static constexpr size_t kMaxGather = 64;  // buffers one write takes at most
  static constexpr size_t kLowWater = 256 * 1024;
  // After Close(): how long the NOTIFICATION may take to leave, and the peer to close its side.
  static constexpr std::chrono::milliseconds kCloseLinger{1000};

  // Opens a connection to `remote` (the owner hears OnConnected or OnConnectFailed).
  static std::shared_ptr<Connection> Connect(boost::asio::io_context& io, ConnectionOwner* owner,
                                             const boost::asio::ip::tcp::endpoint& remote,
                                             const ConnectionOptions& options);
  // Takes an accepted socket and starts reading. `owner` may be null (a connection that is only
  // told a NOTIFICATION and closed).
  static std::shared_ptr<Connection> Accepted(boost::asio::io_context& io, ConnectionOwner* owner,
                                              boost::asio::ip::tcp::socket socket,
                                              const ConnectionOptions& options);

  Connection(boost::asio::io_context& io, ConnectionOwner* owner);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void SendUrgent(std::vector<uint8_t> message);
  // Whole messages, back to back. The queue keeps their octets, not the vector's spare capacity.
  void SendBulk(std::vector<uint8_t> messages);
  size_t backlog() const { return backlog_; }  // octets of SendBulk not yet written
  // Stops (true) or resumes (false) handing messages to the owner and reading the socket.
  void PauseReading(bool paused);
  bool reading_paused() const { return paused_; }

  // Stops reading and detaches the owner; drops queued UPDATEs; writes what SendUrgent queued
  // (the NOTIFICATION), then half-closes and waits up to kCloseLinger for the peer to close.
  void Close();

  // After the OPEN exchange (RFC 8654 extended messages: 65535).
  void set_max_message_size(size_t size) { framer_.set_max_message_size(size); }
  void set_send_hold_time(SendHoldTimer::Clock::duration d) { send_hold_.set_duration(d); }
  // After the OPEN exchange: the send hold time becomes SendHoldTimer::For(hold_time_s) (RFC 9687
  // §3), unless ConnectionOptions::send_hold_time chose one.
  void NegotiatedHoldTime(uint16_t hold_time_s) {
    if (!send_hold_chosen_) send_hold_.set_duration(SendHoldTimer::For(hold_time_s));
  }
  const boost::asio::ip::tcp::endpoint& local_endpoint() const { return local_; }
  const boost::asio::ip::tcp::endpoint& remote_endpoint() const { return remote_; }
  bool closed() const { return closing_; }

 private:
  void StartConnect(const boost::asio::ip::tcp::endpoint& remote, const ConnectionOptions& options);
  void OnSocketReady();
  void StartRead();
  void ReadReady();  // the socket is readable
  void HandleSlice();
  void PostSlice();            // HandleSlice from the event loop, at most one pending
  void EndSlice(int handled);  // tells the owner (OnSliceEnd) when the slice handed anything
  void Pump();
  // Where the whole messages of `buffer` from `offset` that fit in `room` octets end (at least
  // one message when `at_least_one`; the buffer's end when it does not hold whole messages).
  size_t ChunkEnd(const std::vector<uint8_t>& buffer, size_t offset, size_t room,
                  bool at_least_one) const;
  // Fills gather_ with the next write's buffers (whole messages, at most kWriteChunk octets
  // unless one message is larger); returns its length.
  size_t GatherBulk();
  // `length` octets of bulk_ were written.
  void ConsumeBulk(size_t length);
  void Fail(const std::string& reason);
  // Runs `body` (a handler's work); an exception from it fails this connection only (Fail).
  template <typename Body>
  void Guarded(Body&& body);
  void FinishClose();
  void Drain();
  void SendHoldWaiting();   // a write starts
  void SendHoldProgress();  // a write completed
  void ArmSendHold();

  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer linger_timer_;
  SendHoldTimer send_hold_;
  bool send_hold_chosen_ = false;  // ConnectionOptions::send_hold_time was given
  boost::asio::steady_timer send_hold_timer_;
  bool send_hold_armed_ = false;
  ConnectionOwner* owner_;
  MessageFramer framer_;
  bool reading_ = false;
  bool paused_ = false;        // PauseReading
  bool slice_posted_ = false;  // a HandleSlice is posted
  bool writing_ = false;
  bool closing_ = false;
  bool finished_ = false;
  std::deque<std::vector<uint8_t>> urgent_;
  std::vector<uint8_t> urgent_in_flight_;
  std::deque<std::vector<uint8_t>> bulk_;
  size_t bulk_offset_ = 0;     // into bulk_.front()
  size_t bulk_in_flight_ = 0;  // bulk_'s buffers the write in flight reads (gather_)
  std::vector<boost::asio::const_buffer> gather_;
  size_t backlog_ = 0;
  std::vector<uint8_t> drain_buffer_;
  boost::asio::ip::tcp::endpoint local_, remote_;
  bool connected_ = false;  // the socket reached the peer (OnSocketReady), so Pump may write
};

}  // namespace sluice::bgp
