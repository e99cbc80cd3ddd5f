#include "bgp/stages/export_rules.h"

#include <algorithm>

namespace sluice::bgp {

namespace {

constexpr uint32_t kWroteNexthop = 1u << static_cast<int>(policy::VarId::kNexthop);
constexpr uint32_t kWroteMed = 1u << static_cast<int>(policy::VarId::kMed);

bool Has(const std::vector<uint32_t>& communities, uint32_t c) {
  return std::find(communities.begin(), communities.end(), c) != communities.end();
}

void SetNexthop(PathAttributes& a, net::Family family, const net::IPAddress& nh) {
  if (family == net::Family::kIPv4 && nh.is_v4()) {
    a.next_hop = nh.v4();
    if (a.mp_next_hop && a.mp_next_hop->global.is_v4()) a.mp_next_hop.reset();
  } else if (nh.family() == family) {
    a.mp_next_hop = MpNextHop{nh, std::nullopt};
  }
}

// Step 6 of export_rules.h.
PathAttributes Transform(const PathAttributes& in, const BgpRoute& route,
                         const ExportConfig& config, uint32_t written) {
  PathAttributes a = in;
  const PeerSource& src = *route.source;
  const net::Family family = route.net.family();
  const std::optional<net::IPAddress>& self =
      family == net::Family::kIPv4 ? config.self_v4 : config.self_v6;
  const bool keep_nexthop = (written & kWroteNexthop) != 0;
  if (config.ibgp) {
    if (src.ibgp && !src.local) {  // reflecting (split horizon already checked)
      if (!a.originator_id) a.originator_id = src.bgp_id;
      a.cluster_list.insert(a.cluster_list.begin(), config.cluster_id);
    }
    if (!a.local_pref) a.local_pref = config.default_local_pref;
    // No nexthop, or the unspecified address (a route originated "from this router"): ours.
    const std::optional<net::IPAddress> nh = in.NextHopFor(family);
    if (!keep_nexthop && self && (config.next_hop_self || !nh || nh->is_unspecified())) {
      SetNexthop(a, family, *self);
    }
  } else {
    a.as_path =
        a.as_path ? a.as_path->Prepended(config.local_as) : AsPath::Sequence({config.local_as});
    a.local_pref.reset();
    a.originator_id.reset();
    a.cluster_list.clear();
    if (!src.ibgp && !src.local && !(written & kWroteMed)) a.med.reset();
    if (!keep_nexthop && self) {
      const std::optional<net::IPAddress> nh = in.NextHopFor(family);
      const bool third_party = nh && config.shared_subnet && config.shared_subnet->Contains(*nh) &&
                               config.shared_subnet->Contains(config.peer_address);
      if (!third_party) SetNexthop(a, family, *self);
    }
  }
  return a;
}

}  // namespace

ExportMemo::Slot& ExportMemo::Find(const AttrRef& in, const PeerSource* source, uint32_t written) {
  const size_t h = in.hash() ^ (reinterpret_cast<uintptr_t>(source) >> 4) ^ (written * 0x9e37u);
  return slots_[h & (slots_.size() - 1)];
}

bool SameTransform(const ExportConfig& a, const ExportConfig& b) {
  return a.ibgp == b.ibgp && a.local_as == b.local_as && a.cluster_id == b.cluster_id &&
         a.default_local_pref == b.default_local_pref && a.next_hop_self == b.next_hop_self &&
         a.self_v4 == b.self_v4 && a.self_v6 == b.self_v6 && a.shared_subnet == b.shared_subnet &&
         (!a.shared_subnet || a.peer_address == b.peer_address);
}

std::shared_ptr<ExportMemo> ExportMemoPool::For(const ExportConfig& config) {
  std::erase_if(memos_, [](const Entry& e) { return e.memo.expired(); });
  for (const Entry& e : memos_) {
    if (SameTransform(e.config, config)) return e.memo.lock();
  }
  auto memo = std::make_shared<ExportMemo>();
  memos_.push_back(Entry{config, memo});
  memos_.back().config.filter = nullptr;  // not a transform's; not kept alive by it
  return memo;
}

std::optional<BgpRoute> ExportRoute(const BgpRoute& route, const ExportConfig& config,
                                    AttributeStore* store, BgpVarRW& rw, ExportMemo* memo) {
  if (!route.attrs || route.source == nullptr) return std::nullopt;
  const PeerSource& src = *route.source;
  if (!src.local && src.peer_id == config.peer_id) return std::nullopt;
  const PathAttributes& a = *route.attrs;
  if (!a.communities.empty()) {
    if (Has(a.communities, kCommunityNoAdvertise)) return std::nullopt;
    if (!config.ibgp && (Has(a.communities, kCommunityNoExport) ||
                         Has(a.communities, kCommunityNoExportSubconfed))) {
      return std::nullopt;
    }
  }
  if (config.ibgp && src.ibgp && !src.local && !src.rr_client && !config.rr_client) {
    return std::nullopt;
  }
  // The set step 6 starts from: the route's, or the one the policy wrote (held in `written_set`).
  // A pointer, not a copy: each reference taken or dropped is an atomic operation.
  const AttrRef* attrs = &route.attrs;
  AttrRef written_set;
  uint32_t written = 0;
  if (config.filter == nullptr) {
    if (!config.ibgp && config.ebgp_requires_policy) return std::nullopt;
  } else {
    PolicyContext context;
    context.local_as = config.local_as;
    context.self = route.net.is_v4() ? config.self_v4 : config.self_v6;
    context.peer = config.peer_address;
    context.to_neighbor = config.peer_address;
    rw.Reset(route, context);
    if (!config.filter->Run(rw).accepted()) return std::nullopt;
    if (rw.modified()) {
      written_set = store->Intern(rw.attributes());
      attrs = &written_set;
      written = rw.written();
    }
  }
  ExportMemo::Slot* slot = memo != nullptr ? &memo->Find(*attrs, route.source, written) : nullptr;
  // The same entry, not an equal set: comparing two entries' contents would read a set gone
  // cold since the slot was filled, and a miss costs only the transform.
  if (slot != nullptr && slot->in.get() == attrs->get() && slot->source == route.source &&
      slot->written == written) {
    ++memo->hits;
    return route.WithAttributes(slot->out);
  }
  // Not interned: PeerOut stores no routes, so the set lives only until it is encoded, and a
  // transient set is made and freed without the store's locks (the shards export at once).
  PathAttributes transformed = Transform(**attrs, route, config, written);
  BgpRoute out = route.WithAttributes(
      transformed == **attrs ? *attrs : store->MakeTransient(std::move(transformed)));
  if (slot != nullptr) {
    ++memo->misses;
    *slot = ExportMemo::Slot{*attrs, route.source, written, out.attrs};
  }
  return out;
}

}  // namespace sluice::bgp
