#include "bgp/wire/attribute_encoder.h"

#include <cstring>
#include <span>

namespace sluice::bgp {
namespace {

constexpr uint8_t kWellKnown = kFlagTransitive;
constexpr uint8_t kOptional = kFlagOptional;
constexpr uint8_t kOptTrans = kFlagOptional | kFlagTransitive;

uint8_t OptTransFlags(const PathAttributes& a, AttrType type) {
  return kOptTrans | (((a.partial_types >> uint8_t(type)) & 1) ? kFlagPartial : 0);
}

// Writes an attribute header for a value of `value_size` octets at `p`; returns where the value
// goes.
uint8_t* PutAttributeHeader(uint8_t flags, uint8_t type, size_t value_size, uint8_t* p) {
  if (value_size <= 255) {
    p[0] = uint8_t(flags & ~kFlagExtendedLength);
    p[1] = type;
    p[2] = uint8_t(value_size);
    return p + 3;
  }
  p[0] = flags | kFlagExtendedLength;
  p[1] = type;
  StoreU16(p + 2, uint16_t(value_size));
  return p + 4;
}

// Grows `out` once by a whole attribute, writes its header and returns where its value of
// `value_size` octets goes.
uint8_t* ExtendAttribute(uint8_t flags, uint8_t type, size_t value_size, ByteWriter& out) {
  uint8_t* p = out.Extend(AttributeHeaderSize(value_size) + value_size);
  return PutAttributeHeader(flags, type, value_size, p);
}

// An attribute whose value is 4-octet words (COMMUNITIES, CLUSTER_LIST).
void AppendWords(uint8_t flags, AttrType type, std::span<const uint32_t> words, ByteWriter& out) {
  uint8_t* p = ExtendAttribute(flags, uint8_t(type), words.size() * 4, out);
  for (uint32_t w : words) {
    StoreU32(p, w);
    p += 4;
  }
}

}  // namespace

void AppendAttributeHeader(uint8_t flags, uint8_t type, size_t value_size, ByteWriter& out) {
  PutAttributeHeader(flags, type, value_size, out.Extend(AttributeHeaderSize(value_size)));
}

void AppendAttribute(uint8_t flags, uint8_t type, Bytes value, ByteWriter& out) {
  uint8_t* p = ExtendAttribute(flags, type, value.size(), out);
  if (!value.empty()) std::memcpy(p, value.data(), value.size());
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
    const size_t size = a.as_path->EncodedSize(options.as_size);
    a.as_path->Encode(options.as_size,
                      ExtendAttribute(kWellKnown, uint8_t(AttrType::kAsPath), size, out));
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
    AppendWords(OptTransFlags(a, AttrType::kCommunities), AttrType::kCommunities, a.communities,
                out);
  }
  if (a.originator_id && in_range(AttrType::kOriginatorId)) {
    a.originator_id->ToBytes(b);
    AppendAttribute(kOptional, uint8_t(AttrType::kOriginatorId), Bytes(b, 4), out);
  }
  if (!a.cluster_list.empty() && in_range(AttrType::kClusterList)) {
    AppendWords(kOptional, AttrType::kClusterList, a.cluster_list, out);
  }
  if (!rare.ext_communities.empty() && in_range(AttrType::kExtCommunities)) {
    uint8_t* p =
        ExtendAttribute(OptTransFlags(a, AttrType::kExtCommunities),
                        uint8_t(AttrType::kExtCommunities), rare.ext_communities.size() * 8, out);
    for (uint64_t c : rare.ext_communities) {
      StoreU32(p, uint32_t(c >> 32));
      StoreU32(p + 4, uint32_t(c));
      p += 8;
    }
  }
  if (two_octet && a.as_path && a.as_path->HasFourOctetAs() && in_range(AttrType::kAs4Path)) {
    AsPath as4 = a.as_path->WithoutConfedSegments();
    as4.Encode(4, ExtendAttribute(OptTransFlags(a, AttrType::kAs4Path), uint8_t(AttrType::kAs4Path),
                                  as4.EncodedSize(4), out));
  }
  if (two_octet && a.aggregator && a.aggregator->as > 0xffff &&
      in_range(AttrType::kAs4Aggregator)) {
    StoreU32(b, a.aggregator->as);
    a.aggregator->address.ToBytes(b + 4);
    AppendAttribute(OptTransFlags(a, AttrType::kAs4Aggregator), uint8_t(AttrType::kAs4Aggregator),
                    Bytes(b, 8), out);
  }
  if (!rare.large_communities.empty() && in_range(AttrType::kLargeCommunities)) {
    uint8_t* p = ExtendAttribute(OptTransFlags(a, AttrType::kLargeCommunities),
                                 uint8_t(AttrType::kLargeCommunities),
                                 rare.large_communities.size() * 12, out);
    for (const LargeCommunity& c : rare.large_communities) {
      StoreU32(p, c.global_admin);
      StoreU32(p + 4, c.local1);
      StoreU32(p + 8, c.local2);
      p += 12;
    }
  }
  unknown_below(256);
}

}  // namespace sluice::bgp
