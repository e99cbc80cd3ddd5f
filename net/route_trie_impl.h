#pragma once
// RouteTrie<A, T> member definitions. Included by net/route_trie.h; include that header.
//
// Tree invariants (checked by CheckInvariants): every node in the tree is either an entry
// (kEntry, in an entry chunk, holds a value) or a branch point (kBranch, in a branch chunk) with
// two children; a child's prefix is
// longer than its parent's and extends it, and sits in child[bit after the parent's prefix].
// Erased-but-pinned nodes (kErased) are out of the tree: they keep only their key and value.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace sluice::net {

template <class A, class T>
std::pair<typename RouteTrie<A, T>::iterator, bool> RouteTrie<A, T>::Insert(const Prefix& prefix,
                                                                            T&& value,
                                                                            bool assign) {
  // Refuse inserts while a margin of chunks remains, so that erases (which may need a node)
  // never run out.
  if (prefix.family() != Traits::kFamily || !arena_.CanAllocate(64)) return {end(), false};
  const Key k = Traits::FromPrefix(prefix);
  const int len = prefix.length();
  uint32_t cur = JumpStart(k, len);
  uint32_t parent = cur != 0 ? arena_.parent(cur) : 0;
  while (cur != 0) {
    Node& h = node(cur);  // stays valid: arena chunks never move
    const int common = std::min({Traits::CommonBits(h.key, k), int{h.length}, len});
    if (common < h.length) {
      // cur is not on the path to the new prefix: the new node goes between parent and cur,
      // either directly above cur or beside it under a new branch point.
      const uint32_t n = NewNode(k, len, kEntry);
      ::new (static_cast<void*>(arena_.value(n))) T(std::move(value));
      if (common == len) {
        node(n).child[Traits::Bit(h.key, len)] = cur;
        Relink(parent, cur, n);
        arena_.parent(cur) = n;
      } else {
        const uint32_t b = NewNode(Traits::Masked(k, common), common, kBranch);
        node(b).child[Traits::Bit(k, common)] = n;
        node(b).child[Traits::Bit(h.key, common)] = cur;
        Relink(parent, cur, b);
        arena_.parent(n) = b;
        arena_.parent(cur) = b;
      }
      ++size_;
      EntryChanged(k, len);
      return {MakeIterator(n), true};
    }
    if (h.length == len) {
      if (h.flags & kEntry) {
        if (assign) *arena_.value(cur) = std::move(value);
        return {MakeIterator(cur), false};
      }
      // A branch point becomes an entry: it moves to an entry node (it is never pinned).
      const uint32_t n = ReplaceNode(cur, kEntry);
      FreeNode(cur);
      ::new (static_cast<void*>(arena_.value(n))) T(std::move(value));
      ++size_;
      EntryChanged(k, len);
      return {MakeIterator(n), true};
    }
    const int bit = Traits::Bit(k, h.length);
    if (h.child[bit] == 0) {
      const uint32_t n = NewNode(k, len, kEntry);
      ::new (static_cast<void*>(arena_.value(n))) T(std::move(value));
      h.child[bit] = n;
      arena_.parent(n) = cur;
      ++size_;
      EntryChanged(k, len);
      return {MakeIterator(n), true};
    }
    parent = cur;
    cur = h.child[bit];
  }
  root_ = NewNode(k, len, kEntry);
  ::new (static_cast<void*>(arena_.value(root_))) T(std::move(value));
  ++size_;
  EntryChanged(k, len);
  return {MakeIterator(root_), true};
}

