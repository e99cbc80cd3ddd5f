#include "bgp/stages/bgp_var_rw.h"

#include <algorithm>

#include "policy/as_path.h"

namespace sluice::bgp {

using policy::Value;
using policy::ValueKind;
using policy::VarId;

void ToPolicyWords(const AsPath& path, std::vector<uint32_t>* words) {
  words->clear();
  for (AsPath::Segment seg : path.segments()) {
    size_t i = 0;
    do {
      const size_t n = std::min<size_t>(seg.asns.size() - i, policy::kMaxAsSegmentLength);
      words->push_back(policy::AsSegmentHeader(static_cast<policy::AsSegmentType>(seg.type),
                                               static_cast<int>(n)));
      words->insert(words->end(), seg.asns.begin() + i, seg.asns.begin() + i + n);
      i += n;
    } while (i < seg.asns.size());
  }
}

AsPath FromPolicyWords(std::span<const uint32_t> words) {
  AsPath path;
  policy::AsPathView(words).ForEachSegment([&](const policy::AsSegment& seg) {
    path.AppendSegment(static_cast<SegmentType>(seg.type), seg.asns);
  });
  return path;
}

policy::RpkiValidation PolicyRpkiState(const std::optional<rpki::RpkiState>& state) {
  if (!state) return policy::RpkiValidation::kNotFound;
  switch (*state) {
    case rpki::RpkiState::kValid:
      return policy::RpkiValidation::kValid;
    case rpki::RpkiState::kInvalid:
      return policy::RpkiValidation::kInvalid;
    case rpki::RpkiState::kNotFound:
      return policy::RpkiValidation::kNotFound;
  }
  return policy::RpkiValidation::kNotFound;
}

void BgpVarRW::Reset(const BgpRoute& route, const PolicyContext& context) {
  route_ = &route;
  context_ = &context;
  dirty_ = false;
  written_ = 0;
  as_words_valid_ = false;
}

PathAttributes& BgpVarRW::Mutable() {
  if (!dirty_) {
    out_ = *route_->attrs;  // reuses out_'s vectors
    dirty_ = true;
  }
  return out_;
}

Value BgpVarRW::Read(VarId id) {
  const PathAttributes& a = attributes();
  auto u32 = [](const std::optional<uint32_t>& v) { return v ? Value::U32(*v) : Value::None(); };
  switch (id) {
    case VarId::kProtocol:
      return Value::Text("bgp");
    case VarId::kNetwork:
      return Value::Of(route_->net);
    case VarId::kNexthop: {
      std::optional<net::IPAddress> nh = a.NextHopFor(route_->net.family());
      return nh ? Value::Of(*nh) : Value::None();
    }
    case VarId::kNeighbor:
      if (route_->source == nullptr || route_->source->local) return Value::None();
      return Value::Of(route_->source->address);
    case VarId::kTag:
      return Value::None();
    case VarId::kOrigin:
      return a.origin ? Value::U32(static_cast<uint32_t>(*a.origin)) : Value::None();
    case VarId::kMed:
      return u32(a.med);
    case VarId::kLocalPref:
      return u32(a.local_pref);
    case VarId::kAsPath:
      if (!a.as_path) return Value::None();
      if (!as_words_valid_) {
        ToPolicyWords(*a.as_path, &as_words_);
        as_words_valid_ = true;
      }
      return Value::Of(policy::AsPathView(as_words_));
    case VarId::kCommunity:
      return Value::Communities(a.communities);
    case VarId::kExtCommunity:
      return Value::ExtCommunities(a.rare().ext_communities);
    case VarId::kLargeCommunity:
      large_.clear();
      for (const LargeCommunity& c : a.rare().large_communities) {
        large_.push_back(policy::LargeCommunity{c.global_admin, c.local1, c.local2});
      }
      return Value::LargeCommunities(large_);
    case VarId::kToProtocol:
      return context_->to_neighbor ? Value::Text("bgp") : Value::None();
    case VarId::kToNeighbor:
      return context_->to_neighbor ? Value::Of(*context_->to_neighbor) : Value::None();
    case VarId::kLocalAs:
      return Value::U32(context_->local_as);
    case VarId::kRpki:
      return Value::U32(static_cast<uint32_t>(PolicyRpkiState(route_->rpki)));
  }
  return Value::None();
}

void BgpVarRW::Write(VarId id, const Value& v) {
  const net::Family family = route_->net.family();
  switch (id) {
    case VarId::kNexthop: {
      std::optional<net::IPAddress> nh;
      if (v.kind() == ValueKind::kAddress) {
        nh = v.address();
      } else if (v.kind() == ValueKind::kNexthopKeyword) {
        nh = v.nexthop_keyword() == policy::NexthopKeyword::kSelf ? context_->self : context_->peer;
      }
      if (!nh) return;
      PathAttributes& out = Mutable();
      if (family == net::Family::kIPv4 && nh->is_v4()) {
        out.next_hop = nh->v4();
        if (out.mp_next_hop && out.mp_next_hop->global.is_v4()) out.mp_next_hop.reset();
      } else if (nh->family() == family) {
        out.mp_next_hop = MpNextHop{*nh, std::nullopt};
      } else {
        return;  // a nexthop of the other family: not for this route
      }
      break;
    }
    case VarId::kOrigin:
      if (v.kind() != ValueKind::kU32 || v.u32() > 2) return;
      Mutable().origin = static_cast<Origin>(v.u32());
      break;
    case VarId::kMed:
      if (v.kind() != ValueKind::kU32) return;
      Mutable().med = v.u32();
      break;
    case VarId::kLocalPref:
      if (v.kind() != ValueKind::kU32) return;
      Mutable().local_pref = v.u32();
      break;
    case VarId::kAsPath:
      if (v.kind() != ValueKind::kAsPath) return;
      Mutable().as_path = FromPolicyWords(v.as_path().words());
      as_words_valid_ = false;
      break;
    case VarId::kCommunity:
      if (v.kind() != ValueKind::kCommunities) return;
      Mutable().communities.assign(v.communities().begin(), v.communities().end());
      break;
    case VarId::kExtCommunity:
      if (v.kind() != ValueKind::kExtCommunities) return;
      Mutable().mutable_rare().ext_communities.assign(v.ext_communities().begin(),
                                                      v.ext_communities().end());
      break;
    case VarId::kLargeCommunity: {
      if (v.kind() != ValueKind::kLargeCommunities) return;
      std::vector<LargeCommunity>& out = Mutable().mutable_rare().large_communities;
      out.clear();
      for (const policy::LargeCommunity& c : v.large_communities()) {
        out.push_back(LargeCommunity{c.global_admin, c.local1, c.local2});
      }
      break;
    }
    default:
      return;  // read-only, or not a BGP attribute (tag)
  }
  written_ |= 1u << static_cast<int>(id);
}

}  // namespace sluice::bgp
