#include "bgp/bmp/octet_queue.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace sluice::bgp::bmp {

OctetQueue::Chunk OctetQueue::NewChunk() {
  if (spares_.empty()) return Chunk{std::unique_ptr<uint8_t[]>(new uint8_t[kChunkBytes]), 0};
  Chunk c{std::move(spares_.back()), 0};
  spares_.pop_back();
  return c;
}

void OctetQueue::Append(std::span<const uint8_t> octets) {
  size_ += octets.size();
  while (!octets.empty()) {
    if (chunks_.empty() || chunks_.back().size == kChunkBytes) chunks_.push_back(NewChunk());
    Chunk& last = chunks_.back();
    const size_t n = std::min(octets.size(), kChunkBytes - last.size);
    std::memcpy(last.data.get() + last.size, octets.data(), n);
    last.size += n;
    octets = octets.subspan(n);
  }
}

void OctetQueue::Splice(OctetQueue& other) {
  for (Chunk& c : other.chunks_) chunks_.push_back(std::move(c));
  size_ += other.size_;
  other.chunks_.clear();
  other.size_ = 0;
}

std::vector<boost::asio::const_buffer> OctetQueue::Buffers() const {
  std::vector<boost::asio::const_buffer> out;
  out.reserve(chunks_.size());
  for (const Chunk& c : chunks_) out.emplace_back(c.data.get(), c.size);
  return out;
}

void OctetQueue::Recycle(OctetQueue& written) {
  for (Chunk& c : written.chunks_) {
    if (spares_.size() == kMaxSpares) break;
    spares_.push_back(std::move(c.data));
  }
  written.chunks_.clear();
  written.size_ = 0;
}

void OctetQueue::Release() {
  chunks_ = std::deque<Chunk>();
  spares_ = std::vector<std::unique_ptr<uint8_t[]>>();
  size_ = 0;
}

}  // namespace sluice::bgp::bmp
