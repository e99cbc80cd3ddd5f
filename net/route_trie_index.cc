#include "net/route_trie_index.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace sluice::net {

RouteTrieIndex4::RouteTrieIndex4() : direct_(new uint32_t[kSlots]) {
  std::fill(direct_.get(), direct_.get() + kSlots, kStale);
}

RouteTrieIndex4::~RouteTrieIndex4() {
  for (Blob* blob : blobs_) ::operator delete(blob);
}

size_t RouteTrieIndex4::memory_bytes() const {
  return kSlots * sizeof(uint32_t) + blob_bytes_ + blobs_.capacity() * sizeof(Blob*) +
         free_blobs_.capacity() * sizeof(uint32_t) + build_nodes_.capacity() * sizeof(Node) +
         build_leaves_.capacity() * sizeof(uint32_t);
}

void RouteTrieIndex4::Invalidate(uint32_t key, int length) {
  const uint32_t first = SlotOf(key);
  const uint32_t count = length >= kDirectBits ? 1 : uint32_t{1} << (kDirectBits - length);
  for (uint32_t i = first; i < first + count; ++i) direct_[i] |= kStale;
}

void RouteTrieIndex4::FreeBlob(uint32_t index) {
  Blob* blob = blobs_[index];
  blob_bytes_ -= BlobFootprint(blob->node_count, blob->leaf_count);
  ::operator delete(blob);
  blobs_[index] = nullptr;
  free_blobs_.push_back(index);
}

void RouteTrieIndex4::Rebuild(uint32_t slot, uint32_t inherited,
                              const std::vector<Entry>& entries) {
  uint32_t& d = direct_[slot];
  if (d & kBlob) FreeBlob(d & kIdMask);
  const Entry* first = entries.data();
  const Entry* last = first + entries.size();
  if (first != last && first->length == kDirectBits) inherited = (first++)->id;  // the /18 itself
  if (first == last) {
    d = inherited;  // one answer for the whole /18
    return;
  }
  build_nodes_.clear();
  build_leaves_.clear();
  build_nodes_.resize(1);
  BuildNode(0, 0, first, last, inherited);

  const auto node_count = static_cast<uint32_t>(build_nodes_.size());
  const auto leaf_count = static_cast<uint32_t>(build_leaves_.size());
  const size_t bytes = BlobBytes(node_count, leaf_count);
  Blob* blob = ::new (::operator new(bytes)) Blob{node_count, leaf_count};
  std::memcpy(blob->nodes(), build_nodes_.data(), node_count * sizeof(Node));
  std::memcpy(blob->leaves(), build_leaves_.data(), leaf_count * sizeof(uint32_t));
  blob_bytes_ += BlobFootprint(node_count, leaf_count);
  uint32_t index;
  if (!free_blobs_.empty()) {
    index = free_blobs_.back();
    free_blobs_.pop_back();
    blobs_[index] = blob;
  } else {
    index = static_cast<uint32_t>(blobs_.size());
    blobs_.push_back(blob);
  }
  d = kBlob | index;
}

// Fills build_nodes_[node] for the region of the entries [first, last), all longer than the
// node's first bit (18 + 6 * depth); `inherited` is the longest entry covering the region.
// Children are appended contiguously after the node's leaves are, as Lookup expects.
void RouteTrieIndex4::BuildNode(size_t node, int depth, const Entry* first, const Entry* last,
                                uint32_t inherited) {
  const int begin_bit = kDirectBits + 6 * depth;
  const int end_bit = begin_bit + 6;
  uint32_t best[64];
  int best_length[64];
  const Entry* child_first[64];
  const Entry* child_last[64];
  std::fill(best, best + 64, inherited);
  std::fill(best_length, best_length + 64, -1);
  uint64_t vector = 0;
  for (const Entry* e = first; e != last; ++e) {
    const unsigned v = static_cast<unsigned>((uint64_t{e->key} << 4) >> (36 - end_bit)) & 63u;
    if (e->length <= end_bit) {
      // Covers 2^(end_bit - length) whole positions (its host bits are zero, so v is aligned).
      const unsigned span = 1u << (end_bit - e->length);
      for (unsigned w = v; w < v + span; ++w) {
        if (e->length > best_length[w]) {
          best[w] = e->id;
          best_length[w] = e->length;
        }
      }
    } else {
      // Longer entries of one position are contiguous in prefix order.
      if (!((vector >> v) & 1u)) {
        vector |= uint64_t{1} << v;
        child_first[v] = e;
      }
      child_last[v] = e + 1;
    }
  }
  const auto base0 = static_cast<uint32_t>(build_leaves_.size());
  uint64_t leafvec = 0;
  for (unsigned v = 0; v < 64; ++v) {
    if ((vector >> v) & 1u) continue;
    if (build_leaves_.size() == base0 || build_leaves_.back() != best[v]) {
      leafvec |= uint64_t{1} << v;
      build_leaves_.push_back(best[v]);
    }
  }
  const auto base1 = static_cast<uint32_t>(build_nodes_.size());
  build_nodes_.resize(base1 + std::popcount(vector));
  build_nodes_[node] = Node{vector, leafvec, base0, base1};
  uint32_t child = base1;
  for (unsigned v = 0; v < 64; ++v) {
    if ((vector >> v) & 1u) BuildNode(child++, depth + 1, child_first[v], child_last[v], best[v]);
  }
}

}  // namespace sluice::net
