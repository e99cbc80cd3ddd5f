#pragma once
// OctetQueue: a FIFO of octets kept in fixed-size chunks, the buffer of a BMP station (station.h).
//
// Appending copies into the last chunk and starts a new one when it is full, so what is queued is
// never moved again: no reallocation and no copy of the queue as it grows. The octets go out in
// one gathered write (Buffers()). Chunks written out come back as spares (Recycle) and the next
// appends reuse them, so a steady stream writes to memory it has already touched instead of
// faulting in fresh pages; at most kMaxSpares chunks are kept.
//
// Not thread-safe: its owner guards it.

#include <boost/asio/buffer.hpp>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <vector>

namespace sluice::bgp::bmp {

class OctetQueue {
 public:
  static constexpr size_t kChunkBytes = size_t{256} << 10;
  static constexpr size_t kMaxSpares = 16;  // 4 MiB kept for reuse, at most

  OctetQueue() = default;
  OctetQueue(OctetQueue&&) = default;
  OctetQueue& operator=(OctetQueue&&) = default;

  // Copies `octets` to the end.
  void Append(std::span<const uint8_t> octets);
  // Octets queued.
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Moves everything queued in `other` to the end of this queue, without copying octets; `other`
  // is left empty (its spares stay with it).
  void Splice(OctetQueue& other);
  // The queued octets, chunk by chunk, in order: for one gathered write. Valid until the queue
  // changes.
  std::vector<boost::asio::const_buffer> Buffers() const;
  // Empties `written` (typically a queue whose octets were written out) and keeps its chunks
  // as this queue's spares, up to kMaxSpares.
  void Recycle(OctetQueue& written);
  // Empties the queue and frees its memory, spares included.
  void Release();

 private:
  struct Chunk {
    std::unique_ptr<uint8_t[]> data;  // kChunkBytes octets
    size_t size = 0;                  // octets used
  };
  Chunk NewChunk();

  std::deque<Chunk> chunks_;
  std::vector<std::unique_ptr<uint8_t[]>> spares_;
  size_t size_ = 0;
};

}  // namespace sluice::bgp::bmp
