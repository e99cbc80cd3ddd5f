#pragma once
// RouteTrieArena: the pooled node storage behind RouteTrie.
//
// Nodes are named by 32-bit indices (0 means "no node"), so links cost 4 octets instead of 8.
// Storage is a list of chunks that never move: a node's fields and its value keep their address
// for the node's whole life. Chunk c names the indices from c * kChunkSize; a kind's first chunk
// holds kFirstChunkSize nodes and each next one twice the last, up to kChunkSize, so that a trie
// of a few routes holds a few kilobytes and a large one wastes at most one partly used chunk of
// each kind (a doubling vector could waste half). A chunk holds parallel arrays:
//   - the hot part of each node (key, children, length, flags, pin count) that lookups read,
//     packed so that a walk touches one small record per level;
//   - the parent index, which only iteration and updates read;
//   - in entry chunks only, raw storage for a value of type T, constructed while the node holds
//     an entry. Branch points live in branch chunks, which have no value storage, so the ~0.8
//     branch points per entry of a routing table cost no T each.
// A node's kind is fixed by its chunk; a node that changes kind is moved to a new index.
// New chunks are not initialised (zero-filling them cost the trie's inserts a write of every
// chunk ahead of its use): ForEachHandedOut visits only the nodes handed out so far.
// Freed nodes go on their kind's free list, threaded through their first child link.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace sluice::net {

template <class Node, class T>
class RouteTrieArena {
 public:
  enum class Kind : uint8_t { kBranch = 0, kEntry = 1 };
  // At most 2,048 nodes a chunk, and 128 in a kind's first. A trie holding a single route already
  // has a chunk of each kind, and sluice-bgp keeps a trie per peer, family and shard: with many
  // peers of small tables the chunks' size, not the routes, was most of the tries' memory
  // (bench/net/README.md). For a full table it makes a few hundred chunks, whose table stays
  // small; a full chunk of IPv4 routes is a whole number of tcmalloc's 8 KiB pages.
  static constexpr int kChunkBits = 11;
  static constexpr uint32_t kChunkSize = uint32_t{1} << kChunkBits;
  static constexpr uint32_t kFirstChunkSize = 128;
  // Indices stay below 2^30 so that RouteTrieIndex4 can tag them.
  static constexpr uint32_t kMaxChunks = (uint32_t{1} << 30) >> kChunkBits;

  RouteTrieArena() = default;
  RouteTrieArena(const RouteTrieArena&) = delete;
  RouteTrieArena& operator=(const RouteTrieArena&) = delete;
  ~RouteTrieArena() { Reset(); }

  // True when `n` more allocations can succeed (each adds at most one chunk; the index space
  // is 2^30 nodes).
  bool CanAllocate(uint32_t n) const { return chunks_.size() + n <= kMaxChunks; }
  // A node index of `kind` whose hot part and parent hold stale data; an entry's value slot is
  // empty. Precondition: CanAllocate(1).
  uint32_t Allocate(Kind kind) {
    ++in_use_;
    PerKind& k = per_kind_[static_cast<int>(kind)];
    if (k.free_head != 0) {
      const uint32_t i = k.free_head;
      k.free_head = node(i).child[0];
      return i;
    }
    if (k.next == k.end) AddChunk(kind, k);
    return k.next++;
  }
  // Returns `i` to its free list; its value must have been destroyed.
  void Free(uint32_t i) {
    --in_use_;
    PerKind& k = per_kind_[static_cast<int>(chunks_[i >> kChunkBits].kind)];
    node(i).child[0] = k.free_head;
    k.free_head = i;
  }
  // Releases every chunk. Every value must have been destroyed.
  void Reset() {
    for (const Chunk& c : chunks_) ::operator delete (c.nodes, std::align_val_t{kAlign});
    chunks_.clear();
    chunks_.shrink_to_fit();
    per_kind_[0] = per_kind_[1] = PerKind{};
    in_use_ = 0;
  }

