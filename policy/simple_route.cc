#include "policy/simple_route.h"

#include "absl/strings/str_cat.h"
#include "policy/strings.h"

namespace sluice::policy {

Value SimpleRoute::Get(VarId id) const {
  auto u32 = [](const std::optional<uint32_t>& v) { return v ? Value::U32(*v) : Value::None(); };
  auto address = [](const std::optional<net::IPAddress>& a) {
    return a ? Value::Of(*a) : Value::None();
  };
  switch (id) {
    case VarId::kProtocol:
      return Value::Text(protocol);
    case VarId::kNetwork:
      return Value::Of(network);
    case VarId::kNexthop:
      if (nexthop_keyword) return Value::Of(*nexthop_keyword);
      return address(nexthop);
    case VarId::kNeighbor:
      return address(neighbor);
    case VarId::kTag:
      return u32(tag);
    case VarId::kOrigin:
      return u32(origin);
    case VarId::kMed:
      return u32(med);
    case VarId::kLocalPref:
      return u32(local_pref);
    case VarId::kAsPath:
      return as_path ? Value::Of(as_path->view(as_path_id)) : Value::None();
    case VarId::kCommunity:
      return Value::Communities(communities);
    case VarId::kExtCommunity:
      return Value::ExtCommunities(ext_communities);
    case VarId::kLargeCommunity:
      return Value::LargeCommunities(large_communities);
    case VarId::kToProtocol:
      return to_protocol ? Value::Text(*to_protocol) : Value::None();
    case VarId::kToNeighbor:
      return address(to_neighbor);
    case VarId::kLocalAs:
      return u32(local_as);
    case VarId::kRpki:
      return u32(rpki);
  }
  return Value::None();
}

std::string SimpleRoute::ToString() const {
  std::string s;
  for (int i = 0; i < kVarCount; ++i) {
    const Value v = Get(static_cast<VarId>(i));
    if (v.is_none()) continue;
    absl::StrAppend(&s, Av(VarName(static_cast<VarId>(i))), " ", v.ToString(), "\n");
  }
  return s;
}

void SimpleRouteVarRW::Write(VarId id, const Value& v) {
  if (!dirty_) {
    out_ = *in_;  // reuses out_'s storage
    dirty_ = true;
  }
  SimpleRoute& r = out_;
  switch (id) {
    case VarId::kNexthop:
      if (v.kind() == ValueKind::kNexthopKeyword) {
        r.nexthop_keyword = v.nexthop_keyword();
        r.nexthop.reset();
      } else if (v.kind() == ValueKind::kAddress) {
        r.nexthop = v.address();
        r.nexthop_keyword.reset();
      }
      break;
    case VarId::kTag:
      if (v.kind() == ValueKind::kU32) r.tag = v.u32();
      break;
    case VarId::kOrigin:
      if (v.kind() == ValueKind::kU32) r.origin = v.u32();
      break;
    case VarId::kMed:
      if (v.kind() == ValueKind::kU32) r.med = v.u32();
      break;
    case VarId::kLocalPref:
      if (v.kind() == ValueKind::kU32) r.local_pref = v.u32();
      break;
    case VarId::kAsPath:
      if (v.kind() == ValueKind::kAsPath) {
        if (!r.as_path) r.as_path.emplace();
        r.as_path->Assign(v.as_path().words());
        r.as_path_id = 0;  // a new path: not interned
      }
      break;
    case VarId::kCommunity:
      if (v.kind() == ValueKind::kCommunities) {
        r.communities.assign(v.communities().begin(), v.communities().end());
      }
      break;
    case VarId::kExtCommunity:
      if (v.kind() == ValueKind::kExtCommunities) {
        r.ext_communities.assign(v.ext_communities().begin(), v.ext_communities().end());
      }
      break;
    case VarId::kLargeCommunity:
      if (v.kind() == ValueKind::kLargeCommunities) {
        r.large_communities.assign(v.large_communities().begin(), v.large_communities().end());
      }
      break;
    default:
      break;  // read-only variables: the compiler never writes them
  }
}

}  // namespace sluice::policy
