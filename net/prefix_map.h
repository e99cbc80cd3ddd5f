#pragma once
// PrefixMap<T>: a route table keyed by net::Prefix of either family — an IPv4 RouteTrie and an
// IPv6 RouteTrie behind one interface, so that stages need no template over the address family
// (DESIGN.md: templates stay in the trie and the stage interface).
//
// Same semantics and costs as RouteTrie (route_trie.h), safe iterators included. Iteration in
// net::Prefix order: every IPv4 entry, then every IPv6 entry. Single-threaded, like the tries.

#include <cstddef>
#include <utility>
#include <vector>

#include "net/prefix.h"
#include "net/route_trie.h"

namespace sluice::net {

template <class T>
class PrefixMap {
  using Trie4 = RouteTrie4<T>;
  using Trie6 = RouteTrie6<T>;
  using It4 = typename Trie4::iterator;
  using It6 = typename Trie6::iterator;

 public:
  using key_type = Prefix;
  using mapped_type = T;

  // An entry of either family. After the last IPv4 entry of a whole-table walk comes the first
  // IPv6 entry; a subtree walk stays in its family.
  class iterator {
   public:
    iterator() = default;
    Prefix key() const { return v6_ ? it6_.key() : it4_.key(); }
    T& value() const { return v6_ ? it6_.value() : it4_.value(); }
    T& operator*() const { return value(); }
    T* operator->() const { return &value(); }
    bool erased() const { return v6_ ? it6_.erased() : it4_.erased(); }
    iterator& operator++() {
      if (v6_) {
        ++it6_;
      } else {
        ++it4_;
        if (it4_ == It4()) {
          v6_ = true;
          it6_ = continue_to_v6_ ? map_->v6_.begin() : It6();
        }
      }
      return *this;
    }
    friend bool operator==(const iterator& a, const iterator& b) {
      return a.v6_ == b.v6_ && (a.v6_ ? a.it6_ == b.it6_ : a.it4_ == b.it4_);
    }

   private:
    friend class PrefixMap;
    static iterator Of4(PrefixMap* map, It4 it, bool continue_to_v6) {
      iterator r;
      r.map_ = map;
      r.continue_to_v6_ = continue_to_v6;
      if (it == It4()) {
        r.v6_ = true;
        if (continue_to_v6) r.it6_ = map->v6_.begin();
      } else {
        r.v6_ = false;
        r.it4_ = std::move(it);
      }
      return r;
    }
    static iterator Of6(PrefixMap* map, It6 it) {
      iterator r;
      r.map_ = map;
      r.v6_ = true;
      r.it6_ = std::move(it);
      return r;
    }

    PrefixMap* map_ = nullptr;
    bool v6_ = true;  // the default iterator is end()
    bool continue_to_v6_ = false;
    It4 it4_;
    It6 it6_;
  };

  struct Range {
    iterator first;
    iterator last;
    iterator begin() const { return first; }
    iterator end() const { return last; }
    bool empty() const { return first == last; }
  };

  PrefixMap() = default;
  PrefixMap(const PrefixMap&) = delete;
  PrefixMap& operator=(const PrefixMap&) = delete;

