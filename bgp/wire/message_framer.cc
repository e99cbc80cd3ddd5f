#include "bgp/wire/message_framer.h"

#include <algorithm>
#include <cstring>

namespace sluice::bgp {

bool CheckHeader(Bytes header, size_t max_message_size, size_t* length, Notification* error) {
  for (int i = 0; i < kMarkerSize; ++i) {
    if (header[i] != 0xff) {
      *error = Notification{
          uint8_t(ErrorCode::kMessageHeader), header_error::kConnectionNotSynchronized, {}};
      return false;
    }
  }
  const size_t len = LoadU16(header.data() + 16);
  const uint8_t type = header[18];
  size_t min = kHeaderSize, max = max_message_size;
  switch (MessageType(type)) {
    case MessageType::kOpen:
      min = 29;
      max = kMaxMessageSize;  // RFC 8654 §4
      break;
    case MessageType::kUpdate:
      min = 23;
      break;
    case MessageType::kNotification:
      min = 21;
      break;
    case MessageType::kKeepalive:
      min = kHeaderSize;
      max = kHeaderSize;
      break;
    case MessageType::kRouteRefresh:
      min = 23;
      break;
    default:
      *error =
          Notification{uint8_t(ErrorCode::kMessageHeader), header_error::kBadMessageType, {type}};
      return false;
  }
  if (len < min || len > max) {
    *error = Notification{uint8_t(ErrorCode::kMessageHeader),
                          header_error::kBadMessageLength,
                          {header[16], header[17]}};
    return false;
  }
  *length = len;
  return true;
}

std::span<uint8_t> MessageFramer::Prepare(size_t n) {
  if (start_ > 0 && (start_ == end_ || start_ > capacity_ / 2)) Repack(capacity_);
  if (capacity_ < end_ + n) Repack(std::max(end_ - start_ + n, capacity_ * 2));
  return std::span<uint8_t>(buffer_.get() + end_, n);
}

void MessageFramer::ShrinkToBuffered() {
  if (capacity_ > buffered()) Repack(buffered());
}

void MessageFramer::Repack(size_t capacity) {
  const size_t size = end_ - start_;
  if (capacity == capacity_) {
    if (start_ > 0) std::memmove(buffer_.get(), buffer_.get() + start_, size);
  } else {
    std::unique_ptr<uint8_t[]> fresh;
    if (capacity > 0) fresh = std::make_unique_for_overwrite<uint8_t[]>(capacity);
    if (size > 0) std::memcpy(fresh.get(), buffer_.get() + start_, size);
    buffer_ = std::move(fresh);
    capacity_ = capacity;
  }
  start_ = 0;
  end_ = size;
}

void MessageFramer::Append(Bytes data) {
  std::span<uint8_t> dst = Prepare(data.size());
  if (!data.empty()) std::memcpy(dst.data(), data.data(), data.size());
  Commit(data.size());
}

MessageFramer::Result MessageFramer::Next(Bytes* message, Notification* error) {
  if (failed_) return Result::kError;
  if (end_ - start_ < size_t(kHeaderSize)) return Result::kNeedMore;
  const Bytes header(buffer_.get() + start_, kHeaderSize);
  size_t len = 0;
  if (!CheckHeader(header, max_message_size_, &len, error)) {
    failed_ = true;
    return Result::kError;
  }
  if (end_ - start_ < len) return Result::kNeedMore;
  *message = Bytes(buffer_.get() + start_, len);
  start_ += len;
  return Result::kMessage;
}

}  // namespace sluice::bgp