template <class A, class T>
uint32_t RouteTrie<A, T>::NewNode(const Key& key, int length, uint8_t flags) {
  if (!arena_.CanAllocate(1)) {
    // Only reachable near 2^30 nodes (tens of GB); insert refuses before that.
    std::fputs("RouteTrie: node index space exhausted\n", stderr);
    std::abort();
  }
  const uint32_t n = arena_.Allocate(flags == kEntry ? Arena::Kind::kEntry : Arena::Kind::kBranch);
  JumpForget(key, length);  // n enters the tree
  Node& h = node(n);
  h.key = key;
  h.child[0] = h.child[1] = 0;
  h.length = static_cast<uint8_t>(length);
  h.flags = flags;
  h.pins = 0;
  arena_.parent(n) = 0;
  return n;
}

template <class A, class T>
void RouteTrie<A, T>::FreeNode(uint32_t n) {
  Node& h = node(n);
  if (h.flags & (kEntry | kBranch)) JumpForget(h.key, h.length);  // n leaves the tree
  if (h.flags & (kEntry | kErased)) std::destroy_at(arena_.value(n));
  h.flags = 0;
  arena_.Free(n);
}

// Puts a new node with n's prefix and children, and `flags`, in n's place in the tree; n is
// left out of the tree, untouched otherwise. Returns the new node.
template <class A, class T>
uint32_t RouteTrie<A, T>::ReplaceNode(uint32_t n, uint8_t flags) {
  const uint32_t m = NewNode(node(n).key, node(n).length, flags);
  const Node& h = node(n);
  Node& r = node(m);
  for (int b = 0; b < 2; ++b) {
    r.child[b] = h.child[b];
    if (h.child[b] != 0) arena_.parent(h.child[b]) = m;
  }
  Relink(arena_.parent(n), n, m);
  return m;
}

// Puts new_child where old_child was under `parent` (or at the root).
template <class A, class T>
void RouteTrie<A, T>::Relink(uint32_t parent, uint32_t old_child, uint32_t new_child) {
  if (parent == 0) {
    root_ = new_child;
  } else {
    Node& p = node(parent);
    p.child[p.child[0] == old_child ? 0 : 1] = new_child;
  }
  if (new_child != 0) arena_.parent(new_child) = parent;
}

// Takes n (at most one child) out of the tree, and then its parent if that was a branch point
// now left with one child. Branch points are never pinned, so freeing them is safe.
template <class A, class T>
void RouteTrie<A, T>::Unlink(uint32_t n) {
  const Node& h = node(n);
  const uint32_t child = h.child[0] != 0 ? h.child[0] : h.child[1];
  const uint32_t parent = arena_.parent(n);
  Relink(parent, n, child);
  if (parent == 0 || child != 0 || node(parent).flags != kBranch) return;
  const Node& p = node(parent);
  const uint32_t other = p.child[0] != 0 ? p.child[0] : p.child[1];
  Relink(arena_.parent(parent), parent, other);
  FreeNode(parent);
}

template <class A, class T>
void RouteTrie<A, T>::EraseNode(uint32_t n) {
  --size_;
  Node& h = node(n);
  EntryChanged(h.key, h.length);
  JumpForget(h.key, h.length);  // n leaves the tree, even if pinned
  if (size_ < index_min_entries_ / 4) {
    index_.reset();
    jump_.reset();
  }
  if (h.child[0] != 0 && h.child[1] != 0) {
    // A branch point takes its place (and if n is pinned, n leaves the tree with its value).
    ReplaceNode(n, kBranch);
  } else {
    Unlink(n);
  }
  if (h.pins == 0) {
    FreeNode(n);
    return;
  }
  h.flags = kErased;
  h.child[0] = h.child[1] = 0;
  arena_.parent(n) = 0;
}

template <class A, class T>
void RouteTrie<A, T>::DestroyAll() {
  arena_.ForEachHandedOut([this](uint32_t i) {
    if (node(i).flags & (kEntry | kErased)) std::destroy_at(arena_.value(i));
  });
  arena_.Reset();
  index_.reset();
  jump_.reset();
  root_ = 0;
  size_ = 0;
  overflow_pins_.clear();
}

