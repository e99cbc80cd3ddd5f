#include "bgp/replay/feed_encoder.h"

#include <algorithm>

namespace sluice::bgp::replay {

FeedEncoder::FeedEncoder(const SessionParams& params, const RewriteOptions& rewrite,
                         AttributeStore* store)
    : params_(params), rewrite_(rewrite), store_(store), encoder_(params, /*readvertise=*/true) {}

uint64_t PrefixHash(const net::Prefix& prefix) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a, 64 bits
  auto mix = [&h](uint64_t v, int octets) {
    for (int i = 0; i < octets; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  if (prefix.is_v4()) {
    mix(prefix.v4().value(), 4);
  } else {
    mix(prefix.v6().hi(), 8);
    mix(prefix.v6().lo(), 8);
  }
  mix(uint64_t(prefix.length()), 1);
  return h;
}

int FeedEncoder::ExtraPrepends(const Nlri& n) const {
  if (rewrite_.path_variant < 0) return 0;
  return int((PrefixHash(n.prefix) + uint64_t(rewrite_.path_variant)) % kPathVariants);
}

const PathAttributes* FeedEncoder::Rewrite(const AttrRef& original, int extra) {
  if (!original) return nullptr;
  auto it = rewritten_.find(std::make_pair(original.get(), extra));
  if (it != rewritten_.end()) return it->second.get();
  PathAttributes a = *original;
  if (rewrite_.external) {
    a.local_pref.reset();
    a.originator_id.reset();
    a.cluster_list.clear();
    if (a.as_path) *a.as_path = a.as_path->WithoutConfedSegments();
  }
  if (rewrite_.prepend_own_as) {
    a.as_path = a.as_path
                    ? a.as_path->Prepended(rewrite_.local_as, 1 + extra)
                    : AsPath::Sequence({rewrite_.local_as}).Prepended(rewrite_.local_as, extra);
  }
  // IPv4 nexthop: the rewrite, else NEXT_HOP, else an IPv4 MP nexthop.
  if (rewrite_.next_hop4) {
    a.next_hop = rewrite_.next_hop4;
  } else if (!a.next_hop && a.mp_next_hop && a.mp_next_hop->global.is_v4()) {
    a.next_hop = a.mp_next_hop->global.v4();
  }
  if (a.mp_next_hop && a.mp_next_hop->global.is_v4()) a.mp_next_hop.reset();  // IPv4 goes classic
  if (rewrite_.next_hop6)
    a.mp_next_hop = MpNextHop{net::IPAddress(*rewrite_.next_hop6), std::nullopt};
  AttrRef ref = store_->Intern(std::move(a));
  const PathAttributes* p = ref.get();
  rewritten_.emplace(std::make_pair(original.get(), extra), std::move(ref));
  return p;
}

bool FeedEncoder::Sendable(const Nlri& n, const PathAttributes* attrs) const {
  const AfiSafi f = n.family();
  if (!params_.families.Has(f)) return false;
  if (f.safi != Safi::kUnicast) return false;  // sluice-replay sends unicast only
  if (attrs == nullptr) return true;           // a withdrawal
  return f.afi == Afi::kIPv4 ? attrs->next_hop.has_value()
                             : attrs->mp_next_hop && attrs->mp_next_hop->global.is_v6();
}

void FeedEncoder::Append(const PathAttributes* attrs, const std::vector<Nlri>& announce,
                         const std::vector<Nlri>& withdraw, uint64_t time_us, EncodedStream* out) {
  if (announce.empty() && withdraw.empty()) return;
  auto n = encoder_.Pack(attrs, announce, withdraw, &out->bytes);
  if (!n.ok()) {
    out->skipped += announce.size() + withdraw.size();
    return;
  }
  out->messages += uint64_t(*n);
  EncodedStream::Mark m;
  m.end = out->bytes.size();
  m.prefixes = out->prefixes() + announce.size();
  m.withdrawals = out->withdrawals() + withdraw.size();
  m.time_us = time_us;
  out->marks.push_back(m);
}

void FeedEncoder::AppendVariants(const AttrRef& original, const std::vector<Nlri>& announce,
                                 const std::vector<Nlri>& withdraw, uint64_t time_us,
                                 EncodedStream* out) {
  if (rewrite_.path_variant < 0 || announce.empty()) {
    return Append(Rewrite(original), announce, withdraw, time_us, out);
  }
  std::vector<Nlri> parts[kPathVariants];
  for (const Nlri& n : announce) parts[ExtraPrepends(n)].push_back(n);
  const std::vector<Nlri> none;
  bool first = true;
  for (int extra = 0; extra < kPathVariants; ++extra) {
    if (parts[extra].empty()) continue;
    Append(Rewrite(original, extra), parts[extra], first ? withdraw : none, time_us, out);
    first = false;
  }
}

void FeedEncoder::EncodeMessages(const PeerFeed& feed, EncodedStream* out) {
  for (const FeedUpdate& u : feed.updates) {
    const PathAttributes* attrs = Rewrite(u.attributes);
    announce_.clear();
    withdraw_.clear();
    for (const Nlri& n : u.withdrawn) {
      if (Sendable(n, nullptr)) {
        withdraw_.push_back(n);
      } else {
        ++out->skipped;
      }
    }
    for (const Nlri& n : u.announced) {
      if (Sendable(n, attrs)) {
        announce_.push_back(n);
      } else {
        ++out->skipped;
      }
    }
    for (auto* v : {&announce_, &withdraw_}) {
      for (Nlri& n : *v) {
        if (!params_.add_path_send.Has(n.family())) n.path_id = 0;
      }
    }
    AppendVariants(u.attributes, announce_, withdraw_, u.time_us, out);
  }
}

void FeedEncoder::EncodeTable(const std::vector<Route>& table, EncodedStream* out) {
  // Groups in order of first appearance; without ADD-PATH only the first route of a prefix.
  absl::flat_hash_map<const PathAttributes*, size_t> group_of;
  std::vector<std::pair<const PathAttributes*, std::vector<Nlri>>> groups;
  const Route* previous = nullptr;
  for (const Route& r : table) {
    Nlri n = r.nlri;
    if (!params_.add_path_send.Has(n.family())) {
      n.path_id = 0;
      if (previous && previous->nlri.prefix == n.prefix && previous->nlri.safi == n.safi) continue;
    }
    previous = &r;
    const PathAttributes* attrs = Rewrite(r.attributes, ExtraPrepends(n));
    if (!Sendable(n, attrs)) {
      ++out->skipped;
      continue;
    }
    auto [it, inserted] = group_of.try_emplace(attrs, groups.size());
    if (inserted) groups.emplace_back(attrs, std::vector<Nlri>());
    groups[it->second].second.push_back(n);
  }
  const std::vector<Nlri> none;
  for (const auto& [attrs, nlri] : groups) Append(attrs, nlri, none, 0, out);
}

void FeedEncoder::EncodeWithdrawAll(const std::vector<Route>& table, EncodedStream* out) {
  withdraw_.clear();
  const Route* previous = nullptr;
  for (const Route& r : table) {
    Nlri n = r.nlri;
    if (!params_.add_path_send.Has(n.family())) {
      n.path_id = 0;
      if (previous && previous->nlri.prefix == n.prefix && previous->nlri.safi == n.safi) continue;
    }
    previous = &r;
    if (Sendable(n, nullptr)) withdraw_.push_back(n);
  }
  // Marks every 1,000 withdrawals, for progress.
  const std::vector<Nlri> none;
  for (size_t i = 0; i < withdraw_.size(); i += 1000) {
    std::vector<Nlri> part(withdraw_.begin() + i,
                           withdraw_.begin() + std::min(withdraw_.size(), i + 1000));
    Append(nullptr, none, part, 0, out);
  }
}

void FeedEncoder::EncodeEndOfRib(EncodedStream* out) {
  for (int i = 0; i < AfiSafi::kCount; ++i) {
    const AfiSafi f = AfiSafi::FromIndex(i);
    if (!params_.families.Has(f) || f.safi != Safi::kUnicast) continue;
    encoder_.EndOfRib(f, &out->bytes);
    ++out->messages;
  }
  EncodedStream::Mark m;
  m.end = out->bytes.size();
  m.prefixes = out->prefixes();
  m.withdrawals = out->withdrawals();
  m.time_us = out->marks.empty() ? 0 : out->marks.back().time_us;
  out->marks.push_back(m);
}

}  // namespace sluice::bgp::replay
