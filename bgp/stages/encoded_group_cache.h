#pragma once
// EncodedGroupCache: the UPDATEs a PeerOut packed for one group of its batch (an attribute set,
// the prefixes announced with it, the withdrawals that went first), kept so that the next
// PeerOuts on the same thread sending the very same group copy the octets instead of packing
// them again. Peers that get the same changes with the same exported attributes then pay for one
// encoding, as update groups do in other speakers (FRR's update-groups). RFC 4271 §9.2 leaves how
// an Adj-RIB-Out is built to the implementation; the octets are those a fresh Pack makes, since
// Pack is a function of its inputs and of the encoder's parameters.
//
// Keys: the encoder's class (encoders that EncodesLike share one), the attribute set by identity
// (the entry holds a reference, so its address cannot be reused while cached) and both NLRI
// lists in order. A group that differs in anything misses.
//
// Lifetime: the entries of one turn of the event loop. The first group stored in a handler posts
// a Clear() to the loop, so references and octets are dropped once the handler that delivered
// a batch to every peer is done: PeerOut keeps no attribute set past its batch for long.
//
// Cost control: a group is stored only when at least two live PeerOuts encode like its encoder
// (Join/Leave), and at most kMaxEntries groups and kMaxOctets octets. A thread that stored
// kIdleAfter groups without finding one again (peers whose batches differ) stores only every
// kSampleEvery-th batch's groups until it finds one.
//
// The classes are process-wide (guarded by a mutex, used when a PeerOut is made or destroyed);
// the entries are per thread (Local()).
//
// Memory: Clear() drops the entries but keeps the vectors' capacity for the next turn. A thread
// that once cached a large turn keeps, until it ends, the pools (their contents are at most
// kMaxOctets; grown by doubling, their capacity may be up to twice that), kSlots slots (128 KiB)
// and room for the most entries it held (at most kMaxEntries).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "bgp/wire/attribute_store.h"
#include "bgp/wire/nlri.h"
#include "bgp/wire/update_encoder.h"

namespace boost::asio {
class io_context;
}  // namespace boost::asio

namespace sluice::bgp {

class EncodedGroupCache {
 public:
  static constexpr size_t kMaxEntries = 8192;
  static constexpr size_t kMaxOctets = 4 << 20;  // messages plus the NLRI kept to compare
  static constexpr uint64_t kIdleAfter = 4096;
  static constexpr uint64_t kSampleEvery = 64;

  // A PeerOut with `encoder` was made: its class (shared with every encoder that EncodesLike).
  static int Join(const UpdateEncoder& encoder);
  // That PeerOut is gone.
  static void Leave(int encoder_class);

  // This thread's cache.
  static EncodedGroupCache& Local();

  // Starts a batch of a PeerOut of `encoder_class` whose loop is `io`; what Find and Store take.
  struct Batch {
    EncodedGroupCache* cache = nullptr;  // this thread's, which Find and Store are called on
    int encoder_class = -1;
    bool store = false;  // whether this batch's groups are kept for the next peers
    boost::asio::io_context* io = nullptr;
  };
  Batch BeginBatch(int encoder_class, boost::asio::io_context& io);

  // When the group was stored this turn, appends its messages to `out` and returns their count.
  std::optional<int> Find(const Batch& batch, const AttrRef& attrs, std::span<const Nlri> announce,
                          std::span<const Nlri> withdraw, std::vector<uint8_t>* out);
  // Keeps the group's `count` messages (`messages`, as Pack appended them).
  void Store(const Batch& batch, const AttrRef& attrs, std::span<const Nlri> announce,
             std::span<const Nlri> withdraw, std::span<const uint8_t> messages, int count);
  // Drops every entry (and its reference).
  void Clear();

  size_t size() const { return entries_.size(); }

 private:
  // Where an entry's NLRI (announce, then withdraw) and messages are, in the turn's pools.
  struct Entry {
    uint64_t hash = 0;
    int encoder_class = -1;
    AttrRef attrs;
    uint32_t nlri_at = 0;
    uint32_t announce_size = 0;
    uint32_t withdraw_size = 0;
    uint32_t messages_at = 0;
    uint32_t messages_size = 0;
    int count = 0;
  };
  // Open addressing over entry indexes; a slot counts only when stamped with this turn's number,
  // so that Clear() empties the table without touching it.
  struct Slot {
    uint32_t turn = 0;
    uint32_t entry = 0;
  };
  static constexpr size_t kSlots = 2 * kMaxEntries;  // a power of two

  // Hashes what tells groups apart cheaply (the full lists are compared on a match).
  static uint64_t HashOf(int encoder_class, const AttrRef& attrs, std::span<const Nlri> announce,
                         std::span<const Nlri> withdraw);
  bool Matches(const Entry& e, uint64_t hash, int encoder_class, const AttrRef& attrs,
               std::span<const Nlri> announce, std::span<const Nlri> withdraw) const;
  size_t octets() const { return nlri_.size() * sizeof(Nlri) + messages_.size(); }

  std::vector<Entry> entries_;
  std::vector<Nlri> nlri_;         // every entry's lists, back to back
  std::vector<uint8_t> messages_;  // every entry's messages, back to back
  std::vector<Slot> slots_;        // kSlots once the first group is stored
  uint32_t turn_ = 1;
  bool clear_posted_ = false;
  uint64_t stored_since_hit_ = 0;
  uint64_t batches_ = 0;
};

}  // namespace sluice::bgp
