#include "bgp/wire/attribute_store.h"

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "absl/container/flat_hash_set.h"

namespace sluice::bgp {
namespace internal {
namespace {

// Lookup key for heterogeneous find: a candidate set and its precomputed hash.
struct Key {
  const PathAttributes* attrs;
  size_t hash;
};

struct EntryHash {
  using is_transparent = void;
  size_t operator()(const AttrEntry* e) const { return e->hash; }
  size_t operator()(const Key& k) const { return k.hash; }
};

struct EntryEq {
  using is_transparent = void;
  bool operator()(const AttrEntry* a, const AttrEntry* b) const { return a == b; }
  bool operator()(const AttrEntry* a, const Key& k) const {
    return a->hash == k.hash && a->attrs == *k.attrs;
  }
  bool operator()(const Key& k, const AttrEntry* a) const { return (*this)(a, k); }
};

}  // namespace

// One per cache line: the threads that intern and release sets in neighbouring shards do not
// take each other's lines with every lock and unlock.
struct alignas(64) AttrShard {
  std::mutex mu;
  absl::flat_hash_set<AttrEntry*, EntryHash, EntryEq> set;
};

void ReleaseEntry(const AttrEntry* entry) {
  // Fast path: not the last reference, no lock. The count only goes 1 → 0 under the shard lock,
  // so an entry found in the set by Intern() always has at least one reference.
  uint32_t r = entry->refs.load(std::memory_order_relaxed);
  while (r > 1) {
    if (entry->refs.compare_exchange_weak(r, r - 1, std::memory_order_release,
                                          std::memory_order_relaxed)) {
      return;
    }
  }
  AttrShard* shard = entry->shard;
  if (shard == nullptr) {  // transient: in no table
    if (entry->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete entry;
    return;
  }
  std::lock_guard<std::mutex> lock(shard->mu);
  if (entry->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    auto* mutable_entry = const_cast<AttrEntry*>(entry);
    shard->set.erase(mutable_entry);
    delete mutable_entry;
  }
}

bool EqualEntries(const AttrEntry* a, const AttrEntry* b) {
  return a->hash == b->hash && a->attrs == b->attrs;
}

}  // namespace internal

namespace {
std::atomic<uint32_t> next_store_id{1};
}  // namespace

AttributeStore::AttributeStore(int shards) : id_(next_store_id.fetch_add(1)) {
  size_t n = std::bit_ceil(size_t(shards < 1 ? 1 : shards));
  shards_ = std::make_unique<internal::AttrShard[]>(n);
  shard_mask_ = n - 1;
}

AttributeStore::~AttributeStore() {
  locals_.clear();  // each checks its own sets
  size_t alive = size();
  if (alive != 0) {
    std::fprintf(stderr,
                 "sluice: AttributeStore destroyed while %zu attribute sets are still referenced\n",
                 alive);
    std::abort();
  }
}

template <typename A>
AttrRef AttributeStore::InternImpl(A&& attrs) {
  const size_t hash = attrs.Hash();
  internal::AttrShard& shard = shards_[(hash >> 57) & shard_mask_];
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.set.find(internal::Key{&attrs, hash});
  if (it != shard.set.end()) {
    (*it)->refs.fetch_add(1, std::memory_order_relaxed);
    return AttrRef(*it);
  }
  auto* entry = new internal::AttrEntry{std::forward<A>(attrs), hash, &shard, {}, id_};
  entry->refs.store(1, std::memory_order_relaxed);
  shard.set.insert(entry);
  return AttrRef(entry);
}

AttrRef AttributeStore::Intern(const PathAttributes& attrs) { return InternImpl(attrs); }
AttrRef AttributeStore::Intern(PathAttributes&& attrs) { return InternImpl(std::move(attrs)); }

AttrRef AttributeStore::MakeTransient(PathAttributes&& attrs) const {
  const size_t hash = attrs.Hash();
  auto* entry = new internal::AttrEntry{std::move(attrs), hash, nullptr, {}, id_};
  entry->refs.store(1, std::memory_order_relaxed);
  return AttrRef(entry);
}

size_t AttributeStore::size() const {
  size_t n = 0;
  for (size_t i = 0; i <= shard_mask_; ++i) {
    std::lock_guard<std::mutex> lock(shards_[i].mu);
    n += shards_[i].set.size();
  }
  return n;
}

size_t AttributeStore::MemoryBytes() const {
  size_t n = sizeof(internal::AttrShard) * (shard_mask_ + 1);
  for (size_t i = 0; i <= shard_mask_; ++i) {
    std::lock_guard<std::mutex> lock(shards_[i].mu);
    n += shards_[i].set.capacity() * (sizeof(internal::AttrEntry*) + 1);
    for (const internal::AttrEntry* e : shards_[i].set) {
      n += sizeof(internal::AttrEntry) + e->attrs.HeapBytes();
    }
  }
  return n;
}

AttributeStore& AttributeStore::Local(size_t worker) {
  std::lock_guard<std::mutex> lock(locals_mu_);
  if (locals_.size() <= worker) locals_.resize(worker + 1);
  if (locals_[worker] == nullptr) {
    locals_[worker] = std::make_unique<AttributeStore>(int(shard_mask_ + 1));
  }
  return *locals_[worker];
}

AttributeStore& AttributeStore::Default() {
  static AttributeStore* store = new AttributeStore();
  return *store;
}

}  // namespace sluice::bgp