  std::pair<iterator, bool> insert(const Prefix& prefix, T value) {
    if (prefix.is_v4()) {
      auto [it, added] = v4_.insert(prefix, std::move(value));
      return {iterator::Of4(this, std::move(it), true), added};
    }
    auto [it, added] = v6_.insert(prefix, std::move(value));
    return {iterator::Of6(this, std::move(it)), added};
  }
  std::pair<iterator, bool> insert_or_assign(const Prefix& prefix, T value) {
    if (prefix.is_v4()) {
      auto [it, added] = v4_.insert_or_assign(prefix, std::move(value));
      return {iterator::Of4(this, std::move(it), true), added};
    }
    auto [it, added] = v6_.insert_or_assign(prefix, std::move(value));
    return {iterator::Of6(this, std::move(it)), added};
  }
  iterator find(const Prefix& prefix) {
    if (prefix.is_v4()) return iterator::Of4(this, v4_.find(prefix), false);
    return iterator::Of6(this, v6_.find(prefix));
  }
  T* find_value(const Prefix& prefix) {
    return prefix.is_v4() ? v4_.find_value(prefix) : v6_.find_value(prefix);
  }
  const T* find_value(const Prefix& prefix) const {
    return prefix.is_v4() ? v4_.find_value(prefix) : v6_.find_value(prefix);
  }
  bool contains(const Prefix& prefix) const { return find_value(prefix) != nullptr; }
  bool erase(const Prefix& prefix) {
    return prefix.is_v4() ? v4_.erase(prefix) : v6_.erase(prefix);
  }
  // Erases the entry `it` stands on; returns the next entry of the same walk.
  iterator erase(iterator it) {
    if (!it.v6_) {
      const bool cont = it.continue_to_v6_;
      return iterator::Of4(this, v4_.erase(std::move(it.it4_)), cont);
    }
    return iterator::Of6(this, v6_.erase(std::move(it.it6_)));
  }

  // Longest-prefix match of an address; end() when nothing covers it.
  iterator longest_match(const IPAddress& address) {
    if (address.is_v4()) return iterator::Of4(this, v4_.longest_match(address), false);
    return iterator::Of6(this, v6_.longest_match(address));
  }
  const T* longest_match_value(const IPAddress& address) const {
    return address.is_v4() ? v4_.longest_match_value(address) : v6_.longest_match_value(address);
  }
  // RouteTrie::VisitCovering: visit(value) for each entry containing `prefix`, least specific
  // first, while it returns true; const and pin-free.
  template <class Visit>
  void VisitCovering(const Prefix& prefix, Visit visit) const {
    if (prefix.is_v4()) {
      v4_.VisitCovering(prefix, visit);
    } else {
      v6_.VisitCovering(prefix, visit);
    }
  }
  // The longest stored prefix containing `prefix` (itself included).
  iterator longest_match(const Prefix& prefix) {
    if (prefix.is_v4()) return iterator::Of4(this, v4_.longest_match(prefix), false);
    return iterator::Of6(this, v6_.longest_match(prefix));
  }
  // The longest stored prefix strictly containing `prefix`.
  iterator find_less_specific(const Prefix& prefix) {
    if (prefix.is_v4()) return iterator::Of4(this, v4_.find_less_specific(prefix), false);
    return iterator::Of6(this, v6_.find_less_specific(prefix));
  }
  // Every entry contained in `prefix` (itself included), in prefix order.
  Range subtree(const Prefix& prefix) {
    if (prefix.is_v4()) {
      auto r = v4_.subtree(prefix);
      return Range{iterator::Of4(this, r.begin(), false), end()};
    }
    auto r = v6_.subtree(prefix);
    return Range{iterator::Of6(this, r.begin()), end()};
  }
  // The first entry at or after `prefix` in prefix order, over both families.
  iterator lower_bound(const Prefix& prefix) {
    if (prefix.is_v4()) return iterator::Of4(this, v4_.lower_bound(prefix), true);
    return iterator::Of6(this, v6_.lower_bound(prefix));
  }

  iterator begin() { return iterator::Of4(this, v4_.begin(), true); }
  iterator end() { return iterator(); }
  size_t size() const { return v4_.size() + v6_.size(); }
  size_t size(Family family) const { return family == Family::kIPv4 ? v4_.size() : v6_.size(); }
  bool empty() const { return size() == 0; }
  void clear() {
    v4_.clear();
    v6_.clear();
  }
  size_t memory_bytes() const { return v4_.memory_bytes() + v6_.memory_bytes(); }

  Trie4& v4() { return v4_; }
  Trie6& v6() { return v6_; }

 private:
  Trie4 v4_;
  Trie6 v6_;
};

}  // namespace sluice::net
