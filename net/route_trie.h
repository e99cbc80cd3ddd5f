#pragma once
// RouteTrie<A, T>: a path-compressed binary (Patricia) trie mapping prefixes of one address
// family to values, with safe iterators (XORP NSDI'05 §5.3, XORP libxorp/ref_trie.hh).
//
// A is IPv4Address or IPv6Address; RouteTrie4<T> and RouteTrie6<T> name the two. Keys in the API
// are net::Prefix. A Prefix (or IPAddress) of the other family is never an error that crashes:
// insert returns {end(), false}, lookups return end() or nullptr, erase returns false and
// subtree() an empty range.
//
// Operations and costs (W = address bits, 32 or 128; n = entries):
//   insert / insert_or_assign / find / erase(prefix)        O(W)
//   longest_match(address or prefix), find_less_specific      O(W) (IPv4 addresses: see below)
//   iteration in prefix order (net::Prefix operator<: address, then length — the trie's
//   pre-order), over everything or over the subtree under a prefix; ++ is O(W) worst case.
//
// Safe iterators: an iterator pins the entry it stands on. Erasing a pinned entry removes it at
// once from the trie — find, lookups and other iterators no longer see it, size() drops — but
// the pinned node (its key and value) stays readable through the iterators that stand on it;
// the erase is completed (the value destroyed, the node freed) when the last of them moves on or
// is destroyed. ++ from an erased entry moves to the next live entry after its key in prefix
// order, so a background task that iterates in slices keeps its place while routes come and go
// (XORP §5.1.2). Inserting the same prefix again makes a new entry; iterators standing on the
// erased one still see the old value. Iterators are copyable and movable and keep the pin counts
// right. Everything is single-threaded: the trie and its iterators belong to one event loop.
// Destroy every iterator before the trie, as with standard containers. A T* from find_value()
// stays valid until its entry is erased (and the erase completes).
//
// Memory: nodes live in a pooled arena addressed by 32-bit indices (route_trie_arena.h). An
// IPv4 node is a 16-octet hot record (32-bit key, two child links, length, flags, pin count)
// and a 4-octet parent link, plus the T for an entry (branch points have none); IPv6 nodes have
// a 32-octet hot record. A trie of n entries has at most 2n-1 nodes (octets per prefix of a full
// table: bench/net/README.md).
//
// Fast IPv4 lookups: once an IPv4 trie holding at least lookup_index_min_entries() entries
// (default 65,536) is asked for an address's longest match, it keeps a RouteTrieIndex4 beside
// the nodes (route_trie_index.h, Poptrie-style, about 1 MiB plus ~10 octets per prefix for a
// full table) and answers address lookups, and exact finds where it is fresh, from it. Updates only
// mark the index's /18 slots stale; the next lookup in a stale slot rebuilds that slot. So even
// const lookups may update this cache: the trie is not safe to share between threads in any way.
// The index is dropped when the trie shrinks below a quarter of the threshold.
//
// Fast IPv4 updates: from the same size on, an IPv4 trie also keeps a RouteTrieJump4
// (route_trie_jump.h, 256 KiB): for each /16 block, the deepest node no longer than /16 that
// covers it. Inserts, erases and exact finds of prefixes of length >= 16 start their descent there
// instead of at the root, which skips about 16 of the 22 nodes on the way to an average prefix
// of a full table. Non-const operations fill it; const finds only read it, so unlike address
// lookups they change nothing. It is dropped with the index. memory_bytes() counts nodes, index and
// jump table.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "net/ip_address.h"
#include "net/prefix.h"
#include "net/route_trie_arena.h"
#include "net/route_trie_index.h"
#include "net/route_trie_iterator.h"
#include "net/route_trie_jump.h"
#include "net/route_trie_key.h"

namespace sluice::net {

template <class A, class T>
class RouteTrie {
  using Traits = RouteTrieKey<A>;
  using Key = typename Traits::Key;
  static constexpr int kBits = Traits::kBits;

  struct Node {
    Key key;            // masked to `length` bits
    uint32_t child[2];  // by the bit after the prefix; 0 = none
    uint8_t length;
    uint8_t flags;  // kEntry, kErased or kBranch; 0 for a free or never-used node
    uint16_t pins;  // iterators standing here (more go in overflow_pins_)
  };
  static constexpr uint8_t kEntry = 1;   // a live entry, in the tree, with a value
  static constexpr uint8_t kErased = 2;  // erased but pinned: out of the tree, value kept
  static constexpr uint8_t kBranch = 4;  // a branch point: in the tree, two children, no value
  static constexpr uint16_t kMaxPins = 0xFFFF;
  static constexpr bool kIndexed = std::is_same_v<A, IPv4Address>;

