#include "bgp/wire/attribute_decode_table.h"

#include "absl/strings/str_format.h"

namespace sluice::bgp {
namespace {

std::string LengthError(uint8_t type, size_t len, std::string_view expected) {
  return absl::StrFormat("%s: length %d, %s expected", AttrName(type), len, expected);
}

// RFC 7606 §2 treat-as-withdraw for `a`, with `subcode` and `reason`.
void Withdraw(AttrDecodeContext& ctx, const AttrView& a, uint8_t subcode, std::string reason) {
  AddUpdateError(ctx.errors, UpdateAction::kTreatAsWithdraw, subcode, a.whole, std::move(reason));
}

// RFC 7606 §2 attribute-discard of `a`, with `subcode` and `reason`.
void Discard(AttrDecodeContext& ctx, const AttrView& a, uint8_t subcode, std::string reason) {
  *ctx.notes |= kNoteDroppedAttribute;
  AddUpdateError(ctx.errors, UpdateAction::kAttributeDiscard, subcode, a.whole, std::move(reason));
}

// Reads an MP nexthop of `len` octets (4, 16 or 32). False for any other length.
bool ParseMpNextHop(const uint8_t* p, size_t len, MpNextHop* out) {
  switch (len) {
    case 4:
      out->global = net::IPAddress(net::IPv4Address(LoadU32(p)));
      out->link_local.reset();
      return true;
    case 16:
      out->global = net::IPAddress(net::IPv6Address::FromBytes(p));
      out->link_local.reset();
      return true;
    case 32:
      out->global = net::IPAddress(net::IPv6Address::FromBytes(p));
      out->link_local = net::IPv6Address::FromBytes(p + 16);
      return true;
    default:
      return false;
  }
}

// RFC 4271 §5.1.1, RFC 7606 §7.1.
AttrStep DecodeOrigin(AttrDecodeContext& ctx, const AttrView& a) {
  const size_t len = a.value.size();
  if (len != 1 || a.value[0] > 2) {
    Withdraw(ctx, a, update_error::kInvalidOriginAttribute,
             len != 1 ? LengthError(a.type, len, "1")
                      : absl::StrFormat("ORIGIN: undefined value %d", a.value[0]));
    return AttrStep::kNext;
  }
  ctx.attrs->origin = Origin(a.value[0]);
  return AttrStep::kNext;
}

// RFC 4271 §5.1.2, RFC 7606 §7.2, RFC 7607.
AttrStep DecodeAsPath(AttrDecodeContext& ctx, const AttrView& a) {
  PathAttributes* attrs = ctx.attrs;
  attrs->as_path.emplace(std::move(*ctx.as_path_storage));
  absl::Status st = AsPath::Decode(a.value, ctx.as_size, &*attrs->as_path);
  if (!st.ok()) {
    Withdraw(ctx, a, update_error::kMalformedAsPath, std::string(st.message()));
    attrs->as_path.reset();
    return AttrStep::kNext;
  }
  if (ctx.strict && ctx.params.external && attrs->as_path->HasConfedSegments()) {
    Withdraw(ctx, a, update_error::kMalformedAsPath,
             "AS_PATH: confederation segment from an external peer");
  }
  if (ctx.strict && attrs->as_path->Contains(0)) {
    Withdraw(ctx, a, update_error::kMalformedAsPath, "AS_PATH: AS 0 (RFC 7607)");
  }
  return AttrStep::kNext;
}

// RFC 4271 §5.1.3, RFC 7606 §7.3.
AttrStep DecodeNextHop(AttrDecodeContext& ctx, const AttrView& a) {
  if (a.value.size() != 4) {
    Withdraw(ctx, a, update_error::kAttributeLengthError, LengthError(a.type, a.value.size(), "4"));
    return AttrStep::kNext;
  }
  ctx.attrs->next_hop = net::IPv4Address(LoadU32(a.value.data()));
  return AttrStep::kNext;
}

// RFC 4271 §5.1.4, RFC 7606 §7.4.
AttrStep DecodeMultiExitDisc(AttrDecodeContext& ctx, const AttrView& a) {
  if (a.value.size() != 4) {
    Withdraw(ctx, a, update_error::kAttributeLengthError, LengthError(a.type, a.value.size(), "4"));
    return AttrStep::kNext;
  }
  ctx.attrs->med = LoadU32(a.value.data());
  return AttrStep::kNext;
}

// RFC 4271 §5.1.5, RFC 7606 §7.5.
AttrStep DecodeLocalPref(AttrDecodeContext& ctx, const AttrView& a) {
  if (ctx.strict && ctx.params.external) {
    // RFC 7606 §7.5: LOCAL_PREF from an external peer is discarded.
    Discard(ctx, a, update_error::kAttributeLengthError, "LOCAL_PREF from an external peer");
    return AttrStep::kNext;
  }
  if (a.value.size() != 4) {
    Withdraw(ctx, a, update_error::kAttributeLengthError, LengthError(a.type, a.value.size(), "4"));
    return AttrStep::kNext;
  }
  ctx.attrs->local_pref = LoadU32(a.value.data());
  return AttrStep::kNext;
}

// RFC 4271 §5.1.6, RFC 7606 §7.6.
AttrStep DecodeAtomicAggregate(AttrDecodeContext& ctx, const AttrView& a) {
  if (!a.value.empty()) {
    Discard(ctx, a, update_error::kAttributeLengthError, LengthError(a.type, a.value.size(), "0"));
    return AttrStep::kNext;
  }
  ctx.attrs->atomic_aggregate = true;
  return AttrStep::kNext;
}

// RFC 4271 §5.1.7, RFC 7606 §7.7, RFC 7607.
AttrStep DecodeAggregator(AttrDecodeContext& ctx, const AttrView& a) {
  const int as_size = ctx.as_size;
  if (a.value.size() != size_t(as_size + 4)) {
    Discard(ctx, a, update_error::kAttributeLengthError,
            LengthError(a.type, a.value.size(), as_size == 4 ? "8" : "6"));
    return AttrStep::kNext;
  }
  Aggregator agg;
  agg.as = as_size == 4 ? LoadU32(a.value.data()) : LoadU16(a.value.data());
  agg.address = net::IPv4Address(LoadU32(a.value.data() + as_size));
  if (ctx.strict && agg.as == 0) {
    Discard(ctx, a, update_error::kOptionalAttributeError, "AGGREGATOR: AS 0 (RFC 7607)");
    return AttrStep::kNext;
  }
  ctx.attrs->aggregator = agg;
  return AttrStep::kNext;
}

// An attribute that is a list of `Width`-octet values, each read by `Load`: a length that is zero
// or not a multiple of `Width` is an optional attribute error, treat-as-withdraw (RFC 7606 §7.8,
// §7.10, §7.14; RFC 8092 §5). `expected` names the lengths allowed in the error.
template <size_t Width, typename T, T (*Load)(const uint8_t*)>
AttrStep DecodeList(AttrDecodeContext& ctx, const AttrView& a, std::string_view expected,
                    std::vector<T>& out) {
  const size_t len = a.value.size();
  if (len == 0 || len % Width != 0) {
    Withdraw(ctx, a, update_error::kOptionalAttributeError, LengthError(a.type, len, expected));
    return AttrStep::kNext;
  }
  out.resize(len / Width);
  for (size_t i = 0; i < out.size(); ++i) out[i] = Load(a.value.data() + Width * i);
  return AttrStep::kNext;
}

LargeCommunity LoadLargeCommunity(const uint8_t* p) {
  return LargeCommunity{LoadU32(p), LoadU32(p + 4), LoadU32(p + 8)};
}

// RFC 1997, RFC 7606 §7.8.
AttrStep DecodeCommunities(AttrDecodeContext& ctx, const AttrView& a) {
  return DecodeList<4, uint32_t, LoadU32>(ctx, a, "a non-zero multiple of 4",
                                          ctx.attrs->communities);
}

// RFC 4456 §8, RFC 7606 §7.9.
AttrStep DecodeOriginatorId(AttrDecodeContext& ctx, const AttrView& a) {
  if (a.value.size() != 4) {
    Withdraw(ctx, a, update_error::kOptionalAttributeError,
             LengthError(a.type, a.value.size(), "4"));
    return AttrStep::kNext;
  }
  ctx.attrs->originator_id = net::IPv4Address(LoadU32(a.value.data()));
  return AttrStep::kNext;
}

// RFC 4456 §8, RFC 7606 §7.10.
AttrStep DecodeClusterList(AttrDecodeContext& ctx, const AttrView& a) {
  return DecodeList<4, uint32_t, LoadU32>(ctx, a, "a non-zero multiple of 4",
                                          ctx.attrs->cluster_list);
}

// RFC 6396 §4.3.4: the MP_REACH_NLRI of a TABLE_DUMP_V2 RIB entry, only the nexthop length and
// nexthop.
AttrStep DecodeMrtMpReach(AttrDecodeContext& ctx, const AttrView& a) {
  MpNextHop nh;
  const Bytes value = a.value;
  if (size_t(value[0]) + 1 > value.size() || !ParseMpNextHop(value.data() + 1, value[0], &nh)) {
    Withdraw(ctx, a, update_error::kOptionalAttributeError,
             absl::StrFormat("MP_REACH_NLRI: bad nexthop length %d", value[0]));
    return AttrStep::kNext;
  }
  ctx.attrs->mp_next_hop = nh;
  ctx.reach->usable = true;
  return AttrStep::kNext;
}

// RFC 4760 §3, RFC 7606 §7.11.
AttrStep DecodeMpReach(AttrDecodeContext& ctx, const AttrView& a) {
  MpNlriField* reach = ctx.reach;
  const Bytes value = a.value;
  const size_t len = value.size();
  reach->present = true;
  if (ctx.source == AttributeSource::kMrtRibEntry && len > 0 && value[0] != 0) {
    return DecodeMrtMpReach(ctx, a);
  }
  if (len < 5) {
    AddUpdateError(ctx.errors, UpdateAction::kSessionReset, update_error::kOptionalAttributeError,
                   a.whole, LengthError(a.type, len, "at least 5"));
    return AttrStep::kStop;
  }
  const uint16_t afi = LoadU16(value.data());
  const uint8_t safi = value[2];
  const size_t nh_len = value[3];
  if (!AfiSafi::Supported(afi, safi)) {
    *ctx.notes |= kNoteMpLayout;
    return AttrStep::kNext;
  }
  reach->family = AfiSafi{Afi(afi), Safi(safi)};
  if (!ctx.params.families.Has(reach->family)) {
    *ctx.notes |= kNoteMpLayout;
    return AttrStep::kNext;
  }
  MpNextHop nh;
  const bool nh_fits = 4 + nh_len + 1 <= len;
  const bool nh_ok = nh_fits && (afi == 1 ? (nh_len == 4 || nh_len == 16 || nh_len == 32)
                                          : (nh_len == 16 || nh_len == 32));
  if (!nh_ok || !ParseMpNextHop(value.data() + 4, nh_len, &nh)) {
    // RFC 7606 §7.11: the NLRI cannot be located reliably.
    ctx.errors->disabled_families.Add(reach->family);
    AddUpdateError(
        ctx.errors, UpdateAction::kAfiSafiDisable, update_error::kOptionalAttributeError, a.whole,
        absl::StrFormat("MP_REACH_NLRI %s: nexthop length %d%s", reach->family.ToString(), nh_len,
                        nh_fits ? " is not valid" : " overruns the attribute"));
    return AttrStep::kNext;
  }
  ctx.attrs->mp_next_hop = nh;
  if (value[4 + nh_len] != 0) *ctx.notes |= kNoteMpReserved;
  reach->nlri = value.subspan(4 + nh_len + 1);
  reach->usable = true;
  return AttrStep::kNext;
}

// RFC 4760 §4, RFC 7606 §7.11.
AttrStep DecodeMpUnreach(AttrDecodeContext& ctx, const AttrView& a) {
  MpNlriField* unreach = ctx.unreach;
  unreach->present = true;
  if (a.value.size() < 3) {
    AddUpdateError(ctx.errors, UpdateAction::kSessionReset, update_error::kOptionalAttributeError,
                   a.whole, LengthError(a.type, a.value.size(), "at least 3"));
    return AttrStep::kStop;
  }
  const uint16_t afi = LoadU16(a.value.data());
  const uint8_t safi = a.value[2];
  if (!AfiSafi::Supported(afi, safi)) {
    *ctx.notes |= kNoteMpLayout;
    return AttrStep::kNext;
  }
  unreach->family = AfiSafi{Afi(afi), Safi(safi)};
  if (!ctx.params.families.Has(unreach->family)) {
    *ctx.notes |= kNoteMpLayout;
    return AttrStep::kNext;
  }
  unreach->nlri = a.value.subspan(3);
  unreach->usable = true;
  return AttrStep::kNext;
}

// RFC 4360 §2, RFC 7606 §7.14.
AttrStep DecodeExtCommunities(AttrDecodeContext& ctx, const AttrView& a) {
  return DecodeList<8, uint64_t, LoadU64>(ctx, a, "a non-zero multiple of 8",
                                          ctx.attrs->mutable_rare().ext_communities);
}

// RFC 6793 §4.2.2, §6; RFC 7607. Kept in ctx for the reconciliation of RFC 6793 §4.2.3.
AttrStep DecodeAs4Path(AttrDecodeContext& ctx, const AttrView& a) {
  if (ctx.params.four_octet_as) {
    // RFC 6793 §4.1: a NEW speaker does not send AS4_PATH to a NEW speaker; ignore it.
    *ctx.notes |= kNoteDroppedAttribute;
    return AttrStep::kNext;
  }
  absl::Status st = AsPath::Decode(a.value, 4, ctx.as4_path);
  std::string problem;
  if (!st.ok()) {
    problem = std::string(st.message());
  } else if (ctx.as4_path->HasConfedSegments()) {
    problem = "AS4_PATH: confederation segment";
  } else if (ctx.strict && ctx.as4_path->Contains(0)) {
    problem = "AS4_PATH: AS 0 (RFC 7607)";
  }
  if (!problem.empty()) {
    // RFC 6793 §6: a malformed AS4_PATH is discarded.
    Discard(ctx, a, update_error::kOptionalAttributeError, std::move(problem));
    return AttrStep::kNext;
  }
  ctx.have_as4_path = true;
  return AttrStep::kNext;
}

// RFC 6793 §4.2.2, §6; RFC 7607. Kept in ctx for the reconciliation of RFC 6793 §4.2.3.
AttrStep DecodeAs4Aggregator(AttrDecodeContext& ctx, const AttrView& a) {
  if (ctx.params.four_octet_as) {
    *ctx.notes |= kNoteDroppedAttribute;
    return AttrStep::kNext;
  }
  const size_t len = a.value.size();
  if (len != 8 || (ctx.strict && LoadU32(a.value.data()) == 0)) {
    Discard(ctx, a, update_error::kOptionalAttributeError,
            len != 8 ? LengthError(a.type, len, "8") : "AS4_AGGREGATOR: AS 0 (RFC 7607)");
    return AttrStep::kNext;
  }
  ctx.as4_aggregator =
      Aggregator{LoadU32(a.value.data()), net::IPv4Address(LoadU32(a.value.data() + 4))};
  return AttrStep::kNext;
}

// RFC 8092 §3, §5.
AttrStep DecodeLargeCommunities(AttrDecodeContext& ctx, const AttrView& a) {
  return DecodeList<12, LargeCommunity, LoadLargeCommunity>(
      ctx, a, "a non-zero multiple of 12", ctx.attrs->mutable_rare().large_communities);
}

// RFC 4271 §5, §6.3: a type this codec does not interpret.
AttrStep DecodeUnrecognized(AttrDecodeContext& ctx, const AttrView& a) {
  const uint8_t flags = a.flags;
  if (!(flags & kFlagOptional)) {
    // RFC 4271 §6.3: an unrecognized well-known attribute.
    AddUpdateError(ctx.errors, UpdateAction::kSessionReset,
                   update_error::kUnrecognizedWellKnownAttribute, a.whole,
                   absl::StrFormat("unrecognized well-known attribute type %d", a.type));
    return AttrStep::kStop;
  }
  if (!(flags & kFlagTransitive)) {
    *ctx.notes |= kNoteDroppedAttribute;  // RFC 4271 §5: quietly ignored
    return AttrStep::kNext;
  }
  if (flags & 0x0f) *ctx.notes |= kNoteFlags;
  ctx.attrs->mutable_rare().unknown.push_back(
      RawAttribute{uint8_t(flags & (kFlagOptional | kFlagTransitive | kFlagPartial)), a.type,
                   std::vector<uint8_t>(a.value.begin(), a.value.end())});
  return AttrStep::kNext;
}

constexpr uint8_t kWellKnown = kFlagTransitive;
constexpr uint8_t kOptionalNonTransitive = kFlagOptional;
constexpr uint8_t kOptionalTransitive = kFlagOptional | kFlagTransitive;

constexpr std::array<AttrDesc, 256> MakeTable() {
  std::array<AttrDesc, 256> t;
  for (AttrDesc& d : t) d = AttrDesc{"attribute", kUnknownType, DecodeUnrecognized};
  auto set = [&t](AttrType type, std::string_view name, uint8_t flags, AttrDecodeFn decode) {
    t[uint8_t(type)] = AttrDesc{name, flags, decode};
  };
  set(AttrType::kOrigin, "ORIGIN", kWellKnown, DecodeOrigin);
  set(AttrType::kAsPath, "AS_PATH", kWellKnown, DecodeAsPath);
  set(AttrType::kNextHop, "NEXT_HOP", kWellKnown, DecodeNextHop);
  set(AttrType::kMultiExitDisc, "MULTI_EXIT_DISC", kOptionalNonTransitive, DecodeMultiExitDisc);
  set(AttrType::kLocalPref, "LOCAL_PREF", kWellKnown, DecodeLocalPref);
  set(AttrType::kAtomicAggregate, "ATOMIC_AGGREGATE", kWellKnown, DecodeAtomicAggregate);
  set(AttrType::kAggregator, "AGGREGATOR", kOptionalTransitive, DecodeAggregator);
  set(AttrType::kCommunities, "COMMUNITIES", kOptionalTransitive, DecodeCommunities);
  set(AttrType::kOriginatorId, "ORIGINATOR_ID", kOptionalNonTransitive, DecodeOriginatorId);
  set(AttrType::kClusterList, "CLUSTER_LIST", kOptionalNonTransitive, DecodeClusterList);
  set(AttrType::kMpReachNlri, "MP_REACH_NLRI", kOptionalNonTransitive, DecodeMpReach);
  set(AttrType::kMpUnreachNlri, "MP_UNREACH_NLRI", kOptionalNonTransitive, DecodeMpUnreach);
  set(AttrType::kExtCommunities, "EXTENDED_COMMUNITIES", kOptionalTransitive, DecodeExtCommunities);
  set(AttrType::kAs4Path, "AS4_PATH", kOptionalTransitive, DecodeAs4Path);
  set(AttrType::kAs4Aggregator, "AS4_AGGREGATOR", kOptionalTransitive, DecodeAs4Aggregator);
  set(AttrType::kLargeCommunities, "LARGE_COMMUNITY", kOptionalTransitive, DecodeLargeCommunities);
  return t;
}

}  // namespace

constinit const std::array<AttrDesc, 256> kAttrDecodeTable = MakeTable();

}  // namespace sluice::bgp
