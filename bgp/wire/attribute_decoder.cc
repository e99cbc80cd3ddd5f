#include "bgp/wire/attribute_decoder.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_format.h"
#include "bgp/wire/attribute_decode_table.h"

namespace sluice::bgp {
namespace {

// The smallest attribute that can be MP_REACH_NLRI or MP_UNREACH_NLRI: a 3-octet header, AFI
// and SAFI.
constexpr size_t kMinMpAttribute = 6;

bool IsMpAttribute(uint8_t type) {
  return type == uint8_t(AttrType::kMpReachNlri) || type == uint8_t(AttrType::kMpUnreachNlri);
}

// RFC 7606 §3(c): conflicting Optional/Transitive bits → treat-as-withdraw; the attribute is
// skipped unless it is an MP attribute, whose NLRI are still needed. Out of line: rare.
[[gnu::noinline]] AttrStep FlagsError(const AttrView& a, AttrDecodeContext& ctx, uint8_t expected) {
  AddUpdateError(
      ctx.errors, UpdateAction::kTreatAsWithdraw, update_error::kAttributeFlagsError, a.whole,
      absl::StrFormat("%s: flags 0x%02x, expected 0x%02x", AttrName(a.type), a.flags, expected));
  return IsMpAttribute(a.type) ? AttrStep::kNext : AttrStep::kSkip;
}

// An attribute of a known type must carry its Optional and Transitive bits (FlagsError otherwise).
// Records Partial and notes flags that differ from the usual encoding.
AttrStep CheckFlags(const AttrView& a, AttrDecodeContext& ctx) {
  const uint8_t flags = a.flags;
  const uint8_t expected = kAttrDecodeTable[a.type].expected_flags;
  if (expected == kUnknownType) return AttrStep::kNext;
  if ((flags & (kFlagOptional | kFlagTransitive)) != expected) [[unlikely]] {
    if (FlagsError(a, ctx, expected) == AttrStep::kSkip) return AttrStep::kSkip;
  }
  const bool opt_trans = expected == (kFlagOptional | kFlagTransitive);
  const uint8_t partial = flags & kFlagPartial;
  if ((flags & ~kFlagExtendedLength) != (expected | (opt_trans ? partial : 0))) {
    *ctx.notes |= kNoteFlags;
  }
  if (opt_trans && partial) ctx.attrs->partial_types |= uint64_t{1} << a.type;
  return AttrStep::kNext;
}

// RFC 7606 §4: too little left for an attribute header. Out of line: rare.
[[gnu::noinline]] void TruncatedHeader(UpdateErrors* errors, size_t left) {
  AddUpdateError(errors, UpdateAction::kTreatAsWithdraw, update_error::kMalformedAttributeList, {},
                 absl::StrFormat("path attributes: %d octets left after the last attribute", left));
}

// RFC 7606 §3(g): a repeated MP attribute resets the session (kStop); other repeats are discarded
// (kSkip). Out of line: rare.
[[gnu::noinline]] AttrStep Repeated(const AttrView& a, AttrDecodeContext& ctx) {
  const uint8_t type = a.type;
  if (IsMpAttribute(type)) {
    AddUpdateError(ctx.errors, UpdateAction::kSessionReset, update_error::kMalformedAttributeList,
                   {}, absl::StrFormat("%s appears twice", AttrName(type)));
    return AttrStep::kStop;
  }
  *ctx.notes |= kNoteDroppedAttribute;
  AddUpdateError(ctx.errors, UpdateAction::kAttributeDiscard, update_error::kMalformedAttributeList,
                 a.whole, absl::StrFormat("%s (type %d) appears twice", AttrName(type), type));
  return AttrStep::kSkip;
}

// RFC 7606 §3(g): a repeated attribute goes to Repeated; a first occurrence is recorded in
// ctx.seen (kNext).
AttrStep CheckRepeat(const AttrView& a, AttrDecodeContext& ctx) {
  uint64_t& seen_word = ctx.seen[a.type >> 6];
  const uint64_t seen_bit = uint64_t{1} << (a.type & 63);
  if (seen_word & seen_bit) [[unlikely]] {
    return Repeated(a, ctx);
  }
  seen_word |= seen_bit;
  return AttrStep::kNext;
}

// Whether an attribute of `type` was read (and recorded by CheckRepeat).
bool Seen(const AttrDecodeContext& ctx, AttrType type) {
  return (ctx.seen[uint8_t(type) >> 6] >> (uint8_t(type) & 63)) & 1;
}

// Whether an attribute other than MP_UNREACH_NLRI was read (RFC 7606 §5.2).
bool SeenOtherThanUnreach(const AttrDecodeContext& ctx) {
  static_assert(uint8_t(AttrType::kMpUnreachNlri) < 64);
  const uint64_t unreach_bit = uint64_t{1} << uint8_t(AttrType::kMpUnreachNlri);
  return (ctx.seen[0] & ~unreach_bit) != 0 || ctx.seen[1] != 0 || ctx.seen[2] != 0 ||
         ctx.seen[3] != 0;
}

// Forgets the Partial bit of `t` unless `keep`.
void KeepPartial(PathAttributes* attrs, AttrType t, bool keep) {
  if (!keep) attrs->partial_types &= ~(uint64_t{1} << uint8_t(t));
}

// Remember Partial only for attributes the set holds (and, for AS4_PATH/AS4_AGGREGATOR, only
// where a 2-octet encoding will carry them again), so that equal routes make equal sets.
void TrimPartialTypes(const AttrDecodeContext& ctx) {
  PathAttributes* attrs = ctx.attrs;
  if (attrs->partial_types == 0) return;
  const bool two_octet = !ctx.params.four_octet_as;
  KeepPartial(attrs, AttrType::kAggregator, attrs->aggregator.has_value());
  KeepPartial(attrs, AttrType::kCommunities, !attrs->communities.empty());
  KeepPartial(attrs, AttrType::kExtCommunities, !attrs->rare().ext_communities.empty());
  KeepPartial(attrs, AttrType::kLargeCommunities, !attrs->rare().large_communities.empty());
  KeepPartial(attrs, AttrType::kAs4Path, two_octet && ctx.have_as4_path);
  KeepPartial(attrs, AttrType::kAs4Aggregator, two_octet && ctx.as4_aggregator.has_value());
}

// Keep `unknown` in type-code order so that equal sets compare equal whatever the wire order.
void SortUnknown(const AttrDecodeContext& ctx) {
  if (ctx.attrs->rare().unknown.size() < 2 || !(*ctx.notes & kNoteAttributeOrder)) return;
  std::vector<RawAttribute>& unknown = ctx.attrs->mutable_rare().unknown;
  std::stable_sort(unknown.begin(), unknown.end(),
                   [](const RawAttribute& x, const RawAttribute& y) { return x.type < y.type; });
}

// RFC 6793 §4.2.3: rebuild the 4-octet path from a 2-octet speaker's AS_PATH and AS4_PATH.
void ReconcileAs4(const AttrDecodeContext& ctx) {
  PathAttributes* attrs = ctx.attrs;
  uint32_t* notes = ctx.notes;
  const std::optional<Aggregator>& as4_aggregator = ctx.as4_aggregator;
  const bool have_as4_path = ctx.have_as4_path;
  if (ctx.params.four_octet_as || !(have_as4_path || as4_aggregator)) return;
  if (as4_aggregator && attrs->aggregator && attrs->aggregator->as != kAsTrans) {
    // Both AGGREGATOR (not AS_TRANS) and AS4_AGGREGATOR: AS4_PATH and AS4_AGGREGATOR are
    // ignored.
    *notes |= kNoteAs4Reconciled;
    KeepPartial(attrs, AttrType::kAs4Path, false);
    KeepPartial(attrs, AttrType::kAs4Aggregator, false);
    return;
  }
  if (as4_aggregator && attrs->aggregator) attrs->aggregator = as4_aggregator;
  if (!attrs->aggregator && as4_aggregator) *notes |= kNoteAs4Reconciled;
  if (have_as4_path && attrs->as_path) {
    if (attrs->as_path->PathLength() != ctx.as4_path->PathLength()) *notes |= kNoteAs4Reconciled;
    *attrs->as_path = AsPath::Reconcile(*attrs->as_path, *ctx.as4_path);
  } else if (have_as4_path) {
    *notes |= kNoteAs4Reconciled;
  }
  const bool path_needs = attrs->as_path && attrs->as_path->HasFourOctetAs();
  const bool agg_needs = attrs->aggregator && attrs->aggregator->as > 0xffff;
  KeepPartial(attrs, AttrType::kAs4Path, path_needs);
  KeepPartial(attrs, AttrType::kAs4Aggregator, agg_needs);
  if ((have_as4_path && !path_needs) || (as4_aggregator && !agg_needs)) {
    *notes |= kNoteAs4Unneeded;
  }
}

// The checks once the whole block is read (not made when a session reset stopped it).
void FinishBlock(const AttrDecodeContext& ctx) {
  TrimPartialTypes(ctx);
  SortUnknown(ctx);
  ReconcileAs4(ctx);
}

}  // namespace

[[gnu::noinline]] void AttributeDecoder::Overrun(Bytes rest, size_t header,
                                                 const AttrDecodeContext& ctx) {
  const SessionParams& params = ctx.params;
  UpdateErrors* errors = ctx.errors;
  const uint8_t type = rest[1];
  const size_t len = header == 4 ? LoadU16(rest.data() + 2) : rest[2];
  const size_t value_left = rest.size() - header;
  const std::string what =
      absl::StrFormat("%s (type %d): length %d overruns the attribute list (%d left)",
                      AttrName(type), type, len, value_left);
  other_than_unreach_ = other_than_unreach_ || type != uint8_t(AttrType::kMpUnreachNlri);
  if (params.mrt) {
    // An archive is read as its collector saw it: RFC 7606 §4 alone.
    AddUpdateError(errors, UpdateAction::kTreatAsWithdraw, update_error::kAttributeLengthError, {},
                   what);
    return;
  }
  // Could an MP attribute not parsed yet lie in the octets the bad length swallowed?
  const bool reach_may_hide =
      !Seen(ctx, AttrType::kMpReachNlri) && type != uint8_t(AttrType::kMpReachNlri);
  const bool unreach_may_hide =
      !Seen(ctx, AttrType::kMpUnreachNlri) && type != uint8_t(AttrType::kMpUnreachNlri);
  const bool may_hide = (reach_may_hide || unreach_may_hide) && value_left >= kMinMpAttribute;
  // Is the attribute itself an MP attribute of a family this session uses (or may be)?
  bool mp_lost = false;
  std::optional<AfiSafi> family;  // its AFI/SAFI, when readable
  if (IsMpAttribute(type)) {
    if (value_left < 3) {
      mp_lost = true;
    } else if (const uint16_t afi = LoadU16(rest.data() + header);
               AfiSafi::Supported(afi, rest[header + 2])) {
      family = AfiSafi{Afi(afi), Safi(rest[header + 2])};
      mp_lost = params.families.Has(*family);
    }
  }
  if (mp_lost && family && !may_hide) {
    // RFC 4760 §7, RFC 7606 §3(j): the family's NLRI cannot be read, nothing else is lost: the
    // family goes; the rest of the UPDATE is treat-as-withdraw (RFC 7606 §4).
    errors->disabled_families.Add(*family);
    AddUpdateError(errors, UpdateAction::kAfiSafiDisable, update_error::kOptionalAttributeError,
                   rest, absl::StrFormat("%s: %s", family->ToString(), what));
    AddUpdateError(errors, UpdateAction::kTreatAsWithdraw, update_error::kAttributeLengthError, {},
                   what);
    return;
  }
  if (mp_lost || may_hide) {
    // RFC 7606 §3(j): treat-as-withdraw needs MP_REACH_NLRI and MP_UNREACH_NLRI parsed; here one
    // of them is or may be lost (the withdrawals it carried would stay): the session is reset.
    AddUpdateError(
        errors, UpdateAction::kSessionReset, update_error::kAttributeLengthError, rest,
        mp_lost ? what : what + ", where MP_REACH_NLRI or MP_UNREACH_NLRI may have been");
    return;
  }
  // RFC 7606 §4: treat-as-withdraw; the Total Path Attribute Length locates the NLRI field.
  AddUpdateError(errors, UpdateAction::kTreatAsWithdraw, update_error::kAttributeLengthError, {},
                 what);
}

void AddUpdateError(UpdateErrors* errors, UpdateAction action, uint8_t subcode, Bytes attribute,
                    std::string reason) {
  if (errors->count++ == 0) errors->reason = std::move(reason);
  switch (action) {
    case UpdateAction::kNone:
      break;
    case UpdateAction::kAttributeDiscard:
      if (attribute.size() >= 2) errors->discarded.push_back(attribute[1]);
      break;
    case UpdateAction::kTreatAsWithdraw:
      errors->treat_as_withdraw = true;
      break;
    case UpdateAction::kAfiSafiDisable:
    case UpdateAction::kSessionReset:
      if (action == UpdateAction::kSessionReset) errors->session_reset = true;
      if (errors->notification.code == 0 || action == UpdateAction::kSessionReset) {
        errors->notification.code = uint8_t(ErrorCode::kUpdateMessage);
        errors->notification.subcode = subcode;
        errors->notification.data.assign(attribute.begin(), attribute.end());
      }
      break;
  }
}

inline bool AttributeDecoder::ReadAttribute(ByteReader& r, AttrDecodeContext& ctx, AttrView* out) {
  if (r.empty()) return false;
  const uint8_t* start = r.current();
  const size_t left = r.remaining();
  if (left < 3 || ((start[0] & kFlagExtendedLength) && left < 4)) [[unlikely]] {
    TruncatedHeader(ctx.errors, left);
    return false;
  }
  const uint8_t flags = start[0];
  const uint8_t type = start[1];
  const size_t header = (flags & kFlagExtendedLength) ? 4 : 3;
  const size_t len = header == 4 ? LoadU16(start + 2) : start[2];
  if (left - header < len) [[unlikely]] {
    Overrun(Bytes(start, left), header, ctx);
    return false;
  }
  *out = AttrView{flags, type, Bytes(start + header, len), Bytes(start, header + len)};
  r.Skip(header + len);

  if (header == 4 && len <= 255) *ctx.notes |= kNoteExtendedLength;
  if (type < ctx.last_type) *ctx.notes |= kNoteAttributeOrder;
  ctx.last_type = type > ctx.last_type ? type : ctx.last_type;
  return true;
}

void AttributeDecoder::Decode(Bytes block, const SessionParams& params, AttributeSource source,
                              PathAttributes* attrs, MpNlriField* reach, MpNlriField* unreach,
                              UpdateErrors* errors, uint32_t* notes) {
  // Recycle the AS_PATH vector of the previous decode.
  AsPath as_path_storage = attrs->as_path ? std::move(*attrs->as_path) : AsPath();
  attrs->Clear();
  *reach = MpNlriField();
  *unreach = MpNlriField();
  AttrDecodeContext ctx{.params = params,
                        .source = source,
                        .as_size = params.four_octet_as ? 4 : 2,
                        .strict = !params.mrt,
                        .attrs = attrs,
                        .reach = reach,
                        .unreach = unreach,
                        .errors = errors,
                        .notes = notes,
                        .as_path_storage = &as_path_storage,
                        .as4_path = &as4_path_};
  other_than_unreach_ = false;  // Overrun may set it

  ByteReader r(block);
  AttrView a;
  bool stopped = false;  // a session reset is called for
  while (!stopped && ReadAttribute(r, ctx, &a)) {
    AttrStep step = CheckRepeat(a, ctx);
    if (step == AttrStep::kNext) step = CheckFlags(a, ctx);
    if (step == AttrStep::kNext) step = kAttrDecodeTable[a.type].decode(ctx, a);
    stopped = step == AttrStep::kStop;
  }
  other_than_unreach_ = other_than_unreach_ || SeenOtherThanUnreach(ctx);
  if (!stopped) FinishBlock(ctx);
}

}  // namespace sluice::bgp
