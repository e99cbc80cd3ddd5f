#include "bgp/wire/attribute_encoder.h"

namespace sluice::bgp {
namespace {

constexpr uint8_t kWellKnown = kFlagTransitive;
constexpr uint8_t kOptional = kFlagOptional;
constexpr uint8_t kOptTrans = kFlagOptional | kFlagTransitive;

uint8_t OptTransFlags(const PathAttributes& a, AttrType type) {
  return kOptTrans | (((a.partial_types >> uint8_t(type)) & 1) ? kFlagPartial : 0);
}

}  // namespace

void AppendAttributeHeader(uint8_t flags, uint8_t type, size_t value_size, ByteWriter& out) {
  // Octet by octet: a header comes before every attribute we encode, and a 3- or 4-octet append
  // would be a call to memmove.
  if (value_size <= 255) {
    out.U8(uint8_t(flags & ~kFlagExtendedLength));
    out.U8(type);
    out.U8(uint8_t(value_size));
    return;
  }
  out.U8(flags | kFlagExtendedLength);
  out.U8(type);
  out.U8(uint8_t(value_size >> 8));
  out.U8(uint8_t(value_size));
}

void AppendAttribute(uint8_t flags, uint8_t type, Bytes value, ByteWriter& out) {
  AppendAttributeHeader(flags, type, value.size(), out);
  out.Append(value);
}

void AppendMpNextHop(const MpNextHop& nh, ByteWriter& out) {
  uint8_t b[16];
  if (nh.global.is_v4()) {
    out.U8(4);
    nh.global.v4().ToBytes(b);
    out.Append(b, 4);
    return;
  }
  out.U8(nh.link_local ? 32 : 16);
  nh.global.v6().ToBytes(b);
  out.Append(b, 16);
  if (nh.link_local) {
    nh.link_local->ToBytes(b);
    out.Append(b, 16);
  }
}

void PrefetchForEncoding(const PathAttributes& attrs, bool deep) {
  const char* p = reinterpret_cast<const char*>(&attrs);
  for (size_t at = 0; at < sizeof(PathAttributes); at += 64) __builtin_prefetch(p + at);
  if (!deep) return;
  if (attrs.as_path) __builtin_prefetch(attrs.as_path->words().data());
  if (!attrs.communities.empty()) __builtin_prefetch(attrs.communities.data());
}

void EncodeAttributes(const PathAttributes& a, const AttributeEncodeOptions& options,
                      uint8_t first_type, uint8_t last_type, ByteWriter& out) {
  const RareAttributes& rare = a.rare();
  // `unknown` is in type-code order (the decoder keeps wire order, which is type-code order for
  // canonical input); each known attribute is preceded by the unknown ones of lower type.
  size_t next_unknown = 0;
  auto unknown_below = [&](int type) {
    while (next_unknown < rare.unknown.size() && rare.unknown[next_unknown].type < type) {
      const RawAttribute& u = rare.unknown[next_unknown++];
      if (u.type < first_type || u.type > last_type) continue;
      uint8_t flags = u.flags;
      if (options.readvertise && (flags & kOptTrans) == kOptTrans) flags |= kFlagPartial;
      AppendAttribute(flags, u.type, u.value, out);
    }
  };
  auto in_range = [&](AttrType t) {
    if (uint8_t(t) < first_type || uint8_t(t) > last_type) return false;
    unknown_below(uint8_t(t));
    return true;
  };
  uint8_t b[8];
  const bool two_octet = options.as_size == 2;

  if (a.origin && in_range(AttrType::kOrigin)) {
    b[0] = uint8_t(*a.origin);
    AppendAttribute(kWellKnown, uint8_t(AttrType::kOrigin), Bytes(b, 1), out);
  }
  if (a.as_path && in_range(AttrType::kAsPath)) {
    AppendAttributeHeader(kWellKnown, uint8_t(AttrType::kAsPath),
                          a.as_path->EncodedSize(options.as_size), out);
    a.as_path->Encode(options.as_size, out);
  }
  if (a.next_hop && in_range(AttrType::kNextHop)) {
    a.next_hop->ToBytes(b);
    AppendAttribute(kWellKnown, uint8_t(AttrType::kNextHop), Bytes(b, 4), out);
  }
  if (a.med && in_range(AttrType::kMultiExitDisc)) {
    StoreU32(b, *a.med);
    AppendAttribute(kOptional, uint8_t(AttrType::kMultiExitDisc), Bytes(b, 4), out);
  }
  if (a.local_pref && in_range(AttrType::kLocalPref)) {
    StoreU32(b, *a.local_pref);
    AppendAttribute(kWellKnown, uint8_t(AttrType::kLocalPref), Bytes(b, 4), out);
  }
  if (a.atomic_aggregate && in_range(AttrType::kAtomicAggregate)) {
    AppendAttribute(kWellKnown, uint8_t(AttrType::kAtomicAggregate), Bytes(), out);
  }
  if (a.aggregator && in_range(AttrType::kAggregator)) {
    const uint8_t flags = OptTransFlags(a, AttrType::kAggregator);
    if (two_octet) {
      StoreU16(b, uint16_t(a.aggregator->as > 0xffff ? kAsTrans : a.aggregator->as));
      a.aggregator->address.ToBytes(b + 2);
      AppendAttribute(flags, uint8_t(AttrType::kAggregator), Bytes(b, 6), out);
    } else {
      StoreU32(b, a.aggregator->as);
      a.aggregator->address.ToBytes(b + 4);
      AppendAttribute(flags, uint8_t(AttrType::kAggregator), Bytes(b, 8), out);
    }
  }
  if (!a.communities.empty() && in_range(AttrType::kCommunities)) {
    AppendAttributeHeader(OptTransFlags(a, AttrType::kCommunities), uint8_t(AttrType::kCommunities),
                          a.communities.size() * 4, out);
    for (uint32_t c : a.communities) out.U32(c);
  }
  if (a.originator_id && in_range(AttrType::kOriginatorId)) {
    a.originator_id->ToBytes(b);
    AppendAttribute(kOptional, uint8_t(AttrType::kOriginatorId), Bytes(b, 4), out);
  }
  if (!a.cluster_list.empty() && in_range(AttrType::kClusterList)) {
    AppendAttributeHeader(kOptional, uint8_t(AttrType::kClusterList), a.cluster_list.size() * 4,
                          out);
    for (uint32_t c : a.cluster_list) out.U32(c);
  }
  if (!rare.ext_communities.empty() && in_range(AttrType::kExtCommunities)) {
    AppendAttributeHeader(OptTransFlags(a, AttrType::kExtCommunities),
                          uint8_t(AttrType::kExtCommunities), rare.ext_communities.size() * 8, out);
    for (uint64_t c : rare.ext_communities) {
      out.U32(uint32_t(c >> 32));
      out.U32(uint32_t(c));
    }
  }
  if (two_octet && a.as_path && a.as_path->HasFourOctetAs() && in_range(AttrType::kAs4Path)) {
    AsPath as4 = a.as_path->WithoutConfedSegments();
    AppendAttributeHeader(OptTransFlags(a, AttrType::kAs4Path), uint8_t(AttrType::kAs4Path),
                          as4.EncodedSize(4), out);
    as4.Encode(4, out);
  }
  if (two_octet && a.aggregator && a.aggregator->as > 0xffff &&
      in_range(AttrType::kAs4Aggregator)) {
    StoreU32(b, a.aggregator->as);
    a.aggregator->address.ToBytes(b + 4);
    AppendAttribute(OptTransFlags(a, AttrType::kAs4Aggregator), uint8_t(AttrType::kAs4Aggregator),
                    Bytes(b, 8), out);
  }
  if (!rare.large_communities.empty() && in_range(AttrType::kLargeCommunities)) {
    AppendAttributeHeader(OptTransFlags(a, AttrType::kLargeCommunities),
                          uint8_t(AttrType::kLargeCommunities), rare.large_communities.size() * 12,
                          out);
    for (const LargeCommunity& c : rare.large_communities) {
      out.U32(c.global_admin);
      out.U32(c.local1);
      out.U32(c.local2);
    }
  }
  unknown_below(256);
}

}  // namespace sluice::bgp
