#pragma once
// RouteTrieIndex4: a compressed multibit index for IPv4 longest-prefix match, kept beside a
// RouteTrie4 so that address lookups in a large table touch a few small, cache-friendly arrays
// instead of walking ~20 scattered trie nodes.
//
// Structure (Poptrie: Asai and Ohara, "Poptrie: A Compressed Trie with Population Count for Fast
// and Scalable Software IP Routing Table Lookup", SIGCOMM 2015, §3):
//   - a direct table of 2^18 slots indexed by the first 18 address bits; a slot holds either
//     the answer for its whole /18 (a leaf) or a "blob" for the /18;
//   - a blob is a tree of nodes, each consuming 6 more bits (18-24, 24-30, 30-36; the address
//     is padded with 4 zero bits so the last stride is whole). A node has a 64-bit `vector`
//     (bit v set: child v is a node) and a 64-bit `leafvec` (bit v set: a run of equal leaves
//     starts at v); children and leaves are stored contiguously and found by population count.
// A leaf is the trie's node index of the longest matching entry (0: no match).
//
// Updates are lazy: the trie calls Invalidate() for the prefix of every entry it adds or
// removes, which marks the overlapping slots stale (one slot for /18 and longer); Lookup()
// answers kNeedsRebuild for a stale slot and the trie then rebuilds that slot from its own
// entries (Rebuild), so a burst of updates in one /18 costs one rebuild at the next lookup.
// Node indices must be below 2^30 (the top two bits of a slot are tags).

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace sluice::net {

class RouteTrieIndex4 {
 public:
  static constexpr int kDirectBits = 18;
  static constexpr uint32_t kSlots = uint32_t{1} << kDirectBits;
  static constexpr uint32_t kNeedsRebuild = 0xFFFFFFFFu;
  static constexpr uint32_t kMaxId = (uint32_t{1} << 30) - 1;

  // One trie entry inside a slot: its prefix and its node index (1..kMaxId).
  struct Entry {
    uint32_t key;
    uint8_t length;
    uint32_t id;
  };

  RouteTrieIndex4();  // every slot stale
  ~RouteTrieIndex4();
  RouteTrieIndex4(const RouteTrieIndex4&) = delete;
  RouteTrieIndex4& operator=(const RouteTrieIndex4&) = delete;

  static uint32_t SlotOf(uint32_t address) { return address >> (32 - kDirectBits); }

  // The id of the longest entry containing `address`, 0 when none, or kNeedsRebuild when the
  // slot of `address` is stale (Rebuild it, then ask again).
  uint32_t Lookup(uint32_t address) const {
    const uint32_t e = direct_[SlotOf(address)];
    if (e < kStale) return e;  // a leaf for the whole /18
    if (e & kStale) return kNeedsRebuild;
    const Blob* blob = blobs_[e & kIdMask];
    const Node* nodes = blob->nodes();
    const uint64_t bits = uint64_t{address} << 4;  // 36 bits
    const Node* n = nodes;
    for (int shift = 12;; shift -= 6) {
      const unsigned v = static_cast<unsigned>(bits >> shift) & 63u;
      const uint64_t upto = (uint64_t{2} << v) - 1;  // bits 0..v (v = 63 wraps to all ones)
      if ((n->vector >> v) & 1u) {
        n = nodes + n->base1 + std::popcount(n->vector & upto) - 1;
      } else {
        return blob->leaves()[n->base0 + std::popcount(n->leafvec & upto) - 1];
      }
    }
  }

  // Marks stale every slot overlapping key/length (an entry there was added or removed).
  void Invalidate(uint32_t key, int length);
  // Rebuilds slot `slot`. `inherited`: the id of the longest entry shorter than /18 containing
  // the slot (0 if none). `entries`: every entry of length >= 18 inside the slot, in prefix
  // order (address, then length).
  void Rebuild(uint32_t slot, uint32_t inherited, const std::vector<Entry>& entries);

  // Octets held: the direct table, the blobs, their table and the rebuild scratch space.
  size_t memory_bytes() const;

 private:
  struct Node {
    uint64_t vector;   // bit v: child v is a node
    uint64_t leafvec;  // bit v: a run of leaves starts at v
    uint32_t base0;    // first leaf of this node, in the blob's leaves
    uint32_t base1;    // first child node, in the blob's nodes
  };
  // A blob is one allocation: this header, then the nodes, then the leaves.
  struct Blob {
    uint32_t node_count;
    uint32_t leaf_count;
    Node* nodes() { return reinterpret_cast<Node*>(this + 1); }
    const Node* nodes() const { return reinterpret_cast<const Node*>(this + 1); }
    uint32_t* leaves() { return reinterpret_cast<uint32_t*>(nodes() + node_count); }
    const uint32_t* leaves() const {
      return reinterpret_cast<const uint32_t*>(nodes() + node_count);
    }
  };
  static_assert(sizeof(Blob) % alignof(Node) == 0);
  static constexpr uint32_t kStale = uint32_t{1} << 30;
  static constexpr uint32_t kBlob = uint32_t{1} << 31;
  static constexpr uint32_t kIdMask = kStale - 1;

  void BuildNode(size_t node, int depth, const Entry* first, const Entry* last, uint32_t inherited);
  void FreeBlob(uint32_t index);
  static size_t BlobBytes(uint32_t nodes, uint32_t leaves) {
    return sizeof(Blob) + nodes * sizeof(Node) + leaves * sizeof(uint32_t);
  }
  // What the allocator takes for a blob: its size plus a word of header, in 16-octet units.
  static size_t BlobFootprint(uint32_t nodes, uint32_t leaves) {
    return (BlobBytes(nodes, leaves) + sizeof(size_t) + 15) & ~size_t{15};
  }

  std::unique_ptr<uint32_t[]> direct_;
  std::vector<Blob*> blobs_;
  std::vector<uint32_t> free_blobs_;
  size_t blob_bytes_ = 0;
  // Scratch space of Rebuild, kept to avoid reallocating.
  std::vector<Node> build_nodes_;
  std::vector<uint32_t> build_leaves_;
};

}  // namespace sluice::net