 public:
  using key_type = Prefix;
  using mapped_type = T;
  using iterator = RouteTrieIterator<A, T>;
  // A begin/end pair for range-for over a subtree.
  struct Range {
    iterator first;
    iterator last;
    iterator begin() const { return first; }
    iterator end() const { return last; }
    bool empty() const { return first == last; }
  };

  RouteTrie() = default;
  RouteTrie(const RouteTrie&) = delete;
  RouteTrie& operator=(const RouteTrie&) = delete;
  ~RouteTrie() { DestroyAll(); }

  // Adds `prefix` -> `value` unless `prefix` is present (then nothing changes, as std::map).
  // Returns the entry and whether it was added; {end(), false} for the wrong family.
  std::pair<iterator, bool> insert(const Prefix& prefix, T value) {
    return Insert(prefix, std::move(value), /*assign=*/false);
  }
  // As insert, but replaces the value of a present entry (second is false then).
  std::pair<iterator, bool> insert_or_assign(const Prefix& prefix, T value) {
    return Insert(prefix, std::move(value), /*assign=*/true);
  }

  // The entry for exactly `prefix`, or end() / nullptr.
  iterator find(const Prefix& prefix) { return MakeIterator(FindNodeForUpdate(prefix)); }
  T* find_value(const Prefix& prefix) {
    const uint32_t n = FindNodeForUpdate(prefix);
    return n ? arena_.value(n) : nullptr;
  }
  const T* find_value(const Prefix& prefix) const {
    const uint32_t n = prefix.family() == Traits::kFamily ? FindNode(prefix, KnownStarts()) : 0;
    return n ? arena_.value(n) : nullptr;
  }
  bool contains(const Prefix& prefix) const { return find_value(prefix) != nullptr; }

  // Removes the entry for `prefix`; false when absent. Iterators standing on it stay valid.
  bool erase(const Prefix& prefix) {
    const uint32_t n = FindNodeForUpdate(prefix);
    if (n == 0) return false;
    EraseNode(n);
    return true;
  }
  // Removes the entry `it` stands on (if still live) and returns the next one in `it`'s order
  // (keeping a subtree iterator's bound).
  iterator erase(iterator it) {
    if (it.node_ == 0) return it;
    iterator next = it;
    ++next;
    if (node(it.node_).flags & kEntry) EraseNode(it.node_);
    return next;
  }

  // Longest-prefix match: the most specific entry containing `address`, or end().
  iterator longest_match(const IPAddress& address) {
    if (address.family() != Traits::kFamily) return end();
    return MakeIterator(AddressMatchNode(Traits::FromAddress(address)));
  }
  iterator longest_match(const A& address) {
    return MakeIterator(AddressMatchNode(Traits::FromAddress(address)));
  }
  // The value of longest_match(address), or nullptr: the lookup without an iterator.
  const T* longest_match_value(const IPAddress& address) const {
    if (address.family() != Traits::kFamily) return nullptr;
    const uint32_t n = AddressMatchNode(Traits::FromAddress(address));
    return n ? arena_.value(n) : nullptr;
  }
  // The most specific entry containing `prefix` (prefix itself included), or end().
  iterator longest_match(const Prefix& prefix) {
    if (prefix.family() != Traits::kFamily) return end();
    return MakeIterator(LongestMatchNode(Traits::FromPrefix(prefix), prefix.length()));
  }
  // The most specific entry strictly containing `prefix` (prefix itself excluded), or end().
  // Applying it to the result's key walks up the chain of less specific entries.
  iterator find_less_specific(const Prefix& prefix) {
    if (prefix.family() != Traits::kFamily || prefix.length() == 0) return end();
    return MakeIterator(LongestMatchNode(Traits::FromPrefix(prefix), prefix.length() - 1));
  }
  // Calls visit(value) for every entry containing `prefix` (itself included), least specific
  // first, until visit returns false. One descent, O(W); takes no pins and changes nothing, so
  // several threads may call it at once while no one writes.
  template <class Visit>
  void VisitCovering(const Prefix& prefix, Visit visit) const {
    if (prefix.family() != Traits::kFamily) return;
    const Key k = Traits::FromPrefix(prefix);
    for (uint32_t n = root_; n != 0;) {
      const Node& h = node(n);
      if (h.length > prefix.length() || !Traits::Match(h.key, k, h.length)) break;
      if ((h.flags & kEntry) && !visit(*arena_.value(n))) return;
      if (h.length == prefix.length()) break;
      n = h.child[Traits::Bit(k, h.length)];
    }
  }
  // Every entry strictly containing `prefix`, least specific first.
  std::vector<iterator> less_specifics(const Prefix& prefix) {
    std::vector<iterator> out;
    if (prefix.family() != Traits::kFamily) return out;
    const Key k = Traits::FromPrefix(prefix);
    for (uint32_t n = root_; n != 0;) {
      const Node& h = node(n);
      if (h.length >= prefix.length() || !Traits::Match(h.key, k, h.length)) break;
      if (h.flags & kEntry) out.push_back(MakeIterator(n));
      n = h.child[Traits::Bit(k, h.length)];
    }
    return out;
  }