template <class A, class T>
template <class Start>
uint32_t RouteTrie<A, T>::FindNode(const Prefix& prefix, Start start) const {
  const Key k = Traits::FromPrefix(prefix);
  const int len = prefix.length();
  if constexpr (kIndexed) {
    // When the index is fresh there: the prefix, if present, contains the longest match m of
    // its first address, so it is m or the first ancestor of m no longer than it.
    if (index_ != nullptr) {
      uint32_t m = index_->Lookup(k);
      if (m != RouteTrieIndex4::kNeedsRebuild) {
        while (m != 0 && node(m).length > len) m = arena_.parent(m);
        return (m != 0 && node(m).length == len && node(m).key == k && (node(m).flags & kEntry))
                   ? m
                   : 0;
      }
    }
  }
  uint32_t n = start(k, len);
  while (n != 0) {
    const Node& h = node(n);
    if (h.length >= len) return (h.length == len && h.key == k && (h.flags & kEntry)) ? n : 0;
    n = h.child[Traits::Bit(k, h.length)];
  }
  return 0;
}

// The deepest entry on the path to (k, length) whose prefix contains it. k need not be masked.
template <class A, class T>
uint32_t RouteTrie<A, T>::LongestMatchNode(const Key& k, int length) const {
  uint32_t n = root_;
  uint32_t best = 0;
  while (n != 0) {
    const Node& h = node(n);
    if (h.length > length || !Traits::Match(h.key, k, h.length)) break;
    if (h.flags & kEntry) best = n;
    if (h.length == length) break;
    n = h.child[Traits::Bit(k, h.length)];
  }
  return best;
}

// Longest match of an IPv4 address through the index (made on first use), rebuilding the
// address's slot when it is stale.
template <class A, class T>
uint32_t RouteTrie<A, T>::IndexedMatchNode(uint32_t address) const {
  if (index_ == nullptr) index_ = std::make_unique<RouteTrieIndex4>();
  uint32_t n = index_->Lookup(address);
  if (n == RouteTrieIndex4::kNeedsRebuild) {
    RebuildIndexSlot(RouteTrieIndex4::SlotOf(address));
    n = index_->Lookup(address);
  }
  return n;
}

template <class A, class T>
void RouteTrie<A, T>::RebuildIndexSlot(uint32_t slot) const {
  constexpr int kSlotBits = RouteTrieIndex4::kDirectBits;
  const uint32_t key = slot << (32 - kSlotBits);
  index_entries_.clear();
  for (uint32_t n = FirstEntry(TopNodeUnder(key, kSlotBits)); n != 0 && Under(n, key, kSlotBits);
       n = NextEntry(n)) {
    const Node& h = node(n);
    index_entries_.push_back({h.key, h.length, n});
  }
  index_->Rebuild(slot, LongestMatchNode(key, kSlotBits - 1), index_entries_);
}

template <class A, class T>
uint32_t RouteTrie<A, T>::KnownStart(const Key& k, int length) const {
  if constexpr (kIndexed) {
    if (jump_ != nullptr && length >= RouteTrieJump4::kBits) {
      if (const uint32_t start = jump_->Get(k); start != 0) return start;
    }
  } else {
    (void)k;
    (void)length;
  }
  return root_;
}

// The deepest node of length <= 16 on the path from the root to k's /16 block, or 0.
template <class A, class T>
uint32_t RouteTrie<A, T>::JumpNodeOf(const Key& k) const {
  uint32_t deepest = 0;
  for (uint32_t n = root_; n != 0;) {
    const Node& h = node(n);
    if (h.length > RouteTrieJump4::kBits || !Traits::Match(h.key, k, h.length)) break;
    deepest = n;
    n = h.child[Traits::Bit(k, h.length)];
  }
  return deepest;
}

