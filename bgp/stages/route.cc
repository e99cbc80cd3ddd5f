#include "bgp/stages/route.h"

#include "absl/strings/str_cat.h"

namespace sluice::bgp {

const PeerSource* PeerSourceRegistry::Intern(const PeerSource& source) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& s : sources_) {
    if (*s == source) return s.get();
  }
  sources_.push_back(std::make_unique<PeerSource>(source));
  return sources_.back().get();
}

const PeerSource* PeerSourceRegistry::Local() {
  PeerSource local;
  local.name = "local";
  local.local = true;
  return Intern(local);
}

size_t PeerSourceRegistry::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sources_.size();
}

BgpRoute BgpRoute::WithAttributes(AttrRef attrs_out) const {
  BgpRoute out;
  out.net = net;
  out.attrs = std::move(attrs_out);
  out.source = source;
  out.path_id = path_id;
  out.igp_metric = igp_metric;
  out.flags = flags;
  out.rpki = rpki;
  return out;
}

std::string BgpRoute::ToString() const {
  std::string s = net.ToString();
  absl::StrAppend(&s, " from ", source != nullptr ? source->name : std::string("?"));
  if (path_id != 0) absl::StrAppend(&s, " path-id ", path_id);
  absl::StrAppend(&s, " [", attrs ? attrs->ToString() : std::string("no attributes"), "]");
  if (resolved()) absl::StrAppend(&s, " igp ", igp_metric);
  if (flags & kUnresolvable) s += " unresolvable";
  if (rpki) absl::StrAppend(&s, " rpki ", rpki::RpkiStateName(*rpki));
  return s;
}

}  // namespace sluice::bgp
