#pragma once
// RouteTrieArena: the pooled node storage behind RouteTrie.
//
// Nodes are named by 32-bit indices (0 means "no node"), so links cost 4 octets instead of 8.
// Storage is a list of fixed-size chunks that never move: a node's fields and its value keep
// their address for the node's whole life, and growing wastes at most one partly used chunk
// (a doubling vector could waste half). Each chunk keeps three parallel arrays:
//   - the hot part of each node (key, children, length, flags, pin count) that lookups read,
//     packed so that a longest-prefix match touches one small record per level;
//   - the parent index, which only iteration and updates read;
//   - raw storage for a value of type T, constructed only while the node holds an entry.
// Freed nodes go on a free list threaded through their first child link.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace sluice::net {

template <class Node, class T>
class RouteTrieArena {
 public:
  static constexpr int kChunkBits = 12;
  static constexpr uint32_t kChunkSize = uint32_t{1} << kChunkBits;
  // Indices stay below 2^30 so that RouteTrieIndex4 can tag them.
  static constexpr uint32_t kMaxNodes = (uint32_t{1} << 30) - 16;

  RouteTrieArena() = default;
  RouteTrieArena(const RouteTrieArena&) = delete;
  RouteTrieArena& operator=(const RouteTrieArena&) = delete;

  // True when `n` more nodes can be allocated (the index space is 32 bits).
  bool CanAllocate(uint32_t n) const {
    return free_count_ >= n || uint64_t{next_} + n - free_count_ <= kMaxNodes;
  }
  // A node index whose hot part and parent are uninitialised and whose value slot is empty.
  // Precondition: CanAllocate(1).
  uint32_t Allocate() {
    ++in_use_;
    if (free_head_ != 0) {
      const uint32_t i = free_head_;
      free_head_ = node(i).child[0];
      --free_count_;
      return i;
    }
    if ((next_ >> kChunkBits) == chunks_.size()) {
      chunks_.push_back(std::make_unique_for_overwrite<Chunk>());
    }
    return next_++;
  }
  // Returns `i` to the free list; its value must have been destroyed.
  void Free(uint32_t i) {
    --in_use_;
    ++free_count_;
    node(i).child[0] = free_head_;
    free_head_ = i;
  }
  // Releases every chunk. Every value must have been destroyed.
  void Reset() {
    chunks_.clear();
    chunks_.shrink_to_fit();
    next_ = 1;
    free_head_ = 0;
    free_count_ = 0;
    in_use_ = 0;
  }

  Node& node(uint32_t i) { return chunks_[i >> kChunkBits]->nodes[i & (kChunkSize - 1)]; }
  const Node& node(uint32_t i) const {
    return chunks_[i >> kChunkBits]->nodes[i & (kChunkSize - 1)];
  }
  uint32_t& parent(uint32_t i) { return chunks_[i >> kChunkBits]->parents[i & (kChunkSize - 1)]; }
  uint32_t parent(uint32_t i) const {
    return chunks_[i >> kChunkBits]->parents[i & (kChunkSize - 1)];
  }
  // The storage for node i's value (constructed by the caller with placement new).
  T* value(uint32_t i) {
    return std::launder(reinterpret_cast<T*>(chunks_[i >> kChunkBits]->values +
                                             sizeof(T) * (i & (kChunkSize - 1))));
  }
  const T* value(uint32_t i) const {
    return std::launder(reinterpret_cast<const T*>(chunks_[i >> kChunkBits]->values +
                                                   sizeof(T) * (i & (kChunkSize - 1))));
  }

  // Indices handed out so far are 1..end()-1 (free ones included).
  uint32_t end_index() const { return next_; }
  size_t in_use() const { return in_use_; }
  // Octets held: every chunk plus the chunk table.
  size_t memory_bytes() const {
    return chunks_.size() * sizeof(Chunk) + chunks_.capacity() * sizeof(chunks_[0]);
  }

 private:
  struct alignas(64) Chunk {
    Node nodes[kChunkSize];
    uint32_t parents[kChunkSize];
    alignas(T) unsigned char values[kChunkSize * sizeof(T)];
  };

  std::vector<std::unique_ptr<Chunk>> chunks_;
  uint32_t next_ = 1;  // index 0 is never handed out: it means "no node"
  uint32_t free_head_ = 0;
  uint32_t free_count_ = 0;
  size_t in_use_ = 0;
};

}  // namespace sluice::net
