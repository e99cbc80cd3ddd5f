#include "bgp/rpki/origin_validator.h"

namespace sluice::bgp::rpki {

RpkiState OriginValidator::Validate(const net::Prefix& prefix, const PathAttributes* attrs,
                                    uint32_t local_as) const {
  if (size() == 0) return RpkiState::kNotFound;  // no VRP covers anything
  std::optional<uint32_t> origin = local_as;
  if (attrs != nullptr && attrs->as_path) origin = RouteOriginAs(*attrs->as_path, local_as);
  return Validate(prefix, origin);
}

RpkiState OriginValidator::Validate(const net::Prefix& prefix,
                                    std::optional<uint32_t> origin) const {
  absl::ReaderMutexLock lock(&mu_);
  return table_.Validate(prefix, origin);
}

bool OriginValidator::Contains(const Vrp& vrp) const {
  absl::ReaderMutexLock lock(&mu_);
  return table_.Contains(vrp);
}

std::vector<Vrp> OriginValidator::All() const {
  absl::MutexLock lock(&mu_);
  return table_.All();
}

void OriginValidator::Apply(const VrpDelta& delta) {
  absl::MutexLock lock(&mu_);
  for (const Vrp& v : delta.removed) table_.Remove(v);
  for (const Vrp& v : delta.added) table_.Add(v);
  size_.store(table_.size(), std::memory_order_relaxed);
}

size_t OriginValidator::size_v4() const {
  absl::MutexLock lock(&mu_);
  return table_.size_v4();
}

size_t OriginValidator::size_v6() const {
  absl::MutexLock lock(&mu_);
  return table_.size_v6();
}

}  // namespace sluice::bgp::rpki
