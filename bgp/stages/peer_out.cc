#include "bgp/stages/peer_out.h"

#include <algorithm>
#include <bit>
#include <type_traits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "bgp/stages/encode_thread.h"
#include "bgp/wire/attribute_encoder.h"

namespace sluice::bgp {

namespace {
constexpr size_t kKeepOps = 16384;  // changes a batch may hold and keep its buffers for the next
constexpr size_t kFirstOps = 256;   // room a fresh batch starts with
// Batch buffers a thread keeps between batches, for whichever of its PeerOuts starts one next:
// memory for batches follows how many peers take changes at once, not how many there are.
constexpr size_t kSpareBatches = 8;
constexpr size_t kKeepScratch = 16384;  // entries the encoding scratch keeps for the next batch
// A big batch goes to the session in pieces of about this many octets (whole UPDATEs): buffers
// of this size are recycled by the allocator, where one of a whole burst's size would be mapped,
// faulted in page by page and unmapped each time.
constexpr size_t kSendChunk = 32 * 1024;
}  // namespace

std::shared_ptr<const PeerOut::Encoding> PeerOut::MakeEncoding(const std::string& name,
                                                               const SessionParams& params,
                                                               AfiSafi family) {
  UpdateEncoder encoder(params);
  const int encoder_class = EncodedGroupCache::Join(encoder);
  return std::make_shared<const Encoding>(
      Encoding{name, family, std::move(encoder), encoder_class});
}

PeerOut::PeerOut(std::string name, boost::asio::io_context& io, SessionSender* sender,
                 const SessionParams& params, AfiSafi family, FlowControl* reader,
                 const PrefixSource* loc_rib, Options options)
    : BranchTail(name),
      sender_(sender),
      reader_(reader),
      options_(options),
      io_(io),
      encoding_(MakeEncoding(name, params, family)),
      refresh_(io, name + " refresh", loc_rib,
               PrefixWalk::Hooks{
                   .visit =
                       [this](const net::Prefix& p) {
                         if (upstream_ == nullptr) return;
                         if (std::optional<BgpRoute> r = upstream_->lookup_route(p)) {
                           Readvertise(*r);
                         }
                       },
                   .end_of_slice = [this] { Flush(); },
                   .can_run = [this] { return !blocked_ && !encoding_full_; },
                   .paused = [this] { when_writable_.push_back(refresh_.Resumer()); },
               }) {
  if (options_.budget != nullptr) options_.budget->Add(sender_);
  if (options_.end_of_rib_gate != nullptr) {
    gate_observer_ = options_.end_of_rib_gate->Observe([this](bool open) {
      gated_ = !open;
      ApplyBlocked();
    });
  }
}

PeerOut::~PeerOut() {
  if (options_.budget != nullptr) options_.budget->Remove(sender_);
  EncodedGroupCache::Leave(encoding_->encoder_class);
  // The cache may hold references to this peer's sets: none may outlive their stores.
  EncodedGroupCache::Local().Clear();
}

size_t PeerOut::high_water() const {
  return options_.budget != nullptr ? options_.budget->share() : options_.high_water;
}

std::string PeerOut::Status() const {
  std::string s = absl::StrCat("advertised=", counters_.advertised, " updates=", counters_.updates);
  if (counters_.groups_shared != 0) absl::StrAppend(&s, " shared_groups=", counters_.groups_shared);
  if (in_flight_changes_ != 0) absl::StrAppend(&s, " encoding=", in_flight_changes_);
  if (blocked_) s += " blocked";
  if (refresh_.running()) s += " refreshing";
  return s;
}

thread_local std::vector<std::vector<PeerOut::Op>> PeerOut::spare_batches_;

PeerOut::Op& PeerOut::Pending(const net::Prefix& prefix, AttrRef from) {
  if (ops_.capacity() == 0) TakeBatch();
  return ops_.emplace_back(Op{prefix, std::move(from), AttrRef(), false});
}

void PeerOut::TakeBatch() {
  if (spare_batches_.empty()) {
    ops_.reserve(kFirstOps);
    return;
  }
  ops_.swap(spare_batches_.back());
  spare_batches_.pop_back();
}

void PeerOut::ReturnBatch() { KeepBuffer(std::exchange(ops_, std::vector<Op>())); }

void PeerOut::KeepBuffer(std::vector<Op> buffer) {
  buffer.clear();
  // A burst's buffer is not kept.
  if (buffer.capacity() <= kKeepOps && spare_batches_.size() < kSpareBatches) {
    spare_batches_.push_back(std::move(buffer));
  }
}

void PeerOut::Collapse(std::vector<Op>& ops, std::vector<uint32_t>& first_of) {
  if (ops.size() < 2) return;
  // An open-addressing table of indexes into ops, built for this batch at twice its size: a
  // change finds its prefix's first change (always earlier) or takes an empty slot.
  constexpr uint32_t kEmpty = ~uint32_t{0};
  const size_t mask = std::bit_ceil(2 * ops.size()) - 1;
  first_of.assign(mask + 1, kEmpty);
  for (size_t i = 0; i < ops.size(); ++i) {
    Op& op = ops[i];
    for (size_t slot = absl::HashOf(op.prefix) & mask;; slot = (slot + 1) & mask) {
      if (first_of[slot] == kEmpty) {
        first_of[slot] = static_cast<uint32_t>(i);
        break;
      }
      Op& first = ops[first_of[slot]];
      if (first.prefix != op.prefix) continue;
      first.to = std::exchange(op.to, AttrRef());
      first.force = first.force || op.force;
      op.from.reset();  // sends nothing
      op.force = false;
      break;
    }
  }
}

void PeerOut::Readvertise(const BgpRoute& route) {
  Op& op = Pending(route.net, route.attrs);
  op.to = route.attrs;
  op.force = true;
}

void PeerOut::add_route(const BgpRoute& route, BgpStage*) {
  Pending(route.net, AttrRef()).to = route.attrs;
}

void PeerOut::add_route(BgpRoute&& route, BgpStage*) {
  Pending(route.net, AttrRef()).to = std::move(route.attrs);
}

void PeerOut::delete_route(const BgpRoute& route, BgpStage*) {
  Pending(route.net, route.attrs).to.reset();
}

void PeerOut::replace_route(const BgpRoute& old_route, const BgpRoute& new_route, BgpStage*) {
  Pending(new_route.net, old_route.attrs).to = new_route.attrs;
}

void PeerOut::replace_route(BgpRoute&& old_route, BgpRoute&& new_route, BgpStage*) {
  Pending(new_route.net, std::move(old_route.attrs)).to = std::move(new_route.attrs);
}

// The encoding scratch of Flush: a batch's announcements grouped by attribute set in flat
// arrays (a counting sort by group), not a vector per group, so that a burst of thousands of sets
// costs no allocation per set. Flush uses it only within the call, so the PeerOuts of a thread
// share one: it keeps a burst's buffers for the next batch of any peer (memory touched once, not
// faulted in again for every batch) without each peer keeping its own.
struct PeerOut::Scratch {
  std::vector<uint32_t> first_of;  // Collapse's table
  std::vector<Nlri> withdraw;
  std::vector<AttrRef> group_attrs;      // group g's set
  std::vector<uint32_t> group_start;     // where group g's prefixes begin in grouped
  std::vector<uint32_t> announce_group;  // the group of each announcement, in batch order
  std::vector<Nlri> announce;            // the announcements, in batch order
  std::vector<Nlri> grouped;             // the announcements, group by group
  // Each set's group. Equal sets are one group even when they are distinct entries: the export
  // rules make transient sets (AttributeStore::MakeTransient), one per shard for the halves of
  // one UPDATE.
  struct SetKey {
    const PathAttributes* attrs;
    size_t hash;  // AttrRef::hash()
    bool operator==(const SetKey& o) const {
      return attrs == o.attrs || (hash == o.hash && *attrs == *o.attrs);
    }
    template <typename H>
    friend H AbslHashValue(H h, const SetKey& k) {
      return H::combine(std::move(h), k.hash);
    }
  };
  absl::flat_hash_map<SetKey, uint32_t> group_index;
  // The set of the last announcement and its group: one UPDATE's prefixes come in a run with one
  // set, found without hashing. last_ref keeps that set alive when its group holds another entry.
  const PathAttributes* last_set = nullptr;
  AttrRef last_ref;
  uint32_t last_group = 0;