  Node& node(uint32_t i) { return chunks_[i >> kChunkBits].nodes[i & (kChunkSize - 1)]; }
  const Node& node(uint32_t i) const {
    return chunks_[i >> kChunkBits].nodes[i & (kChunkSize - 1)];
  }
  uint32_t& parent(uint32_t i) { return chunks_[i >> kChunkBits].parents[i & (kChunkSize - 1)]; }
  uint32_t parent(uint32_t i) const {
    return chunks_[i >> kChunkBits].parents[i & (kChunkSize - 1)];
  }
  // The storage for entry node i's value (constructed by the caller with placement new).
  T* value(uint32_t i) {
    unsigned char* values = chunks_[i >> kChunkBits].values;
    return std::launder(reinterpret_cast<T*>(values + sizeof(T) * (i & (kChunkSize - 1))));
  }
  const T* value(uint32_t i) const {
    const unsigned char* values = chunks_[i >> kChunkBits].values;
    return std::launder(reinterpret_cast<const T*>(values + sizeof(T) * (i & (kChunkSize - 1))));
  }

  // Calls visit(i) for every index handed out so far, in use or freed, in increasing order. The
  // rest of each kind's newest chunk, never handed out, holds uninitialised memory and is skipped.
  template <class Visit>
  void ForEachHandedOut(Visit visit) const {
    for (uint32_t c = 0; c < chunks_.size(); ++c) {
      const PerKind& k = per_kind_[static_cast<int>(chunks_[c].kind)];
      const uint32_t first = c == 0 ? 1 : c << kChunkBits;  // index 0 is never handed out
      const uint32_t end = (c << kChunkBits) + chunks_[c].capacity;
      const uint32_t last = end == k.end ? k.next : end;  // the kind's newest chunk: up to next
      for (uint32_t i = first; i < last; ++i) visit(i);
    }
  }
  size_t in_use() const { return in_use_; }
  // Octets held: every chunk plus the chunk tables.
  size_t memory_bytes() const {
    size_t bytes = chunks_.capacity() * sizeof(Chunk);
    for (const Chunk& c : chunks_) bytes += ChunkBytes(c.kind, c.capacity);
    return bytes;
  }

 private:
  static constexpr size_t kAlign = 64;
  static_assert(alignof(Node) <= kAlign && alignof(T) <= kAlign);
  static_assert(sizeof(Node) % alignof(uint32_t) == 0, "the parents follow the nodes");
  // One allocation: `capacity` nodes, then their parents, then (entry chunks) their values.
  struct Chunk {
    Node* nodes;
    uint32_t* parents;
    unsigned char* values;  // entry chunks only
    uint32_t capacity;
    Kind kind;
  };
  struct PerKind {
    uint32_t free_head = 0;
    uint32_t next = 0;  // bump allocation in the newest chunk of this kind: [next, end)
    uint32_t end = 0;
    uint32_t last_capacity = 0;  // of the newest chunk of this kind
  };

  static size_t ValuesOffset(uint32_t capacity) {
    const size_t a = alignof(T);
    return (capacity * (sizeof(Node) + sizeof(uint32_t)) + a - 1) / a * a;
  }
  static size_t ChunkBytes(Kind kind, uint32_t capacity) {
    const size_t bytes = kind == Kind::kEntry ? ValuesOffset(capacity) + capacity * sizeof(T)
                                              : capacity * (sizeof(Node) + sizeof(uint32_t));
    return (bytes + kAlign - 1) / kAlign * kAlign;
  }
  // A new newest chunk of `kind`; its nodes are not initialised.
  void AddChunk(Kind kind, PerKind& k) {
    const uint32_t capacity =
        k.last_capacity == 0 ? kFirstChunkSize : std::min(kChunkSize, 2 * k.last_capacity);
    auto* block = static_cast<unsigned char*>(
        ::operator new (ChunkBytes(kind, capacity), std::align_val_t{kAlign}));
    Chunk c{reinterpret_cast<Node*>(block),
            reinterpret_cast<uint32_t*>(block + capacity * sizeof(Node)),
            kind == Kind::kEntry ? block + ValuesOffset(capacity) : nullptr, capacity, kind};
    const auto index = static_cast<uint32_t>(chunks_.size());
    chunks_.push_back(c);
    k.last_capacity = capacity;
    k.next = index << kChunkBits;
    k.end = k.next + capacity;
    if (k.next == 0) k.next = 1;  // index 0 is never handed out: it means "no node"
  }

  std::vector<Chunk> chunks_;  // their memory owned
  PerKind per_kind_[2];
  size_t in_use_ = 0;
};

}  // namespace sluice::net
