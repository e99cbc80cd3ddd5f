#include "bgp/stages/decision_process.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"

namespace sluice::bgp {

std::string_view DecisionStepName(DecisionStep step) {
  switch (step) {
    case DecisionStep::kResolvable:
      return "resolvable";
    case DecisionStep::kLocal:
      return "local";
    case DecisionStep::kLocalPref:
      return "local-pref";
    case DecisionStep::kAsPath:
      return "as-path";
    case DecisionStep::kOrigin:
      return "origin";
    case DecisionStep::kMed:
      return "med";
    case DecisionStep::kEbgp:
      return "ebgp";
    case DecisionStep::kIgpMetric:
      return "igp-metric";
    case DecisionStep::kBgpId:
      return "bgp-id";
    case DecisionStep::kClusterList:
      return "cluster-list";
    case DecisionStep::kPeerAddress:
      return "peer-address";
    case DecisionStep::kPeerId:
      return "peer-id";
  }
  return "?";
}

namespace {

using Indices = absl::InlinedVector<int, 8>;

template <typename Pred>
void EraseIf(Indices& v, Pred pred) {
  v.erase(std::remove_if(v.begin(), v.end(), pred), v.end());
}

// Keeps the candidates with the lowest key(route).
template <typename Key>
void KeepLowest(std::span<const BgpRoute* const> c, Indices& keep, Key key) {
  if (keep.size() < 2) return;
  auto best = key(*c[keep[0]]);
  for (size_t i = 1; i < keep.size(); ++i) best = std::min(best, key(*c[keep[i]]));
  EraseIf(keep, [&](int i) { return key(*c[i]) != best; });
}

uint32_t Med(const BgpRoute& r) { return r.attrs->med.value_or(0); }
uint32_t NeighborAs(const BgpRoute& r) {
  return r.attrs->as_path ? r.attrs->as_path->FirstAs() : 0;
}

}  // namespace

Selection SelectBest(std::span<const BgpRoute* const> c, const DecisionOptions& options) {
  Selection sel;
  Indices keep;
  for (size_t i = 0; i < c.size(); ++i) {
    if (c[i] != nullptr && c[i]->attrs && c[i]->source != nullptr && c[i]->resolved()) {
      keep.push_back(static_cast<int>(i));
    }
  }
  if (keep.empty()) return sel;
  auto step = [&](DecisionStep s, auto key) {
    if (keep.size() < 2) return;
    KeepLowest(c, keep, key);
    if (keep.size() == 1) sel.decided_by = s;
  };
  step(DecisionStep::kLocal, [](const BgpRoute& r) { return r.source->local ? 0 : 1; });
  step(DecisionStep::kLocalPref, [&](const BgpRoute& r) {
    // Highest wins: negate through the complement.
    return ~r.attrs->local_pref.value_or(options.default_local_pref);
  });
  step(DecisionStep::kAsPath, [](const BgpRoute& r) { return r.attrs->AsPathLength(); });
  step(DecisionStep::kOrigin, [](const BgpRoute& r) {
    return static_cast<int>(r.attrs->origin.value_or(Origin::kIncomplete));
  });
  if (keep.size() > 1) {
    if (options.always_compare_med) {
      KeepLowest(c, keep, [](const BgpRoute& r) { return Med(r); });
    } else {
      // Lowest MED within each neighbouring AS.
      absl::InlinedVector<std::pair<uint32_t, uint32_t>, 8> lowest;  // AS, MED
      for (int i : keep) {
        const uint32_t as = NeighborAs(*c[i]), med = Med(*c[i]);
        auto it = std::find_if(lowest.begin(), lowest.end(),
                               [&](const auto& e) { return e.first == as; });
        if (it == lowest.end()) {
          lowest.emplace_back(as, med);
        } else {
          it->second = std::min(it->second, med);
        }
      }
      EraseIf(keep, [&](int i) {
        const uint32_t as = NeighborAs(*c[i]);
        auto it = std::find_if(lowest.begin(), lowest.end(),
                               [&](const auto& e) { return e.first == as; });
        return Med(*c[i]) != it->second;
      });
    }
    if (keep.size() == 1) sel.decided_by = DecisionStep::kMed;
  }
  step(DecisionStep::kEbgp, [](const BgpRoute& r) { return r.source->ibgp ? 1 : 0; });
  step(DecisionStep::kIgpMetric, [](const BgpRoute& r) { return r.igp_metric; });
  step(DecisionStep::kBgpId, [](const BgpRoute& r) {
    return r.attrs->originator_id ? *r.attrs->originator_id : r.source->bgp_id;
  });
  step(DecisionStep::kClusterList, [](const BgpRoute& r) { return r.attrs->cluster_list.size(); });
  step(DecisionStep::kPeerAddress, [](const BgpRoute& r) { return r.source->address; });
  step(DecisionStep::kPeerId,
       [](const BgpRoute& r) { return (uint64_t{r.source->peer_id} << 32) | r.path_id; });
  sel.best = keep.front();
  return sel;
}

uint64_t RankBeforeMed(const BgpRoute& r, const DecisionOptions& options) {
  // Bit 55 ineligible, 54 learnt (not local), 53..22 the complement of LOCAL_PREF, 21..2 the
  // AS_PATH length (a path in a 65,535-octet message is far below 2^20 ASes; clamping keeps the
  // order in any case), 1..0 ORIGIN.
  if (!r.attrs || r.source == nullptr || !r.resolved()) return uint64_t{1} << 55;
  const uint64_t learnt = r.source->local ? 0 : 1;
  const uint64_t local_pref = r.attrs->local_pref.value_or(options.default_local_pref);
  const uint64_t path =
      std::min<uint64_t>(static_cast<uint64_t>(r.attrs->AsPathLength()), (uint64_t{1} << 20) - 1);
  const uint64_t origin = static_cast<uint64_t>(r.attrs->origin.value_or(Origin::kIncomplete));
  return learnt << 54 | (~local_pref & 0xffffffffu) << 22 | path << 2 | origin;
}

}  // namespace sluice::bgp