  // The group of an announcement with `attrs`, made for it if new; takes the reference.
  uint32_t GroupOf(AttrRef attrs) {
    if (attrs.get() == last_set) return last_group;
    last_set = attrs.get();
    auto [it, added] = group_index.try_emplace(SetKey{attrs.get(), attrs.hash()},
                                               static_cast<uint32_t>(group_attrs.size()));
    if (added) {
      group_attrs.push_back(std::move(attrs));  // the key's pointer stays valid
      group_start.push_back(0);
      last_ref.reset();
    } else {
      last_ref = std::move(attrs);
    }
    last_group = it->second;
    return last_group;
  }

  void Clear() {
    withdraw.clear();
    group_attrs.clear();
    group_start.clear();
    announce_group.clear();
    announce.clear();
    grouped.clear();
    group_index.clear();
    last_set = nullptr;
    last_ref.reset();
  }
  // What a batch larger than kKeepScratch entries grew is not kept: memory follows the table,
  // not the largest batch seen.
  void Trim() {
    auto trim = [](auto& v) {
      if (v.capacity() > kKeepScratch) std::decay_t<decltype(v)>().swap(v);
    };
    if (first_of.capacity() > 2 * kKeepOps) std::vector<uint32_t>().swap(first_of);
    trim(withdraw);
    trim(group_attrs);
    trim(group_start);
    trim(announce_group);
    trim(announce);
    trim(grouped);
    if (group_index.capacity() > kKeepScratch) group_index = {};
  }
};

thread_local std::unique_ptr<PeerOut::Scratch> PeerOut::spare_scratch_;

std::unique_ptr<PeerOut::Scratch> PeerOut::TakeScratch() {
  std::unique_ptr<Scratch> s = std::move(spare_scratch_);
  if (!s) s = std::make_unique<Scratch>();
  return s;
}

void PeerOut::ReturnScratch(std::unique_ptr<Scratch> scratch) {
  scratch->Clear();
  scratch->Trim();
  spare_scratch_ = std::move(scratch);
}

PeerOut::Encoded PeerOut::EncodeBatch(const Encoding& e, std::vector<Op>& ops,
                                      boost::asio::io_context& io) {
  Encoded out;
  std::unique_ptr<Scratch> scratch = TakeScratch();
  Collapse(ops, scratch->first_of);
  Group(e, ops, *scratch, out);
  ops.clear();
  if (!scratch->withdraw.empty() || !scratch->group_attrs.empty()) Pack(e, *scratch, io, out);
  ReturnScratch(std::move(scratch));
  return out;
}

void PeerOut::Group(const Encoding& e, std::vector<Op>& ops, Scratch& s, Encoded& out) {
  s.announce_group.reserve(ops.size());
  s.announce.reserve(ops.size());
  // The sets were made and counted on other threads (the shard stage): each op's are loaded a
  // few ops ahead and released as soon as they are read, while their lines are here.
  constexpr size_t kAhead = 8;
  auto prefetch = [&ops](size_t i) {
    if (i >= ops.size()) return;
    ops[i].to.Prefetch();
    ops[i].from.Prefetch();
  };
  for (size_t i = 0; i < kAhead; ++i) prefetch(i);
  for (size_t i = 0; i < ops.size(); ++i) {
    prefetch(i + kAhead);
    Op& op = ops[i];
    // Unchanged: nothing to send — unless re-announced (a refresh), and only what the peer has:
    // an add, a refresh and a delete in one batch leave nothing to withdraw.
    const bool unchanged = op.from == op.to;
    const bool had = static_cast<bool>(op.from);
    op.from.reset();
    if (unchanged && (!op.force || !op.to)) {
      op.to.reset();
      continue;
    }
    if (!op.to) {
      s.withdraw.push_back(Nlri{op.prefix, 0, e.family.safi});
      --out.advertised;
      continue;
    }
    if (!had) ++out.advertised;
    const uint32_t group = s.GroupOf(std::move(op.to));
    ++s.group_start[group];
    s.announce_group.push_back(group);
    s.announce.push_back(Nlri{op.prefix, 0, e.family.safi});
  }
}

void PeerOut::Pack(const Encoding& e, Scratch& s, boost::asio::io_context& io, Encoded& out) {
  // Counting sort: group_start holds each group's size, then where it begins; each group keeps
  // its prefixes in batch order.
  uint32_t at = 0;
  for (uint32_t& start : s.group_start) {
    const uint32_t size = start;
    start = at;
    at += size;
  }
  s.grouped.resize(s.announce.size());
  for (size_t i = 0; i < s.announce.size(); ++i) {
    s.grouped[s.group_start[s.announce_group[i]]++] = s.announce[i];
  }
  // group_start[g] is now where group g ends.
  std::vector<uint8_t> piece;
  int messages = 0;
  out.withdrawn += s.withdraw.size();
  std::span<const Nlri> withdraw = s.withdraw;
  // The sets were made on other threads (the shard stage): loading them a group or two ahead
  // keeps the encoder from waiting on each of their cache lines in turn.
  auto prefetch = [&s](size_t g, bool deep) {
    if (g < s.group_attrs.size()) PrefetchForEncoding(*s.group_attrs[g], deep);
  };
  prefetch(0, false);
  prefetch(1, false);
  prefetch(0, true);
  const EncodedGroupCache::Batch batch = EncodedGroupCache::Local().BeginBatch(e.encoder_class, io);
  for (size_t g = 0; g < s.group_attrs.size(); ++g) {
    prefetch(g + 2, false);
    prefetch(g + 1, true);
    AttrRef& attrs = s.group_attrs[g];
    const uint32_t begin = g == 0 ? 0 : s.group_start[g - 1];
    const std::span<const Nlri> nlri(s.grouped.data() + begin, s.group_start[g] - begin);
    absl::StatusOr<int> n = PackGroup(e, batch, attrs, nlri, withdraw, &piece, out);
    if (!n.ok()) {
      ++out.encode_errors;
      SLUICE_LOG(kWarning) << e.name << ": cannot encode " << nlri.size()
                           << " prefixes: " << n.status().ToString();
      out.advertised -= static_cast<int64_t>(nlri.size());
    } else {
      messages += *n;
      out.announced += nlri.size();
      withdraw = {};
    }
    attrs.reset();  // do not keep attribute sets alive between batches
    if (piece.size() >= kSendChunk) {
      out.pieces.emplace_back(std::exchange(piece, std::vector<uint8_t>()), messages);
      messages = 0;
    }
  }
  if (!withdraw.empty()) {
    absl::StatusOr<int> n = e.encoder.Pack(nullptr, {}, withdraw, &piece);
    if (n.ok()) messages += *n;
  }
  if (!piece.empty()) out.pieces.emplace_back(std::move(piece), messages);
}

absl::StatusOr<int> PeerOut::PackGroup(const Encoding& e, const EncodedGroupCache::Batch& batch,
                                       const AttrRef& attrs, std::span<const Nlri> announce,
                                       std::span<const Nlri> withdraw, std::vector<uint8_t>* out,
                                       Encoded& counts) {
  EncodedGroupCache& cache = *batch.cache;
  if (std::optional<int> n = cache.Find(batch, attrs, announce, withdraw, out)) {
    ++counts.groups_shared;
    return *n;
  }
  const size_t before = out->size();
  absl::StatusOr<int> n = e.encoder.Pack(attrs.get(), announce, withdraw, out);
  if (n.ok()) {
    cache.Store(batch, attrs, announce, withdraw,
                std::span<const uint8_t>(out->data() + before, out->size() - before), *n);
  }
  return n;
}

void PeerOut::Flush() {
  if (ops_.empty()) return;
  if (options_.encoder != nullptr) return HandOver();
  Encoded encoded = EncodeBatch(*encoding_, ops_, io_);
  ReturnBatch();
  Apply(std::move(encoded));
}

void PeerOut::HandOver() {
  if (in_flight_ >= kMaxInFlight) {
    // Waits for a batch to come back; the reader waits too once this one is big.
    if (!encoding_full_ && ops_.size() >= kHoldChanges) {
      encoding_full_ = true;
      ApplyBlocked();
    }
    return;
  }
  const size_t changes = ops_.size();
  ++in_flight_;
  in_flight_changes_ += changes;
  EncodeThread& encoder = *options_.encoder;
  encoder.Post([this, alive = std::weak_ptr<bool>(alive_), encoding = encoding_, loop = &io_,
                encode_loop = &encoder.io(), ops = std::exchange(ops_, std::vector<Op>()),
                changes]() mutable {
    Encoded encoded = EncodeBatch(*encoding, ops, *encode_loop);
    boost::asio::post(*loop, [this, alive, changes, encoded = std::move(encoded),
                              buffer = std::move(ops)]() mutable {
      if (alive.expired()) return;  // the PeerOut is gone (its session went down)
      BatchEncoded(changes, std::move(encoded), std::move(buffer));
    });
  });
}

void PeerOut::BatchEncoded(size_t changes, Encoded encoded, std::vector<Op> buffer) {
  --in_flight_;
  in_flight_changes_ -= changes;
  KeepBuffer(std::move(buffer));
  Apply(std::move(encoded));
  Flush();  // what waited for this batch
  if (encoding_full_ && in_flight_ < kMaxInFlight) {
    encoding_full_ = false;
    ApplyBlocked();
  }
  if (end_of_rib_waiting_ && in_flight_ == 0) {
    end_of_rib_waiting_ = false;
    SendEndOfRib();
  }
  RunWhenWritable();
}

void PeerOut::Apply(Encoded encoded) {
  counters_.advertised += encoded.advertised;
  counters_.announced += encoded.announced;
  counters_.withdrawn += encoded.withdrawn;
  counters_.encode_errors += encoded.encode_errors;
  counters_.groups_shared += encoded.groups_shared;
  for (auto& [messages, count] : encoded.pieces) Send(std::move(messages), count);
}

void PeerOut::Send(std::vector<uint8_t> messages, int count) {
  if (messages.empty()) return;
  counters_.updates += count;
  counters_.octets += messages.size();
  sender_->SendMessages(std::move(messages));
  CheckBacklog();
}

void PeerOut::CheckBacklog() {
  if (blocked_ || sender_->send_backlog() <= high_water()) return;
  blocked_ = true;
  ApplyBlocked();
}

void PeerOut::ApplyBlocked() {
  if (reader_ != nullptr) reader_->SetBlocked(blocked_ || encoding_full_ || gated_);
}

void PeerOut::OnWritable() {
  if (!blocked_ || sender_->send_backlog() > high_water()) return;
  blocked_ = false;
  ApplyBlocked();
  RunWhenWritable();
}

void PeerOut::RunWhenWritable() {
  if (blocked_ || encoding_full_ || when_writable_.empty()) return;
  std::vector<std::function<void()>> callbacks;
  callbacks.swap(when_writable_);
  for (auto& cb : callbacks) cb();
}

void PeerOut::EndOfRib() {
  if (options_.end_of_rib_gate != nullptr && !options_.end_of_rib_gate->open()) {
    options_.end_of_rib_gate->WhenOpen([alive = std::weak_ptr<bool>(alive_), this] {
      if (!alive.expired()) SendEndOfRib();
    });
    return;
  }
  SendEndOfRib();
}

void PeerOut::SendEndOfRib() {
  Flush();
  if (in_flight_ > 0) {  // after the batches on the encoding thread
    end_of_rib_waiting_ = true;
    return;
  }
  std::vector<uint8_t> out;
  encoding_->encoder.EndOfRib(encoding_->family, &out);
  counters_.end_of_rib_sent = true;
  Send(std::move(out), 1);
}

void PeerOut::Refresh() { refresh_.Start(); }

}  // namespace sluice::bgp
