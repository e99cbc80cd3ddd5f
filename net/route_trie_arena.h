#pragma once
// RouteTrieArena: the pooled node storage behind RouteTrie.
//
// Nodes are named by 32-bit indices (0 means "no node"), so links cost 4 octets instead of 8.
// Storage is a list of fixed-size chunks that never move: a node's fields and its value keep
// their address for the node's whole life, and growing wastes at most one partly used chunk of
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
  // 2,048 nodes a chunk. A trie holding a single route already has a chunk of each kind, and
  // sluice-bgp keeps a trie per peer, family and shard: with many peers of small tables the
  // chunks' size, not the routes, was most of the tries' memory (bench/net/README.md). For a
  // full table it makes a few hundred chunks, whose table stays small.
  static constexpr int kChunkBits = 11;
  static constexpr uint32_t kChunkSize = uint32_t{1} << kChunkBits;
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
    if (k.next == k.end) {
      const auto c = static_cast<uint32_t>(chunks_.size());
      chunks_.push_back(kind == Kind::kEntry ? &(new EntryChunk)->base : new BranchChunk);
      kinds_.push_back(kind);
      k.next = c << kChunkBits;
      k.end = k.next + kChunkSize;
      if (k.next == 0) k.next = 1;  // index 0 is never handed out: it means "no node"
    }
    return k.next++;
  }
  // Returns `i` to its free list; its value must have been destroyed.
  void Free(uint32_t i) {
    --in_use_;
    PerKind& k = per_kind_[static_cast<int>(kinds_[i >> kChunkBits])];
    node(i).child[0] = k.free_head;
    k.free_head = i;
  }
  // Releases every chunk. Every value must have been destroyed.
  void Reset() {
    for (size_t c = 0; c < chunks_.size(); ++c) {
      if (kinds_[c] == Kind::kEntry) {
        delete reinterpret_cast<EntryChunk*>(chunks_[c]);
      } else {
        delete chunks_[c];
      }
    }
    chunks_.clear();
    chunks_.shrink_to_fit();
    kinds_.clear();
    kinds_.shrink_to_fit();
    per_kind_[0] = per_kind_[1] = PerKind{};
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
  // The storage for entry node i's value (constructed by the caller with placement new).
  T* value(uint32_t i) {
    auto* chunk = reinterpret_cast<EntryChunk*>(chunks_[i >> kChunkBits]);
    return std::launder(reinterpret_cast<T*>(chunk->values + sizeof(T) * (i & (kChunkSize - 1))));
  }
  const T* value(uint32_t i) const {
    auto* chunk = reinterpret_cast<const EntryChunk*>(chunks_[i >> kChunkBits]);
    return std::launder(
        reinterpret_cast<const T*>(chunk->values + sizeof(T) * (i & (kChunkSize - 1))));
  }

  // Calls visit(i) for every index handed out so far, in use or freed, in increasing order. The
  // rest of each kind's newest chunk, never handed out, holds uninitialised memory and is skipped.
  template <class Visit>
  void ForEachHandedOut(Visit visit) const {
    for (uint32_t c = 0; c < chunks_.size(); ++c) {
      const PerKind& k = per_kind_[static_cast<int>(kinds_[c])];
      const uint32_t first = c == 0 ? 1 : c << kChunkBits;  // index 0 is never handed out
      const uint32_t end = (c << kChunkBits) + kChunkSize;
      const uint32_t last = end == k.end ? k.next : end;  // the kind's newest chunk: up to next
      for (uint32_t i = first; i < last; ++i) visit(i);
    }
  }
  size_t in_use() const { return in_use_; }
  // Octets held: every chunk plus the chunk tables.
  size_t memory_bytes() const {
    size_t bytes = chunks_.capacity() * sizeof(chunks_[0]) + kinds_.capacity();
    for (Kind kind : kinds_) {
      bytes += kind == Kind::kEntry ? sizeof(EntryChunk) : sizeof(BranchChunk);
    }
    return bytes;
  }

 private:
  struct alignas(64) BranchChunk {
    Node nodes[kChunkSize];
    uint32_t parents[kChunkSize];
  };
  // Standard layout with `base` first, so a BranchChunk* to it converts back.
  struct alignas(64) EntryChunk {
    BranchChunk base;
    alignas(T) unsigned char values[kChunkSize * sizeof(T)];
  };
  struct PerKind {
    uint32_t free_head = 0;
    uint32_t next = 0;  // bump allocation in the newest chunk of this kind: [next, end)
    uint32_t end = 0;
  };

  std::vector<BranchChunk*> chunks_;  // owned; EntryChunks are held through their base
  std::vector<Kind> kinds_;
  PerKind per_kind_[2];
  size_t in_use_ = 0;
};

}  // namespace sluice::net
