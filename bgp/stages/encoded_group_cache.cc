#include "bgp/stages/encoded_group_cache.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/hash/hash.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/post.hpp"

namespace sluice::bgp {

namespace {

constexpr int kMaxClasses = 64;

// The encoder classes of the process: a representative of each and its live PeerOuts.
struct Classes {
  std::mutex mu;
  std::array<std::optional<UpdateEncoder>, kMaxClasses> encoders;  // written under mu
  std::array<std::atomic<int>, kMaxClasses> members{};
};

Classes& TheClasses() {
  static Classes* classes = new Classes;  // never destroyed: PeerOuts may leave during exit
  return *classes;
}

}  // namespace

int EncodedGroupCache::Join(const UpdateEncoder& encoder) {
  Classes& c = TheClasses();
  std::lock_guard<std::mutex> lock(c.mu);
  for (int i = 0; i < kMaxClasses; ++i) {
    if (!c.encoders[i]) {
      c.encoders[i].emplace(encoder);
    } else if (!c.encoders[i]->EncodesLike(encoder)) {
      continue;
    }
    c.members[i].fetch_add(1, std::memory_order_relaxed);
    return i;
  }
  return -1;  // too many kinds of encoders: this PeerOut packs every group itself
}

void EncodedGroupCache::Leave(int encoder_class) {
  if (encoder_class < 0) return;
  TheClasses().members[encoder_class].fetch_sub(1, std::memory_order_relaxed);
}

EncodedGroupCache& EncodedGroupCache::Local() {
  static thread_local EncodedGroupCache cache;
  return cache;
}

EncodedGroupCache::Batch EncodedGroupCache::BeginBatch(int encoder_class,
                                                       boost::asio::io_context& io) {
  Batch batch{this, encoder_class, false, &io};
  if (encoder_class < 0) return batch;
  ++batches_;
  const bool shared = TheClasses().members[encoder_class].load(std::memory_order_relaxed) >= 2;
  const bool sampling = stored_since_hit_ >= kIdleAfter;
  batch.store = shared && (!sampling || batches_ % kSampleEvery == 0);
  return batch;
}

uint64_t EncodedGroupCache::HashOf(int encoder_class, const AttrRef& attrs,
                                   std::span<const Nlri> announce, std::span<const Nlri> withdraw) {
  auto ends = [](std::span<const Nlri> list) {
    return list.empty() ? std::pair<net::Prefix, net::Prefix>()
                        : std::pair(list.front().prefix, list.back().prefix);
  };
  return absl::HashOf(encoder_class, attrs.get(), announce.size(), withdraw.size(), ends(announce),
                      ends(withdraw));
}

bool EncodedGroupCache::Matches(const Entry& e, uint64_t hash, int encoder_class,
                                const AttrRef& attrs, std::span<const Nlri> announce,
                                std::span<const Nlri> withdraw) const {
  if (e.hash != hash || e.encoder_class != encoder_class || e.attrs.get() != attrs.get() ||
      e.announce_size != announce.size() || e.withdraw_size != withdraw.size()) {
    return false;
  }
  const Nlri* lists = nlri_.data() + e.nlri_at;
  return std::equal(announce.begin(), announce.end(), lists) &&
         std::equal(withdraw.begin(), withdraw.end(), lists + e.announce_size);
}

std::optional<int> EncodedGroupCache::Find(const Batch& batch, const AttrRef& attrs,
                                           std::span<const Nlri> announce,
                                           std::span<const Nlri> withdraw,
                                           std::vector<uint8_t>* out) {
  if (batch.encoder_class < 0 || entries_.empty()) return std::nullopt;
  const uint64_t hash = HashOf(batch.encoder_class, attrs, announce, withdraw);
  for (size_t i = hash & (kSlots - 1); slots_[i].turn == turn_; i = (i + 1) & (kSlots - 1)) {
    const Entry& e = entries_[slots_[i].entry];
    if (!Matches(e, hash, batch.encoder_class, attrs, announce, withdraw)) continue;
    const uint8_t* messages = messages_.data() + e.messages_at;
    out->insert(out->end(), messages, messages + e.messages_size);
    stored_since_hit_ = 0;
    return e.count;
  }
  return std::nullopt;
}

void EncodedGroupCache::Store(const Batch& batch, const AttrRef& attrs,
                              std::span<const Nlri> announce, std::span<const Nlri> withdraw,
                              std::span<const uint8_t> messages, int count) {
  if (!batch.store) return;
  const size_t more = (announce.size() + withdraw.size()) * sizeof(Nlri) + messages.size();
  if (entries_.size() >= kMaxEntries || octets() + more > kMaxOctets) return;
  if (slots_.empty()) slots_.resize(kSlots);
  const uint64_t hash = HashOf(batch.encoder_class, attrs, announce, withdraw);
  size_t i = hash & (kSlots - 1);
  while (slots_[i].turn == turn_) i = (i + 1) & (kSlots - 1);  // at most half full
  slots_[i] = Slot{turn_, static_cast<uint32_t>(entries_.size())};
  entries_.push_back(Entry{
      hash, batch.encoder_class, attrs, static_cast<uint32_t>(nlri_.size()),
      static_cast<uint32_t>(announce.size()), static_cast<uint32_t>(withdraw.size()),
      static_cast<uint32_t>(messages_.size()), static_cast<uint32_t>(messages.size()), count});
  nlri_.insert(nlri_.end(), announce.begin(), announce.end());
  nlri_.insert(nlri_.end(), withdraw.begin(), withdraw.end());
  messages_.insert(messages_.end(), messages.begin(), messages.end());
  ++stored_since_hit_;
  if (!clear_posted_ && batch.io != nullptr) {
    clear_posted_ = true;
    boost::asio::post(*batch.io, [] { Local().Clear(); });
  }
}

void EncodedGroupCache::Clear() {
  entries_.clear();
  nlri_.clear();
  messages_.clear();
  if (++turn_ == 0) {  // the stamps wrapped: forget them for real
    std::fill(slots_.begin(), slots_.end(), Slot{});
    turn_ = 1;
  }
  clear_posted_ = false;
}

}  // namespace sluice::bgp
