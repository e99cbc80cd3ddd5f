#include "bgp/rpki/route_origin.h"

#include <algorithm>

namespace sluice::bgp::rpki {

const char* RpkiStateName(RpkiState state) {
  switch (state) {
    case RpkiState::kValid:
      return "valid";
    case RpkiState::kInvalid:
      return "invalid";
    case RpkiState::kNotFound:
      break;
  }
  return "not-found";
}

std::optional<uint32_t> RouteOriginAs(const AsPath& path, uint32_t local_as) {
  std::optional<uint32_t> origin = local_as;  // an empty path: originated by this speaker
  for (AsPath::Segment s : path.segments()) {
    switch (s.type) {
      case SegmentType::kSequence:
        origin = s.asns.empty() ? std::optional<uint32_t>(local_as) : s.asns.back();
        break;
      case SegmentType::kSet:
        origin = std::nullopt;
        break;
      default:  // AS_CONFED_SEQUENCE, AS_CONFED_SET: inside our confederation
        origin = local_as;
        break;
    }
  }
  return origin;
}

bool VrpTable::Add(const Vrp& vrp) {
  if (vrp.max_length < vrp.prefix.length() || vrp.max_length > vrp.prefix.max_length()) {
    return false;
  }
  const Authorisation a{vrp.max_length, vrp.asn};
  std::vector<Authorisation>* list = vrps_.find_value(vrp.prefix);
  if (list == nullptr) {
    vrps_.insert(vrp.prefix, {a});
  } else if (std::find(list->begin(), list->end(), a) != list->end()) {
    return false;
  } else {
    list->push_back(a);
  }
  ++(vrp.prefix.is_v4() ? size_v4_ : size_v6_);
  return true;
}

bool VrpTable::Remove(const Vrp& vrp) {
  std::vector<Authorisation>* list = vrps_.find_value(vrp.prefix);
  if (list == nullptr) return false;
  auto it = std::find(list->begin(), list->end(), Authorisation{vrp.max_length, vrp.asn});
  if (it == list->end()) return false;
  list->erase(it);
  if (list->empty()) vrps_.erase(vrp.prefix);
  --(vrp.prefix.is_v4() ? size_v4_ : size_v6_);
  return true;
}

bool VrpTable::Contains(const Vrp& vrp) const {
  const std::vector<Authorisation>* list = vrps_.find_value(vrp.prefix);
  return list != nullptr && std::find(list->begin(), list->end(),
                                      Authorisation{vrp.max_length, vrp.asn}) != list->end();
}

void VrpTable::Clear() {
  vrps_.clear();
  size_v4_ = size_v6_ = 0;
}

std::vector<Vrp> VrpTable::All() const {
  std::vector<Vrp> out;
  out.reserve(size());
  for (auto it = vrps_.begin(); it != vrps_.end(); ++it) {
    for (const Authorisation& a : it.value()) out.push_back(Vrp{it.key(), a.max_length, a.asn});
  }
  return out;
}

RpkiState VrpTable::Validate(const net::Prefix& prefix, std::optional<uint32_t> origin) const {
  bool covered = false;
  bool valid = false;
  vrps_.VisitCovering(prefix, [&](const std::vector<Authorisation>& list) {
    covered = true;
    for (const Authorisation& a : list) {
      if (origin.has_value() && a.asn != 0 && a.asn == *origin && prefix.length() <= a.max_length) {
        valid = true;
        return false;
      }
    }
    return true;
  });
  if (valid) return RpkiState::kValid;
  return covered ? RpkiState::kInvalid : RpkiState::kNotFound;
}

}  // namespace sluice::bgp::rpki
