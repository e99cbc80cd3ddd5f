#pragma once
// AttributeStore interns path attribute sets: one immutable shared copy per distinct
// PathAttributes, handed out as AttrRef handles. A full Internet table has ~600k routes but only
// ~80k distinct attribute sets, so a route costs its prefix plus an 8-octet AttrRef.
//
// Threads: Intern() may be called from any number of threads at once (per-peer UPDATE parsing,
// shard workers). The store is split into shards chosen by the set's hash, each with its own
// mutex, so threads rarely wait on one another. AttrRef copies and destructions are atomic
// reference-count operations with no lock; only the release of the last reference takes its
// shard's lock to erase the entry.
//
// Transient sets (MakeTransient) are counted like interned ones but not indexed: for a set that
// lives only while routes are in transit, such as what the export rules make for a peer (PeerOut
// stores no routes), so that making and freeing it takes no lock and touches no shared table.
//
// Local stores (Local): a thread that interns much, such as a shard worker, can have a store of
// its own, so that its locks, tables and counts stay on lines no other thread writes. Sets of two
// stores are equal (AttrRef ==) by content, not by handle.
//
// Lifetime: the store must outlive every AttrRef it interned. Destroying a store with live
// references to interned sets is a programming error (it aborts with a message); transient sets
// do not refer to the store.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "bgp/wire/path_attributes.h"

namespace sluice::bgp {

class AttributeStore;

namespace internal {
struct AttrShard;
// One interned set. Immutable after construction apart from the reference count.
struct AttrEntry {
  PathAttributes attrs;
  size_t hash = 0;
  AttrShard* shard = nullptr;  // null for a transient set
  mutable std::atomic<uint32_t> refs{0};
  uint32_t store_id = 0;  // which store made it
};
void ReleaseEntry(const AttrEntry* entry);
// Two distinct entries hold equal sets: their hashes, then their contents, compared (entries one
// store interned never do, but entries of two stores, or transient ones, may).
bool EqualEntries(const AttrEntry* a, const AttrEntry* b);
}  // namespace internal

// A counted reference to an attribute set, interned or transient: 8 octets (one pointer). Null
// when default constructed (an UPDATE without attributes, e.g. withdrawals only). Two AttrRefs are
// equal exactly when their attribute sets are equal, so comparing and hashing handles is comparing
// and hashing sets: equal pointers are equal sets; otherwise the stored hashes are compared, and
// the sets only when those agree (handles from two stores, a tool that reads two captures, say,
// or transient sets).
class AttrRef {
 public:
  AttrRef() = default;
  AttrRef(const AttrRef& o) : entry_(o.entry_) {
    if (entry_) entry_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  AttrRef(AttrRef&& o) noexcept : entry_(o.entry_) { o.entry_ = nullptr; }
  AttrRef& operator=(const AttrRef& o) {
    AttrRef copy(o);
    std::swap(entry_, copy.entry_);
    return *this;
  }
  AttrRef& operator=(AttrRef&& o) noexcept {
    std::swap(entry_, o.entry_);
    return *this;
  }
  ~AttrRef() {
    if (entry_) internal::ReleaseEntry(entry_);
  }

  explicit operator bool() const { return entry_ != nullptr; }
  const PathAttributes& operator*() const { return entry_->attrs; }
  const PathAttributes* operator->() const { return &entry_->attrs; }
  const PathAttributes* get() const { return entry_ ? &entry_->attrs : nullptr; }
  // The set's hash, computed once when made (0 for a null ref).
  size_t hash() const { return entry_ ? entry_->hash : 0; }
  // The id of the store that made the set (AttributeStore::id()); 0 for a null ref.
  uint32_t store_id() const { return entry_ ? entry_->store_id : 0; }
  // References alive to this set (for tests and statistics).
  uint32_t use_count() const { return entry_ ? entry_->refs.load(std::memory_order_relaxed) : 0; }
  void reset() { AttrRef().swap(*this); }
  // Starts loading the line that holds the set's reference count (for writing: a release
  // follows), for a caller that will read a set another thread made or counts, a few sets ahead
  // of using it. The hash is on that line too unless the entry places the two across a line
  // boundary (about one entry in four).
  void Prefetch() const {
    if (entry_) __builtin_prefetch(&entry_->refs, 1);
  }
  void swap(AttrRef& o) noexcept { std::swap(entry_, o.entry_); }

  friend bool operator==(const AttrRef& a, const AttrRef& b) {
    if (a.entry_ == b.entry_) return true;
    if (a.entry_ == nullptr || b.entry_ == nullptr) return false;
    return internal::EqualEntries(a.entry_, b.entry_);
  }
  template <typename H>
  friend H AbslHashValue(H h, const AttrRef& r) {
    return H::combine(std::move(h), r.hash());
  }

 private:
  friend class AttributeStore;
  explicit AttrRef(const internal::AttrEntry* e) : entry_(e) {}
  const internal::AttrEntry* entry_ = nullptr;
};
static_assert(sizeof(AttrRef) == 8);

class AttributeStore {
 public:
  // `shards`: number of independently locked parts (rounded up to a power of two).
  explicit AttributeStore(int shards = 32);
  ~AttributeStore();
  AttributeStore(const AttributeStore&) = delete;
  AttributeStore& operator=(const AttributeStore&) = delete;

  // The shared copy equal to `attrs`, made (copied) if there is none yet. Thread-safe.
  AttrRef Intern(const PathAttributes& attrs);
  AttrRef Intern(PathAttributes&& attrs);
  // A set of its own, not interned (see the top of this file): equal (==) to every set with the
  // same content, though other copies of that content may exist. Thread-safe; no lock.
  AttrRef MakeTransient(PathAttributes&& attrs) const;

  // Distinct interned sets alive now in this store (not its locals'; transient ones are not
  // counted).
  size_t size() const;
  // This store's id (unique in the process, never 0): AttrRef::store_id() of the sets it made.
  uint32_t id() const { return id_; }
  // Heap octets used by the entries (PathAttributes and their vectors) and by the index tables.
  // Approximate: vector capacity, hash table slots; malloc overhead not included.
  size_t MemoryBytes() const;

  // Worker `worker`'s store of its own (see the top of this file): made on first use, destroyed
  // with this one, so it outlives whatever outlives this store. Thread-safe.
  AttributeStore& Local(size_t worker);

  // A process-wide store, for code that has no reason to own one.
  static AttributeStore& Default();

 private:
  template <typename A>
  AttrRef InternImpl(A&& attrs);

  std::unique_ptr<internal::AttrShard[]> shards_;
  size_t shard_mask_;
  uint32_t id_;
  std::mutex locals_mu_;
  std::vector<std::unique_ptr<AttributeStore>> locals_;  // by worker; null: not made yet
};

}  // namespace sluice::bgp
