#include "bgp/stages/origin_validation.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace sluice::bgp {
namespace {

constexpr size_t kPrefixesPerSlice = 1000;

BgpRoute With(const BgpRoute& route, rpki::RpkiState state) {
  BgpRoute r = route;
  r.rpki = state;
  return r;
}

}  // namespace

OriginValidation::OriginValidation(std::string name, boost::asio::io_context& io,
                                   const PrefixSource* branch,
                                   const rpki::OriginValidator* validator, uint32_t local_as)
    : BgpLinearStage(name),
      branch_(branch),
      validator_(validator),
      local_as_(local_as),
      walk_(io, name + " re-validation", [this] { return Slice(); }) {}

std::string OriginValidation::Status() const {
  std::string s =
      absl::StrCat("revalidated=", counters_.revalidated, " changed=", counters_.changed);
  if (!pending_.empty()) absl::StrAppend(&s, " pending=", pending_.size());
  return s;
}

rpki::RpkiState OriginValidation::Compute(const BgpRoute& route) const {
  return validator_->Validate(route.net, route.attrs ? &*route.attrs : nullptr, local_as_);
}

rpki::RpkiState OriginValidation::Sent(const BgpRoute& route) const {
  auto it = pending_.find(route.net);
  return it != pending_.end() ? it->second : Compute(route);
}

void OriginValidation::add_route(const BgpRoute& route, BgpStage*) {
  const rpki::RpkiState state = Compute(route);
  if (auto it = pending_.find(route.net); it != pending_.end()) it->second = state;
  if (downstream_ != nullptr) downstream_->add_route(With(route, state), this);
}

void OriginValidation::delete_route(const BgpRoute& route, BgpStage*) {
  const rpki::RpkiState state = Sent(route);
  pending_.erase(route.net);
  if (downstream_ != nullptr) downstream_->delete_route(With(route, state), this);
}

void OriginValidation::replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                                     BgpStage*) {
  const rpki::RpkiState old_state = Sent(old_route);
  const rpki::RpkiState new_state = Compute(new_route);
  if (auto it = pending_.find(new_route.net); it != pending_.end()) it->second = new_state;
  if (downstream_ != nullptr) {
    downstream_->replace_route(With(old_route, old_state), With(new_route, new_state), this);
  }
}

std::optional<BgpRoute> OriginValidation::lookup_route(const net::Prefix& prefix) const {
  if (upstream_ == nullptr) return std::nullopt;
  std::optional<BgpRoute> r = upstream_->lookup_route(prefix);
  if (r) r->rpki = Sent(*r);
  return r;
}

size_t OriginValidation::Prepare(const std::vector<net::Prefix>& changed) {
  const size_t before = pending_.size();
  held_ = true;
  if (!branch_->NextPrefix(std::nullopt)) return 0;  // no routes
  std::vector<net::Prefix> prefixes = changed;
  std::sort(prefixes.begin(), prefixes.end());
  prefixes.erase(std::unique(prefixes.begin(), prefixes.end()), prefixes.end());
  for (const net::Prefix& p : prefixes) NoteCovered(p);
  return pending_.size() - before;
}

void OriginValidation::NoteCovered(const net::Prefix& vrp_prefix) {
  if (upstream_ == nullptr) return;
  const auto note = [this](const net::Prefix& p) {
    if (pending_.contains(p)) return;  // noted already: that is the state downstream has
    if (std::optional<BgpRoute> r = upstream_->lookup_route(p)) pending_.emplace(p, Compute(*r));
  };
  // Prefixes inside vrp_prefix follow it in net::Prefix order, without a gap.
  note(vrp_prefix);
  std::optional<net::Prefix> p = vrp_prefix;
  while ((p = branch_->NextPrefix(p)) && vrp_prefix.Contains(*p)) note(*p);
}

void OriginValidation::Revalidate() {
  held_ = false;
  if (!pending_.empty()) walk_.Start();
}

bool OriginValidation::Slice() {
  if (held_) return false;  // Revalidate starts it again
  for (size_t n = 0; n < kPrefixesPerSlice && !pending_.empty(); ++n) {
    const auto [prefix, sent] = *pending_.begin();
    pending_.erase(pending_.begin());
    ++counters_.revalidated;
    std::optional<BgpRoute> r =
        upstream_ != nullptr ? upstream_->lookup_route(prefix) : std::nullopt;
    if (!r) continue;
    const rpki::RpkiState now = Compute(*r);
    if (now == sent || downstream_ == nullptr) continue;
    ++counters_.changed;
    downstream_->replace_route(With(*r, sent), With(*r, now), this);
  }
  if (downstream_ != nullptr) downstream_->push(this);
  return !pending_.empty();
}

}  // namespace sluice::bgp
