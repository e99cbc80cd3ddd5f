#pragma once
// What the RIB sends the FEA (XORP NSDI'05 §5.2): forwarding entries (FibRoute), changes to
// them (FibChange) and a batch's changes in order (FibChangeList).
//
// FibChangeList holds its changes packed, 24 octets for an IPv4 change with a nexthop (a
// FibChange is 80): a FEA slower than the RIB leaves up to FeaOutOptions::max_backlog changes
// queued in the RIB, a large share of its memory while a full table arrives or leaves.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "net/ip_address.h"
#include "net/prefix.h"
#include "rib/rib_route.h"
#include "rib/symbol.h"

namespace sluice::rib {

// A forwarding entry: what the kernel needs, plus where it came from.
struct FibRoute {
  net::Prefix network;
  std::optional<net::IPAddress> nexthop;  // none: on-link on `ifname`
  Symbol ifname;
  uint32_t metric = 0;
  Symbol protocol;
  uint16_t admin_distance = 0;

  // A RIB winner's forwarding entry (its resolved nexthop and interface, if resolved).
  static FibRoute From(const RibRoute& route) {
    return FibRoute{
        route.network,  route.forwarding_nexthop(), route.forwarding_ifname(), route.metric,
        route.protocol, route.admin_distance};
  }
  const net::Prefix& prefix() const { return network; }
  // "10.0.0.0/8 via 192.0.2.1 dev eth0 metric 5 static/1"
  std::string ToString() const;
  friend bool operator==(const FibRoute&, const FibRoute&) = default;
};

struct FibChange {
  enum class Op : uint8_t { kAdd, kReplace, kDelete };
  Op op;
  FibRoute route;  // kDelete: the entry removed (only its prefix matters to the FEA)
  friend bool operator==(const FibChange&, const FibChange&) = default;
};
const char* FibOpName(FibChange::Op op);  // "add" / "replace" / "delete"

// Changes in the order added, of either family, read back as FibChanges equal to those added.
// Forward iteration only: each change is rebuilt (a FibChange value) as the iterator reaches it.
//
//   FibChangeList list;
//   list.push_back(FibChange{FibChange::Op::kAdd, route});
//   for (const FibChange& c : list) ...
class FibChangeList {
 public:
  void push_back(const FibChange& change);
  size_t size() const { return records_.size(); }
  bool empty() const { return records_.empty(); }
  // Room for `changes` changes of `family` with a nexthop, without reallocating.
  void reserve(size_t changes, net::Family family);
  // Frees the room reserved past what is held when it is more than what is held.
  void ShrinkIfSparse();
  void clear();  // keeps the room
  void swap(FibChangeList& other) noexcept;

  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = FibChange;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = FibChange;

    FibChange operator*() const;
    const_iterator& operator++();
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.record_ == b.record_;
    }

   private:
    friend class FibChangeList;
    const_iterator(const FibChangeList* list, size_t record, size_t word)
        : list_(list), record_(record), word_(word) {}
    const FibChangeList* list_;
    size_t record_;
    size_t word_;  // where the record's addresses begin in words_
  };
  const_iterator begin() const { return const_iterator(this, 0, 0); }
  const_iterator end() const { return const_iterator(this, records_.size(), words_.size()); }

 private:
  // A change without its addresses, which follow one another in words_.
  struct Record {
    uint8_t op_flags;  // the Op in the low bits; kIPv6, kNexthopIPv4, kNexthopIPv6 above
    uint8_t length;
    uint16_t admin_distance;
    uint32_t metric;
    Symbol ifname;
    Symbol protocol;
  };
  static_assert(sizeof(Record) == 16);
  static constexpr uint8_t kOpMask = 0x3;
  static constexpr uint8_t kIPv6 = 0x4;  // the network's family
  // The nexthop's family, when there is one (an IPv4 network may have an IPv6 nexthop).
  static constexpr uint8_t kNexthopIPv4 = 0x8;
  static constexpr uint8_t kNexthopIPv6 = 0x10;
  // 32-bit words per address, most significant first.
  static size_t Words(bool ipv6) { return ipv6 ? 4 : 1; }
  static size_t WordsOf(const Record& r);  // the record's addresses

  std::vector<Record> records_;
  std::vector<uint32_t> words_;  // each change's network address, then its nexthop if it has one
};

}  // namespace sluice::rib