template <class A, class T>
uint32_t RouteTrie<A, T>::JumpStart(const Key& k, int length) {
  if constexpr (kIndexed) {
    constexpr int kJumpBits = RouteTrieJump4::kBits;
    if (length < kJumpBits) return root_;
    if (jump_ == nullptr) {
      if (size_ < index_min_entries_) return root_;
      jump_ = std::make_unique<RouteTrieJump4>();
    }
    if (const uint32_t start = jump_->Get(k); start != 0) return start;
    const uint32_t found = JumpNodeOf(k);
    if (found == 0) return root_;
    jump_->Set(k, found);
    return found;
  } else {
    (void)k;
    (void)length;
    return root_;
  }
}

// The highest node whose prefix is (k, length) or inside it: its subtree is everything under
// (k, length). 0 when there is none.
template <class A, class T>
uint32_t RouteTrie<A, T>::TopNodeUnder(const Key& k, int length) const {
  uint32_t n = root_;
  while (n != 0) {
    const Node& h = node(n);
    if (h.length >= length) return Traits::Match(h.key, k, length) ? n : 0;
    n = h.child[Traits::Bit(k, h.length)];
  }
  return 0;
}

// The first entry of n's subtree in pre-order (a branch point always has child[0]).
template <class A, class T>
uint32_t RouteTrie<A, T>::FirstEntry(uint32_t n) const {
  while (n != 0 && !(node(n).flags & kEntry)) n = node(n).child[0];
  return n;
}

// The entry after n (a node in the tree) in pre-order, or 0.
template <class A, class T>
uint32_t RouteTrie<A, T>::NextEntry(uint32_t n) const {
  for (;;) {
    const Node& h = node(n);
    uint32_t next = h.child[0] != 0 ? h.child[0] : h.child[1];
    if (next == 0) {
      // Climb to the first ancestor with an unvisited right subtree.
      uint32_t c = n;
      uint32_t p = arena_.parent(c);
      while (p != 0 && (node(p).child[1] == c || node(p).child[1] == 0)) {
        c = p;
        p = arena_.parent(c);
      }
      if (p == 0) return 0;
      next = node(p).child[1];
    }
    if (node(next).flags & kEntry) return next;
    n = next;
  }
}

// The first entry >= (k, length) (inclusive) or > (k, length) in prefix order; k is masked.
// Walks the path to (k, length), remembering the nearest right subtree passed on the way.
template <class A, class T>
uint32_t RouteTrie<A, T>::Successor(const Key& k, int length, bool inclusive) const {
  uint32_t n = root_;
  uint32_t after = 0;  // root of the first subtree entirely after the path so far
  while (n != 0) {
    const Node& h = node(n);
    const int common = std::min({Traits::CommonBits(h.key, k), int{h.length}, length});
    if (common < h.length && common < length) {
      // Diverging at bit `common`: n's subtree is wholly before or wholly after (k, length).
      return FirstEntry(Traits::Bit(k, common) ? after : n);
    }
    if (common == length && length < h.length) return FirstEntry(n);  // all of n's are longer
    if (h.length == length) {                                         // n is (k, length) itself
      if (inclusive && (h.flags & kEntry)) return n;
      const uint32_t first_child = h.child[0] != 0 ? h.child[0] : h.child[1];
      return FirstEntry(first_child != 0 ? first_child : after);
    }
    // n is a proper ancestor of (k, length): n itself is before it.
    if (Traits::Bit(k, h.length) == 0) {
      if (h.child[1] != 0) after = h.child[1];
      n = h.child[0];
    } else {
      n = h.child[1];
    }
  }
  return FirstEntry(after);
}

