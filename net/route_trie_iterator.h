#pragma once
// RouteTrieIterator<A, T>, alias RouteTrie<A, T>::iterator: a safe iterator (XORP NSDI'05 §5.3).
// Included by net/route_trie.h; include that header, not this one.
//
// An iterator pins the node it stands on, so the node outlives an erase of its entry until the
// last iterator leaves it. It walks in prefix order; one made by subtree() also carries the
// subtree's prefix and becomes end() on leaving it.

#include <cstddef>
#include <iterator>
#include <utility>

#include "net/prefix.h"
#include "net/route_trie_key.h"

namespace sluice::net {

template <class A, class T>
class RouteTrie;

template <class A, class T>
class RouteTrieIterator {
  using Trie = RouteTrie<A, T>;
  using Traits = RouteTrieKey<A>;
  using Key = typename Traits::Key;
  using iterator = RouteTrieIterator;

 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = T*;
  using reference = T&;

  RouteTrieIterator() = default;  // end()
  RouteTrieIterator(const iterator& o)
      : trie_(o.trie_), node_(o.node_), scope_key_(o.scope_key_), scope_length_(o.scope_length_) {
    Pin();
  }
  RouteTrieIterator(iterator&& o) noexcept
      : trie_(o.trie_), node_(o.node_), scope_key_(o.scope_key_), scope_length_(o.scope_length_) {
    o.node_ = 0;
  }
  iterator& operator=(const iterator& o) {
    if (this != &o) {
      if (o.node_ != 0) o.trie_->Pin(o.node_);
      Unpin();
      trie_ = o.trie_;
      node_ = o.node_;
      scope_key_ = o.scope_key_;
      scope_length_ = o.scope_length_;
    }
    return *this;
  }
  iterator& operator=(iterator&& o) noexcept {
    if (this != &o) {
      Unpin();
      trie_ = o.trie_;
      node_ = std::exchange(o.node_, 0);
      scope_key_ = o.scope_key_;
      scope_length_ = o.scope_length_;
    }
    return *this;
  }
  ~RouteTrieIterator() { Unpin(); }

  // The entry's prefix and value. Precondition: not end(). Still readable after the entry was
  // erased, until this iterator moves on.
  Prefix key() const {
    const auto& h = trie_->node(node_);
    return Traits::ToPrefix(h.key, h.length);
  }
  T& value() const { return *trie_->arena_.value(node_); }
  T& operator*() const { return value(); }
  T* operator->() const { return &value(); }
  // True when the entry this iterator stands on has been erased (it is no longer in the trie).
  bool erased() const { return node_ != 0 && (trie_->node(node_).flags & Trie::kErased); }

  // Moves to the next live entry in prefix order (within the subtree for a subtree iterator);
  // from an erased entry, to the first live entry after its key. No-op on end().
  iterator& operator++() {
    if (node_ == 0) return *this;
    const auto& h = trie_->node(node_);
    uint32_t next = (h.flags & Trie::kErased)
                        ? trie_->Successor(h.key, h.length, /*inclusive=*/false)
                        : trie_->NextEntry(node_);
    if (next != 0 && !trie_->Under(next, scope_key_, scope_length_)) next = 0;
    trie_->Pin(next);
    trie_->Unpin(node_);
    node_ = next;
    return *this;
  }
  iterator operator++(int) {
    iterator old = *this;
    ++*this;
    return old;
  }

  // Iterators are equal when they stand on the same node (all end() iterators are equal).
  friend bool operator==(const iterator& a, const iterator& b) {
    return a.node_ == b.node_ && (a.node_ == 0 || a.trie_ == b.trie_);
  }

 private:
  friend Trie;
  RouteTrieIterator(Trie* trie, uint32_t node, const Key& scope_key, uint8_t scope_length)
      : trie_(trie), node_(node), scope_key_(scope_key), scope_length_(scope_length) {
    Pin();
  }
  void Pin() {
    if (node_ != 0) trie_->Pin(node_);
  }
  void Unpin() {
    if (node_ != 0) trie_->Unpin(node_);
  }

  Trie* trie_ = nullptr;
  uint32_t node_ = 0;
  Key scope_key_{};
  uint8_t scope_length_ = 0;
};

}  // namespace sluice::net