  // Every entry contained in `prefix` (prefix itself included), in prefix order. The range's
  // iterators stop at the subtree's end even when entries around it change meanwhile. Empty when
  // nothing is under `prefix` (present or not) or the family differs.
  Range subtree(const Prefix& prefix) {
    if (prefix.family() != Traits::kFamily) return Range{end(), end()};
    const Key k = Traits::FromPrefix(prefix);
    const uint32_t top = TopNodeUnder(k, prefix.length());
    return Range{iterator(this, FirstEntry(top), k, static_cast<uint8_t>(prefix.length())), end()};
  }

  // The first entry whose key is >= `prefix` (lower_bound) or > `prefix` (upper_bound) in
  // prefix order; end() when none or for the other family (IPv4 orders before IPv6, so an IPv6
  // prefix is after every entry of an IPv4 trie and conversely; these return end() for both).
  iterator lower_bound(const Prefix& prefix) {
    if (prefix.family() != Traits::kFamily) return end();
    return MakeIterator(Successor(Traits::FromPrefix(prefix), prefix.length(), true));
  }
  iterator upper_bound(const Prefix& prefix) {
    if (prefix.family() != Traits::kFamily) return end();
    return MakeIterator(Successor(Traits::FromPrefix(prefix), prefix.length(), false));
  }

