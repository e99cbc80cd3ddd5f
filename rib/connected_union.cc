#include "rib/connected_union.h"

#include <set>

namespace sluice::rib {

void ConnectedUnion::SetShared(const net::Prefix& prefix,
                               const std::optional<std::string>& ifname) {
  if (ifname) {
    shared_[prefix] = *ifname;
  } else {
    shared_.erase(prefix);
  }
  Update(prefix);
}

void ConnectedUnion::SetFea(const std::string& fea,
                            const std::vector<std::pair<net::Prefix, std::string>>& subnets) {
  std::map<net::Prefix, std::string>& mine = feas_[fea];
  std::set<net::Prefix> touched;
  for (const auto& [prefix, ifname] : mine) touched.insert(prefix);
  mine = {subnets.begin(), subnets.end()};
  for (const auto& [prefix, ifname] : mine) touched.insert(prefix);
  for (const net::Prefix& prefix : touched) Update(prefix);
}

void ConnectedUnion::RemoveFea(const std::string& fea) {
  SetFea(fea, {});
  feas_.erase(fea);
}

void ConnectedUnion::Update(const net::Prefix& prefix) {
  std::optional<std::string> want;
  if (auto it = shared_.find(prefix); it != shared_.end()) {
    want = it->second;
  } else {
    for (const auto& [fea, subnets] : feas_) {
      if (auto at = subnets.find(prefix); at != subnets.end()) {
        want = at->second;
        break;
      }
    }
  }
  auto applied = applied_.find(prefix);
  if (applied == applied_.end() ? !want : want && applied->second == *want) return;
  if (want) {
    applied_[prefix] = *want;
  } else {
    applied_.erase(applied);
  }
  apply_(prefix, want);
}

}  // namespace sluice::rib
