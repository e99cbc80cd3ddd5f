#pragma once
// RouteTrieJump4: where a descent of a large IPv4 RouteTrie may start instead of the root.
//
// A path-compressed binary trie holding a full IPv4 table is about 22 nodes deep on the way to
// an average prefix, and about 16 of those nodes are /16 or shorter (PCH 2015-10-23 table). Each
// is a dependent load. For every /16 block this table keeps the deepest trie node of length
// <= 16 whose prefix covers the block: a descent towards a prefix of length >= 16 inside the
// block passes through that node, so it may start there. A multibit first stride, as in the
// direct table of Poptrie (route_trie_index.h) or of DIR-24-8 (Gupta, Lin and McKeown,
// "Routing Lookups in Hardware at Memory Access Speeds", INFOCOM 1998), applied to updates.
//
// The starts are a cache the trie fills on use: 0 means unknown (the trie walks from the root
// and records the node it finds). Whenever a node of length <= 16 enters or leaves the tree,
// the trie forgets the starts of the blocks that node covers, so a start is always a node in
// the tree (and the deepest one once looked up again). 2^16 starts: 256 KiB per table.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace sluice::net {

class RouteTrieJump4 {
 public:
  static constexpr int kBits = 16;
  static constexpr uint32_t kSlots = uint32_t{1} << kBits;

  RouteTrieJump4() : start_(std::make_unique<uint32_t[]>(kSlots)) {}  // every start unknown

  static uint32_t SlotOf(uint32_t key) { return key >> (32 - kBits); }
  // The recorded start for the block of `key`, or 0 when unknown.
  uint32_t Get(uint32_t key) const { return start_[SlotOf(key)]; }
  void Set(uint32_t key, uint32_t node) { start_[SlotOf(key)] = node; }
  // A node of prefix key/length entered or left the tree: forgets the starts of the blocks it
  // covers when it is /16 or shorter (longer nodes are never starts and change none).
  void Forget(uint32_t key, int length) {
    if (length > kBits) return;
    uint32_t* first = start_.get() + SlotOf(key);
    std::fill(first, first + (size_t{1} << (kBits - length)), 0u);
  }
  size_t memory_bytes() const { return kSlots * sizeof(uint32_t); }

 private:
  std::unique_ptr<uint32_t[]> start_;
};

}  // namespace sluice::net