  iterator begin() { return MakeIterator(FirstEntry(root_)); }
  iterator end() { return iterator(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Erases every entry (pinned ones complete when their iterators leave).
  void clear() {
    index_.reset();
    jump_.reset();
    root_ = 0;
    size_ = 0;
    bool pinned = false;
    arena_.ForEachHandedOut([&](uint32_t i) {
      Node& h = node(i);
      if (h.flags == 0) return;  // free
      if (h.pins > 0) {          // only entries are pinned
        h.flags = kErased;
        h.child[0] = h.child[1] = 0;
        arena_.parent(i) = 0;
        pinned = true;
      } else {
        FreeNode(i);
      }
    });
    if (!pinned) arena_.Reset();
  }
  // Octets the trie occupies: its node storage (all nodes, free ones included) and, for a large
  // IPv4 trie, its lookup index and jump table.
  size_t memory_bytes() const {
    return arena_.memory_bytes() + (index_ != nullptr ? index_->memory_bytes() : 0) +
           (jump_ != nullptr ? jump_->memory_bytes() : 0);
  }
  // The IPv4 lookup index and jump table are built once the trie holds this many entries (see
  // above); 0 keeps them always (tests), SIZE_MAX never. No effect on IPv6 tries.
  void set_lookup_index_min_entries(size_t n) {
    index_min_entries_ = n;
    if (size_ < n / 4) {
      index_.reset();
      jump_.reset();
    }
  }
  size_t lookup_index_min_entries() const { return index_min_entries_; }
  bool has_lookup_index() const { return index_ != nullptr; }
  // Nodes in use: entries, branch points and erased entries still pinned.
  size_t node_count() const { return arena_.in_use(); }

  // For tests, O(n): checks the structure (links, key nesting, branch points with two children,
  // entry count, pre-order). Returns Internal naming the first broken invariant.
  absl::Status CheckInvariants() const;

 private:
  friend iterator;
  Node& node(uint32_t i) { return arena_.node(i); }
  const Node& node(uint32_t i) const { return arena_.node(i); }

  iterator MakeIterator(uint32_t n) { return iterator(this, n, Key{}, 0); }
  std::pair<iterator, bool> Insert(const Prefix& prefix, T&& value, bool assign);
  uint32_t NewNode(const Key& key, int length, uint8_t flags);
  uint32_t ReplaceNode(uint32_t n, uint8_t flags);
  void FreeNode(uint32_t n);
  void EraseNode(uint32_t n);
  void Relink(uint32_t parent, uint32_t old_child, uint32_t new_child);
  void Unlink(uint32_t n);
  void DestroyAll();

  // The entry node for exactly `prefix` (of this family), or 0. When the lookup index cannot
  // answer, the descent starts at start(k, length): KnownStart or JumpStart.
  template <class Start>
  uint32_t FindNode(const Prefix& prefix, Start start) const;
  auto KnownStarts() const {
    return [this](const Key& k, int length) { return KnownStart(k, length); };
  }
  // FindNode for the non-const operations, which may fill the jump table; 0 for the other family.
  uint32_t FindNodeForUpdate(const Prefix& prefix) {
    if (prefix.family() != Traits::kFamily) return 0;
    return FindNode(prefix, [this](const Key& k, int length) { return JumpStart(k, length); });
  }
  uint32_t LongestMatchNode(const Key& k, int length) const;
  uint32_t AddressMatchNode(const Key& k) const {
    if constexpr (kIndexed) {
      if (index_ != nullptr || size_ >= index_min_entries_) return IndexedMatchNode(k);
    }
    return LongestMatchNode(k, kBits);
  }
  uint32_t IndexedMatchNode(uint32_t address) const;
  void RebuildIndexSlot(uint32_t slot) const;
  // An entry for (k, length) was added or removed: the index's answers there may change.
  void EntryChanged(const Key& k, int length) {
    if constexpr (kIndexed) {
      if (index_ != nullptr) index_->Invalidate(k, length);
    }
  }
  // Where a descent towards (k, length) may start: the jump table's node for k's /16 block
  // when length >= 16 and the table knows it, else the root. Reads only, so that const finds
  // stay safe to run on several threads at once while no one writes.
  uint32_t KnownStart(const Key& k, int length) const;
  // The same for the non-const operations, which make the jump table once the trie is large and
  // record the node for k's block when it was unknown.
  uint32_t JumpStart(const Key& k, int length);
  uint32_t JumpNodeOf(const Key& k) const;
  // A node of (k, length) entered or left the tree: the jump table forgets what it covers.
  void JumpForget(const Key& k, int length) {
    if constexpr (kIndexed) {
      if (jump_ != nullptr) jump_->Forget(k, length);
    }
  }
  absl::Status CheckJumpTable() const;
  uint32_t TopNodeUnder(const Key& k, int length) const;
  uint32_t FirstEntry(uint32_t n) const;
  uint32_t NextEntry(uint32_t n) const;
  uint32_t Successor(const Key& k, int length, bool inclusive) const;
  bool Under(uint32_t n, const Key& k, int length) const {
    const Node& h = node(n);
    return h.length >= length && Traits::Match(h.key, k, length);
  }

  void Pin(uint32_t n) {
    if (n == 0) return;
    Node& h = node(n);
    if (h.pins != kMaxPins) {
      ++h.pins;
    } else {
      ++overflow_pins_[n];
    }
  }
  void Unpin(uint32_t n) {
    if (n == 0) return;
    Node& h = node(n);
    if (h.pins == kMaxPins && !overflow_pins_.empty()) {
      auto it = overflow_pins_.find(n);
      if (it != overflow_pins_.end()) {
        if (--it->second == 0) overflow_pins_.erase(it);
        return;
      }
    }
    if (--h.pins == 0 && (h.flags & kErased)) FreeNode(n);  // the erase completes
  }

  using Arena = RouteTrieArena<Node, T>;
  Arena arena_;
  uint32_t root_ = 0;
  size_t size_ = 0;
  std::unordered_map<uint32_t, uint64_t> overflow_pins_;
  // The IPv4 lookup index, a cache over the nodes (hence mutable), and its rebuild scratch.
  mutable std::unique_ptr<RouteTrieIndex4> index_;
  mutable std::vector<RouteTrieIndex4::Entry> index_entries_;
  // The IPv4 jump table, a cache the non-const operations fill (made by the first of them on a
  // large trie).
  std::unique_ptr<RouteTrieJump4> jump_;
  size_t index_min_entries_ = kIndexed ? 65536 : SIZE_MAX;
};

template <class T>
using RouteTrie4 = RouteTrie<IPv4Address, T>;
template <class T>
using RouteTrie6 = RouteTrie<IPv6Address, T>;

}  // namespace sluice::net

#include "net/route_trie_impl.h"  // IWYU pragma: export
