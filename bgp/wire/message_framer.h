#pragma once
// MessageFramer: cuts a TCP byte stream into BGP messages and checks each 19-octet header as
// RFC 4271 §6.1 says: marker all ones (else 1/1 Connection Not Synchronized), a length of at
// least 19 and at most the maximum size — 4096, or 65535 with RFC 8654 extended messages except
// for OPEN and KEEPALIVE — and right for the type (else 1/2 Bad Message Length, data = the length
// field), a known type (else 1/3 Bad Message Type, data = the type octet).
//
//   MessageFramer framer;
//   auto buf = framer.Prepare(65536);  n = read(fd, buf.data(), buf.size());  framer.Commit(n);
//   Bytes message;  Notification error;
//   while (framer.Next(&message, &error) == MessageFramer::Result::kMessage) handle(message);
//
// After kError the stream is unusable: send `error` and close.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "bgp/wire/byte_io.h"
#include "bgp/wire/constants.h"
#include "bgp/wire/notification.h"

namespace sluice::bgp {

class MessageFramer {
 public:
  enum class Result { kMessage, kNeedMore, kError };

  explicit MessageFramer(size_t max_message_size = kMaxMessageSize)
      : max_message_size_(max_message_size) {}
  // After the OPEN exchange, when extended messages were negotiated: 65535.
  void set_max_message_size(size_t size) { max_message_size_ = size; }

  // Space for at least `n` more octets (to read into), then Commit() what was written.
  std::span<uint8_t> Prepare(size_t n);
  // Frees the room beyond what is buffered (a partial message, if any): for a stream waiting
  // for its next read, so that an idle connection holds no read buffer. Invalidates what Next()
  // returned.
  void ShrinkToBuffered();
  void Commit(size_t n) { end_ += n; }
  // Copies `data` in (Prepare + Commit).
  void Append(Bytes data);

  // The next whole message (header included), pointing into the framer: valid until the next
  // call of any other method. kNeedMore when no whole message is buffered.
  Result Next(Bytes* message, Notification* error);

  size_t buffered() const { return end_ - start_; }
  size_t capacity() const { return capacity_; }  // octets of buffer held

 private:
  // Moves the buffered octets to the front of a buffer of `capacity` octets (at least
  // buffered()), a new one unless it is the current one's size.
  void Repack(size_t capacity);

  std::unique_ptr<uint8_t[]> buffer_;  // not zeroed: only [start_, end_) is ever read
  size_t capacity_ = 0;
  size_t start_ = 0;  // first unread octet
  size_t end_ = 0;    // one past the last buffered octet
  size_t max_message_size_;
  bool failed_ = false;
};

// Checks one message header (the first 19 octets of `header`) as the framer does.
// Returns true and sets *length when valid; false with `error` filled otherwise.
bool CheckHeader(Bytes header, size_t max_message_size, size_t* length, Notification* error);

}  // namespace sluice::bgp
