#include "bgp/wire/attribute_decoder.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_format.h"

namespace sluice::bgp {
namespace {

constexpr uint8_t kUnknownType = 0xff;

// The Optional and Transitive bits an attribute must carry (RFC 4271 §5 and the RFC defining it);
// kUnknownType for types this codec does not interpret.
constexpr uint8_t ExpectedFlags(uint8_t type) {
  switch (type) {
    case 1:
    case 2:
    case 3:
    case 5:
    case 6:
      return kFlagTransitive;  // well-known
    case 4:
    case 9:
    case 10:
    case 14:
    case 15:
      return kFlagOptional;  // optional non-transitive
    case 7:
    case 8:
    case 16:
    case 17:
    case 18:
    case 32:
      return kFlagOptional | kFlagTransitive;
    default:
      return kUnknownType;
  }
}

std::string_view AttrName(uint8_t type) {
  switch (type) {
    case 1:
      return "ORIGIN";
    case 2:
      return "AS_PATH";
    case 3:
      return "NEXT_HOP";
    case 4:
      return "MULTI_EXIT_DISC";
    case 5:
      return "LOCAL_PREF";
    case 6:
      return "ATOMIC_AGGREGATE";
    case 7:
      return "AGGREGATOR";
    case 8:
      return "COMMUNITIES";
    case 9:
      return "ORIGINATOR_ID";
    case 10:
      return "CLUSTER_LIST";
    case 14:
      return "MP_REACH_NLRI";
    case 15:
      return "MP_UNREACH_NLRI";
    case 16:
      return "EXTENDED_COMMUNITIES";
    case 17:
      return "AS4_PATH";
    case 18:
      return "AS4_AGGREGATOR";
    case 32:
      return "LARGE_COMMUNITY";
    default:
      return "attribute";
  }
}

std::string LengthError(uint8_t type, size_t len, std::string_view expected) {
  return absl::StrFormat("%s: length %d, %s expected", AttrName(type), len, expected);
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

// The smallest attribute that can be MP_REACH_NLRI or MP_UNREACH_NLRI: a 3-octet header, AFI
// and SAFI.
constexpr size_t kMinMpAttribute = 6;

bool IsMpAttribute(uint8_t type) {
  return type == uint8_t(AttrType::kMpReachNlri) || type == uint8_t(AttrType::kMpUnreachNlri);
}

}  // namespace

void AttributeDecoder::Overrun(Bytes rest, size_t header, const SessionParams& params,
                               UpdateErrors* errors) {
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
  const bool reach_may_hide = !seen_reach_ && type != uint8_t(AttrType::kMpReachNlri);
  const bool unreach_may_hide = !seen_unreach_ && type != uint8_t(AttrType::kMpUnreachNlri);
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

void AttributeDecoder::Decode(Bytes block, const SessionParams& params, AttributeSource source,
                              PathAttributes* attrs, MpNlriField* reach, MpNlriField* unreach,
                              UpdateErrors* errors, uint32_t* notes) {
  // Recycle the AS_PATH vector of the previous decode.
  AsPath as_path_storage = attrs->as_path ? std::move(*attrs->as_path) : AsPath();
  attrs->Clear();
  *reach = MpNlriField();
  *unreach = MpNlriField();
  const int as_size = params.four_octet_as ? 4 : 2;
  const bool strict = !params.mrt;
  uint64_t seen[4] = {0, 0, 0, 0};
  seen_reach_ = false;
  seen_unreach_ = false;
  other_than_unreach_ = false;
  int last_type = -1;
  bool have_as4_path = false;
  std::optional<Aggregator> as4_aggregator;

  ByteReader r(block);
  while (!r.empty()) {
    const uint8_t* start = r.current();
    const size_t left = r.remaining();
    if (left < 3 || ((start[0] & kFlagExtendedLength) && left < 4)) {
      // RFC 7606 §4: too little left for an attribute header.
      AddUpdateError(
          errors, UpdateAction::kTreatAsWithdraw, update_error::kMalformedAttributeList, {},
          absl::StrFormat("path attributes: %d octets left after the last attribute", left));
      break;
    }
    const uint8_t flags = start[0];
    const uint8_t type = start[1];
    const size_t header = (flags & kFlagExtendedLength) ? 4 : 3;
    const size_t len = header == 4 ? LoadU16(start + 2) : start[2];
    if (left - header < len) {
      Overrun(Bytes(start, left), header, params, errors);
      break;
    }
    const Bytes value(start + header, len);
    const Bytes whole(start, header + len);
    r.Skip(header + len);

    if (header == 4 && len <= 255) *notes |= kNoteExtendedLength;
    if (type < last_type) *notes |= kNoteAttributeOrder;
    last_type = type > last_type ? type : last_type;

    // RFC 7606 §3(g): a repeated MP attribute resets the session; other repeats are discarded.
    uint64_t& seen_word = seen[type >> 6];
    const uint64_t seen_bit = uint64_t{1} << (type & 63);
    if (seen_word & seen_bit) {
      if (type == uint8_t(AttrType::kMpReachNlri) || type == uint8_t(AttrType::kMpUnreachNlri)) {
        AddUpdateError(errors, UpdateAction::kSessionReset, update_error::kMalformedAttributeList,
                       {}, absl::StrFormat("%s appears twice", AttrName(type)));
        return;
      }
      *notes |= kNoteDroppedAttribute;
      AddUpdateError(errors, UpdateAction::kAttributeDiscard, update_error::kMalformedAttributeList,
                     whole, absl::StrFormat("%s (type %d) appears twice", AttrName(type), type));
      continue;
    }
    seen_word |= seen_bit;
    seen_reach_ = seen_reach_ || type == uint8_t(AttrType::kMpReachNlri);
    seen_unreach_ = seen_unreach_ || type == uint8_t(AttrType::kMpUnreachNlri);
    other_than_unreach_ = other_than_unreach_ || type != uint8_t(AttrType::kMpUnreachNlri);

    const uint8_t expected = ExpectedFlags(type);
    if (expected != kUnknownType) {
      if ((flags & (kFlagOptional | kFlagTransitive)) != expected) {
        // RFC 7606 §3(c): conflicting Optional/Transitive bits → treat-as-withdraw.
        AddUpdateError(
            errors, UpdateAction::kTreatAsWithdraw, update_error::kAttributeFlagsError, whole,
            absl::StrFormat("%s: flags 0x%02x, expected 0x%02x", AttrName(type), flags, expected));
        if (type != uint8_t(AttrType::kMpReachNlri) && type != uint8_t(AttrType::kMpUnreachNlri)) {
          continue;
        }
      }
      const bool opt_trans = expected == (kFlagOptional | kFlagTransitive);
      const uint8_t partial = flags & kFlagPartial;
      if ((flags & ~kFlagExtendedLength) != (expected | (opt_trans ? partial : 0))) {
        *notes |= kNoteFlags;
      }
      if (opt_trans && partial) attrs->partial_types |= uint64_t{1} << type;
    }

    switch (AttrType(type)) {
      case AttrType::kOrigin:
        if (len != 1 || value[0] > 2) {
          AddUpdateError(errors, UpdateAction::kTreatAsWithdraw,
                         update_error::kInvalidOriginAttribute, whole,
                         len != 1 ? LengthError(type, len, "1")
                                  : absl::StrFormat("ORIGIN: undefined value %d", value[0]));
          break;
        }
        attrs->origin = Origin(value[0]);
        break;

      case AttrType::kAsPath: {
        attrs->as_path.emplace(std::move(as_path_storage));
        absl::Status st = AsPath::Decode(value, as_size, &*attrs->as_path);
        if (!st.ok()) {
          AddUpdateError(errors, UpdateAction::kTreatAsWithdraw, update_error::kMalformedAsPath,
                         whole, std::string(st.message()));
          attrs->as_path.reset();
          break;
        }
        if (strict && params.external && attrs->as_path->HasConfedSegments()) {
          AddUpdateError(errors, UpdateAction::kTreatAsWithdraw, update_error::kMalformedAsPath,
                         whole, "AS_PATH: confederation segment from an external peer");
        }
        if (strict && attrs->as_path->Contains(0)) {
          AddUpdateError(errors, UpdateAction::kTreatAsWithdraw, update_error::kMalformedAsPath,
                         whole, "AS_PATH: AS 0 (RFC 7607)");
        }
        break;
      }

      case AttrType::kNextHop:
        if (len != 4) {
          AddUpdateError(errors, UpdateAction::kTreatAsWithdraw,
                         update_error::kAttributeLengthError, whole, LengthError(type, len, "4"));
          break;
        }
        attrs->next_hop = net::IPv4Address(LoadU32(value.data()));
        break;

      case AttrType::kMultiExitDisc:
        if (len != 4) {
          AddUpdateError(errors, UpdateAction::kTreatAsWithdraw,
                         update_error::kAttributeLengthError, whole, LengthError(type, len, "4"));
          break;
        }
        attrs->med = LoadU32(value.data());
        break;

      case AttrType::kLocalPref:
        if (strict && params.external) {
          // RFC 7606 §7.5: LOCAL_PREF from an external peer is discarded.
          *notes |= kNoteDroppedAttribute;
          AddUpdateError(errors, UpdateAction::kAttributeDiscard,
                         update_error::kAttributeLengthError, whole,
                         "LOCAL_PREF from an external peer");
          break;
        }
        if (len != 4) {
          AddUpdateError(errors, UpdateAction::kTreatAsWithdraw,
                         update_error::kAttributeLengthError, whole, LengthError(type, len, "4"));
          break;
        }
        attrs->local_pref = LoadU32(value.data());
        break;

      case AttrType::kAtomicAggregate:
        if (len != 0) {
          *notes |= kNoteDroppedAttribute;
          AddUpdateError(errors, UpdateAction::kAttributeDiscard,
                         update_error::kAttributeLengthError, whole, LengthError(type, len, "0"));
          break;
        }
        attrs->atomic_aggregate = true;
        break;

      case AttrType::kAggregator: {
        if (len != size_t(as_size + 4)) {
          *notes |= kNoteDroppedAttribute;
          AddUpdateError(errors, UpdateAction::kAttributeDiscard,
                         update_error::kAttributeLengthError, whole,
                         LengthError(type, len, as_size == 4 ? "8" : "6"));
          break;
        }
        Aggregator a;
        a.as = as_size == 4 ? LoadU32(value.data()) : LoadU16(value.data());
        a.address = net::IPv4Address(LoadU32(value.data() + as_size));
        if (strict && a.as == 0) {
          *notes |= kNoteDroppedAttribute;
          AddUpdateError(errors, UpdateAction::kAttributeDiscard,
                         update_error::kOptionalAttributeError, whole,
                         "AGGREGATOR: AS 0 (RFC 7607)");
          break;
        }
        attrs->aggregator = a;
        break;
      }

      case AttrType::kCommunities:
        if (len == 0 || len % 4 != 0) {
          AddUpdateError(errors, UpdateAction::kTreatAsWithdraw,
                         update_error::kOptionalAttributeError, whole,
                         LengthError(type, len, "a non-zero multiple of 4"));
          break;
        }
        attrs->communities.resize(len / 4);
        for (size_t i = 0; i < len / 4; ++i) attrs->communities[i] = LoadU32(value.data() + 4 * i);
        break;

      case AttrType::kOriginatorId:
        if (len != 4) {
          AddUpdateError(errors, UpdateAction::kTreatAsWithdraw,
                         update_error::kOptionalAttributeError, whole, LengthError(type, len, "4"));
          break;
        }
        attrs->originator_id = net::IPv4Address(LoadU32(value.data()));
        break;

      case AttrType::kClusterList:
        if (len == 0 || len % 4 != 0) {
          AddUpdateError(errors, UpdateAction::kTreatAsWithdraw,
                         update_error::kOptionalAttributeError, whole,
                         LengthError(type, len, "a non-zero multiple of 4"));
          break;
        }
        attrs->cluster_list.resize(len / 4);
        for (size_t i = 0; i < len / 4; ++i) attrs->cluster_list[i] = LoadU32(value.data() + 4 * i);
        break;

      case AttrType::kMpReachNlri: {
        reach->present = true;
        if (source == AttributeSource::kMrtRibEntry && len > 0 && value[0] != 0) {
          // RFC 6396 §4.3.4: only the nexthop length and nexthop.
          MpNextHop nh;
          if (size_t(value[0]) + 1 > len || !ParseMpNextHop(value.data() + 1, value[0], &nh)) {
            AddUpdateError(errors, UpdateAction::kTreatAsWithdraw,
                           update_error::kOptionalAttributeError, whole,
                           absl::StrFormat("MP_REACH_NLRI: bad nexthop length %d", value[0]));
            break;
          }
          attrs->mp_next_hop = nh;
          reach->usable = true;
          break;
        }
        if (len < 5) {
          AddUpdateError(errors, UpdateAction::kSessionReset, update_error::kOptionalAttributeError,
                         whole, LengthError(type, len, "at least 5"));
          return;
        }
        const uint16_t afi = LoadU16(value.data());
        const uint8_t safi = value[2];
        const size_t nh_len = value[3];
        if (!AfiSafi::Supported(afi, safi)) {
          *notes |= kNoteMpLayout;
          break;
        }
        reach->family = AfiSafi{Afi(afi), Safi(safi)};
        if (!params.families.Has(reach->family)) {
          *notes |= kNoteMpLayout;
          break;
        }
        MpNextHop nh;
        const bool nh_fits = 4 + nh_len + 1 <= len;
        const bool nh_ok = nh_fits && (afi == 1 ? (nh_len == 4 || nh_len == 16 || nh_len == 32)
                                                : (nh_len == 16 || nh_len == 32));
        if (!nh_ok || !ParseMpNextHop(value.data() + 4, nh_len, &nh)) {
          // RFC 7606 §7.11: the NLRI cannot be located reliably.
          errors->disabled_families.Add(reach->family);
          AddUpdateError(
              errors, UpdateAction::kAfiSafiDisable, update_error::kOptionalAttributeError, whole,
              absl::StrFormat("MP_REACH_NLRI %s: nexthop length %d%s", reach->family.ToString(),
                              nh_len, nh_fits ? " is not valid" : " overruns the attribute"));
          break;
        }
        attrs->mp_next_hop = nh;
        if (value[4 + nh_len] != 0) *notes |= kNoteMpReserved;
        reach->nlri = value.subspan(4 + nh_len + 1);
        reach->usable = true;
        break;
      }

      case AttrType::kMpUnreachNlri: {
        unreach->present = true;
        if (len < 3) {
          AddUpdateError(errors, UpdateAction::kSessionReset, update_error::kOptionalAttributeError,
                         whole, LengthError(type, len, "at least 3"));
          return;
        }
        const uint16_t afi = LoadU16(value.data());
        const uint8_t safi = value[2];
        if (!AfiSafi::Supported(afi, safi)) {
          *notes |= kNoteMpLayout;
          break;
        }
        unreach->family = AfiSafi{Afi(afi), Safi(safi)};
        if (!params.families.Has(unreach->family)) {
          *notes |= kNoteMpLayout;
          break;
        }
        unreach->nlri = value.subspan(3);
        unreach->usable = true;
        break;
      }

      case AttrType::kExtCommunities:
        if (len == 0 || len % 8 != 0) {
          AddUpdateError(errors, UpdateAction::kTreatAsWithdraw,
                         update_error::kOptionalAttributeError, whole,
                         LengthError(type, len, "a non-zero multiple of 8"));
          break;
        }
        attrs->ext_communities.resize(len / 8);
        for (size_t i = 0; i < len / 8; ++i) {
          attrs->ext_communities[i] = LoadU64(value.data() + 8 * i);
        }
        break;

      case AttrType::kAs4Path: {
        if (params.four_octet_as) {
          // RFC 6793 §4.1: a NEW speaker does not send AS4_PATH to a NEW speaker; ignore it.
          *notes |= kNoteDroppedAttribute;
          break;
        }
        absl::Status st = AsPath::Decode(value, 4, &as4_path_);
        std::string problem;
        if (!st.ok()) {
          problem = std::string(st.message());
        } else if (as4_path_.HasConfedSegments()) {
          problem = "AS4_PATH: confederation segment";
        } else if (strict && as4_path_.Contains(0)) {
          problem = "AS4_PATH: AS 0 (RFC 7607)";
        }
        if (!problem.empty()) {
          // RFC 6793 §6: a malformed AS4_PATH is discarded.
          *notes |= kNoteDroppedAttribute;
          AddUpdateError(errors, UpdateAction::kAttributeDiscard,
                         update_error::kOptionalAttributeError, whole, problem);
          break;
        }
        have_as4_path = true;
        break;
      }

      case AttrType::kAs4Aggregator:
        if (params.four_octet_as) {
          *notes |= kNoteDroppedAttribute;
          break;
        }
        if (len != 8 || (strict && LoadU32(value.data()) == 0)) {
          *notes |= kNoteDroppedAttribute;
          AddUpdateError(
              errors, UpdateAction::kAttributeDiscard, update_error::kOptionalAttributeError, whole,
              len != 8 ? LengthError(type, len, "8") : "AS4_AGGREGATOR: AS 0 (RFC 7607)");
          break;
        }
        as4_aggregator =
            Aggregator{LoadU32(value.data()), net::IPv4Address(LoadU32(value.data() + 4))};
        break;

      case AttrType::kLargeCommunities:
        if (len == 0 || len % 12 != 0) {
          AddUpdateError(errors, UpdateAction::kTreatAsWithdraw,
                         update_error::kOptionalAttributeError, whole,
                         LengthError(type, len, "a non-zero multiple of 12"));
          break;
        }
        attrs->large_communities.resize(len / 12);
        for (size_t i = 0; i < len / 12; ++i) {
          const uint8_t* p = value.data() + 12 * i;
          attrs->large_communities[i] = LargeCommunity{LoadU32(p), LoadU32(p + 4), LoadU32(p + 8)};
        }
        break;

      default:
        if (!(flags & kFlagOptional)) {
          // RFC 4271 §6.3: an unrecognized well-known attribute.
          AddUpdateError(errors, UpdateAction::kSessionReset,
                         update_error::kUnrecognizedWellKnownAttribute, whole,
                         absl::StrFormat("unrecognized well-known attribute type %d", type));
          return;
        }
        if (!(flags & kFlagTransitive)) {
          *notes |= kNoteDroppedAttribute;  // RFC 4271 §5: quietly ignored
          break;
        }
        if (flags & 0x0f) *notes |= kNoteFlags;
        attrs->unknown.push_back(
            RawAttribute{uint8_t(flags & (kFlagOptional | kFlagTransitive | kFlagPartial)), type,
                         std::vector<uint8_t>(value.begin(), value.end())});
        break;
    }
  }

  // Remember Partial only for attributes the set holds (and, for AS4_PATH/AS4_AGGREGATOR, only
  // where a 2-octet encoding will carry them again), so that equal routes make equal sets.
  auto keep_partial = [&](AttrType t, bool keep) {
    if (!keep) attrs->partial_types &= ~(uint64_t{1} << uint8_t(t));
  };
  if (attrs->partial_types != 0) {
    keep_partial(AttrType::kAggregator, attrs->aggregator.has_value());
    keep_partial(AttrType::kCommunities, !attrs->communities.empty());
    keep_partial(AttrType::kExtCommunities, !attrs->ext_communities.empty());
    keep_partial(AttrType::kLargeCommunities, !attrs->large_communities.empty());
    keep_partial(AttrType::kAs4Path, !params.four_octet_as && have_as4_path);
    keep_partial(AttrType::kAs4Aggregator, !params.four_octet_as && as4_aggregator.has_value());
  }

  if (attrs->unknown.size() > 1 && (*notes & kNoteAttributeOrder)) {
    // Keep `unknown` in type-code order so that equal sets compare equal whatever the wire order.
    std::stable_sort(attrs->unknown.begin(), attrs->unknown.end(),
                     [](const RawAttribute& x, const RawAttribute& y) { return x.type < y.type; });
  }

  // RFC 6793 §4.2.3: rebuild the 4-octet path from a 2-octet speaker's AS_PATH and AS4_PATH.
  if (!params.four_octet_as && (have_as4_path || as4_aggregator)) {
    if (as4_aggregator && attrs->aggregator && attrs->aggregator->as != kAsTrans) {
      // Both AGGREGATOR (not AS_TRANS) and AS4_AGGREGATOR: AS4_PATH and AS4_AGGREGATOR are
      // ignored.
      *notes |= kNoteAs4Reconciled;
      keep_partial(AttrType::kAs4Path, false);
      keep_partial(AttrType::kAs4Aggregator, false);
      return;
    }
    if (as4_aggregator && attrs->aggregator) attrs->aggregator = as4_aggregator;
    if (!attrs->aggregator && as4_aggregator) *notes |= kNoteAs4Reconciled;
    if (have_as4_path && attrs->as_path) {
      if (attrs->as_path->PathLength() != as4_path_.PathLength()) *notes |= kNoteAs4Reconciled;
      *attrs->as_path = AsPath::Reconcile(*attrs->as_path, as4_path_);
    } else if (have_as4_path) {
      *notes |= kNoteAs4Reconciled;
    }
    const bool path_needs = attrs->as_path && attrs->as_path->HasFourOctetAs();
    const bool agg_needs = attrs->aggregator && attrs->aggregator->as > 0xffff;
    keep_partial(AttrType::kAs4Path, path_needs);
    keep_partial(AttrType::kAs4Aggregator, agg_needs);
    if ((have_as4_path && !path_needs) || (as4_aggregator && !agg_needs)) {
      *notes |= kNoteAs4Unneeded;
    }
  }
}

}  // namespace sluice::bgp