template <class A, class T>
absl::Status RouteTrie<A, T>::CheckInvariants() const {
  size_t entries = 0;
  size_t tree_nodes = 0;
  std::vector<uint32_t> stack;
  if (root_ != 0) {
    if (arena_.parent(root_) != 0) return absl::InternalError("root has a parent");
    stack.push_back(root_);
  }
  while (!stack.empty()) {
    const uint32_t n = stack.back();
    stack.pop_back();
    const Node& h = node(n);
    const std::string name = Traits::ToPrefix(h.key, h.length).ToString();
    ++tree_nodes;
    if (tree_nodes > arena_.in_use()) return absl::InternalError("cycle in the tree");
    if (h.flags != kEntry && h.flags != kBranch) {
      return absl::InternalError(absl::StrCat("node ", name, " in tree has flags ", h.flags));
    }
    if (!(Traits::Masked(h.key, h.length) == h.key) || h.length > kBits) {
      return absl::InternalError(absl::StrCat("node ", name, " has host bits or bad length"));
    }
    if (h.flags == kEntry) {
      ++entries;
    } else if (h.child[0] == 0 || h.child[1] == 0) {
      return absl::InternalError(absl::StrCat("branch point ", name, " lacks a child"));
    } else if (h.pins != 0) {
      return absl::InternalError(absl::StrCat("branch point ", name, " is pinned"));
    }
    for (int b = 0; b < 2; ++b) {
      const uint32_t c = h.child[b];
      if (c == 0) continue;
      const Node& ch = node(c);
      if (arena_.parent(c) != n)
        return absl::InternalError(absl::StrCat("bad parent under ", name));
      if (ch.length <= h.length || !Traits::Match(ch.key, h.key, h.length) ||
          Traits::Bit(ch.key, h.length) != (b == 1)) {
        return absl::InternalError(absl::StrCat("child ", b, " of ", name, " misplaced"));
      }
      stack.push_back(c);
    }
  }
  if (entries != size_) {
    return absl::InternalError(absl::StrCat("size ", size_, " but ", entries, " entries"));
  }
  size_t erased = 0, unpinned = 0;
  arena_.ForEachHandedOut([&](uint32_t i) {
    const Node& h = node(i);
    if (h.flags & kErased) ++(h.pins == 0 ? unpinned : erased);
  });
  if (unpinned > 0) return absl::InternalError("erased node without pins not freed");
  if (tree_nodes + erased != arena_.in_use()) {
    return absl::InternalError(absl::StrCat("nodes leaked: ", arena_.in_use(), " in use, ",
                                            tree_nodes, " in tree, ", erased, " erased"));
  }
  uint32_t prev = 0;
  for (uint32_t n = FirstEntry(root_); n != 0; n = NextEntry(n)) {
    if (prev != 0 && !(Traits::ToPrefix(node(prev).key, node(prev).length) <
                       Traits::ToPrefix(node(n).key, node(n).length))) {
      return absl::InternalError("iteration is out of prefix order");
    }
    prev = n;
    if constexpr (kIndexed) {
      // The index agrees with the nodes at both ends of every entry's range.
      if (index_ != nullptr) {
        const Key first = node(n).key;
        const Key last = first | ~Traits::Mask(node(n).length);
        for (const Key a : {first, last}) {
          if (IndexedMatchNode(a) != LongestMatchNode(a, kBits)) {
            return absl::InternalError(absl::StrCat("lookup index disagrees with the trie for ",
                                                    Traits::ToPrefix(a, kBits).ToString()));
          }
        }
      }
    }
  }
  return CheckJumpTable();
}

// Every start the jump table knows is the deepest node of length <= 16 on its block's path.
template <class A, class T>
absl::Status RouteTrie<A, T>::CheckJumpTable() const {
  if constexpr (kIndexed) {
    if (jump_ == nullptr) return absl::OkStatus();
    constexpr int kJumpBits = RouteTrieJump4::kBits;
    for (uint32_t slot = 0; slot < RouteTrieJump4::kSlots; ++slot) {
      const Key k = slot << (kBits - kJumpBits);
      const uint32_t start = jump_->Get(k);
      if (start != 0 && start != JumpNodeOf(k)) {
        return absl::InternalError(absl::StrCat("jump table start of ",
                                                Traits::ToPrefix(k, kJumpBits).ToString(),
                                                " is not the deepest node of length <= 16"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace sluice::net
