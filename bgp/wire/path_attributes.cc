#include "bgp/wire/path_attributes.h"

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::bgp {

std::string_view OriginName(Origin origin) {
  switch (origin) {
    case Origin::kIgp:
      return "IGP";
    case Origin::kEgp:
      return "EGP";
    case Origin::kIncomplete:
      return "INCOMPLETE";
  }
  return "INCOMPLETE";
}

std::string LargeCommunity::ToString() const {
  return absl::StrCat(global_admin, ":", local1, ":", local2);
}

std::string AfiSafi::ToString() const {
  return absl::StrCat(afi == Afi::kIPv4 ? "ipv4" : "ipv6", "-",
                      safi == Safi::kUnicast ? "unicast" : "multicast");
}

std::string CommunityToString(uint32_t c) {
  switch (c) {
    case kCommunityNoExport:
      return "no-export";
    case kCommunityNoAdvertise:
      return "no-advertise";
    case kCommunityNoExportSubconfed:
      return "local-AS";
    default:
      return absl::StrCat(c >> 16, ":", c & 0xffff);
  }
}

bool RareAttributes::empty() const {
  return ext_communities.empty() && large_communities.empty() && unknown.empty();
}

void RareAttributes::Clear() {
  ext_communities.clear();
  large_communities.clear();
  unknown.clear();
}

RareAttributesBox::RareAttributesBox(const RareAttributesBox& o) {
  if (!o.get().empty()) value_ = std::make_unique<RareAttributes>(*o.value_);
}

RareAttributesBox& RareAttributesBox::operator=(const RareAttributesBox& o) {
  if (this == &o) return *this;
  if (o.get().empty()) {
    value_.reset();
  } else if (value_) {
    *value_ = *o.value_;
  } else {
    value_ = std::make_unique<RareAttributes>(*o.value_);
  }
  return *this;
}

RareAttributes& RareAttributesBox::mutable_get() {
  if (!value_) value_ = std::make_unique<RareAttributes>();
  return *value_;
}

void PathAttributes::Clear() {
  origin.reset();
  as_path.reset();
  next_hop.reset();
  med.reset();
  local_pref.reset();
  atomic_aggregate = false;
  aggregator.reset();
  communities.clear();
  originator_id.reset();
  cluster_list.clear();
  mp_next_hop.reset();
  partial_types = 0;
  rare_.Clear();
}

std::optional<net::IPAddress> PathAttributes::NextHopFor(net::Family family) const {
  if (mp_next_hop && mp_next_hop->global.family() == family) return mp_next_hop->global;
  if (family == net::Family::kIPv4 && next_hop) return net::IPAddress(*next_hop);
  return std::nullopt;
}

size_t PathAttributes::Hash() const {
  static const AsPath kEmptyPath;
  // Optional fields hash a presence flag and the value; absl hashes vectors of integers as one
  // contiguous range.
  size_t h = absl::HashOf(
      origin.has_value() ? int(*origin) : -1, as_path.has_value(), as_path ? *as_path : kEmptyPath,
      next_hop.has_value() ? next_hop->value() : 0, next_hop.has_value(), med.value_or(0),
      med.has_value(), local_pref.value_or(0), local_pref.has_value(), atomic_aggregate,
      aggregator.has_value(), aggregator ? aggregator->as : 0,
      aggregator ? aggregator->address.value() : 0, communities, originator_id.has_value(),
      originator_id ? originator_id->value() : 0, cluster_list, partial_types);
  if (mp_next_hop) {
    h = absl::HashOf(h, mp_next_hop->global, mp_next_hop->link_local.has_value(),
                     mp_next_hop->link_local.value_or(net::IPv6Address()));
  }
  const RareAttributes& r = rare();
  if (r.empty()) return h;
  h = absl::HashOf(h, r.ext_communities);
  for (const LargeCommunity& c : r.large_communities) {
    h = absl::HashOf(h, c.global_admin, c.local1, c.local2);
  }
  for (const RawAttribute& a : r.unknown) h = absl::HashOf(h, a.flags, a.type, a.value);
  return h;
}

size_t PathAttributes::HeapBytes() const {
  size_t n = (as_path ? as_path->HeapBytes() : 0) + communities.capacity() * 4 +
             cluster_list.capacity() * 4 + (mp_next_hop ? sizeof(MpNextHop) : 0);
  if (!rare_.allocated()) return n;
  const RareAttributes& r = rare();
  n += sizeof(RareAttributes) + r.ext_communities.capacity() * 8 +
       r.large_communities.capacity() * sizeof(LargeCommunity) +
       r.unknown.capacity() * sizeof(RawAttribute);
  for (const RawAttribute& a : r.unknown) n += a.value.capacity();
  return n;
}

std::string PathAttributes::ToString() const {
  std::string out;
  auto field = [&out](std::string_view name, const std::string& value) {
    if (!out.empty()) out += ' ';
    absl::StrAppend(&out, absl::string_view(name.data(), name.size()), " ", value);
  };
  if (origin) field("origin", std::string(OriginName(*origin)));
  if (as_path) field("as_path", "[" + as_path->ToString() + "]");
  if (next_hop) field("next_hop", next_hop->ToString());
  if (med) field("med", absl::StrCat(*med));
  if (local_pref) field("local_pref", absl::StrCat(*local_pref));
  if (atomic_aggregate) field("atomic_aggregate", "yes");
  if (aggregator) {
    field("aggregator", absl::StrCat(aggregator->as, " ", aggregator->address.ToString()));
  }
  if (!communities.empty()) {
    std::string c;
    for (uint32_t v : communities) absl::StrAppend(&c, c.empty() ? "" : ",", CommunityToString(v));
    field("communities", c);
  }
  if (originator_id) field("originator_id", originator_id->ToString());
  if (!cluster_list.empty()) {
    std::string c;
    for (uint32_t v : cluster_list) {
      absl::StrAppend(&c, c.empty() ? "" : ",", net::IPv4Address(v).ToString());
    }
    field("cluster_list", c);
  }
  if (mp_next_hop) {
    std::string nh = mp_next_hop->global.ToString();
    if (mp_next_hop->link_local) absl::StrAppend(&nh, ",", mp_next_hop->link_local->ToString());
    field("mp_next_hop", nh);
  }
  const RareAttributes& r = rare();
  if (!r.ext_communities.empty()) {
    std::string c;
    for (uint64_t v : r.ext_communities)
      absl::StrAppend(&c, c.empty() ? "" : ",", absl::StrFormat("%016x", v));
    field("ext_communities", c);
  }
  if (!r.large_communities.empty()) {
    std::string c;
    for (const auto& v : r.large_communities)
      absl::StrAppend(&c, c.empty() ? "" : ",", v.ToString());
    field("large_communities", c);
  }
  for (const RawAttribute& a : r.unknown) {
    field(absl::StrFormat("attr%d", a.type),
          absl::StrFormat("flags=0x%02x len=%d", a.flags, a.value.size()));
  }
  return out;
}

}  // namespace sluice::bgp
