#include "bgp/wire/update_decoder.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace sluice::bgp {
namespace {

// RFC 4271 §6.3 "semantically incorrect" NEXT_HOP values: unspecified, multicast (224/4) and
// class E (240/4, which holds the limited broadcast address).
bool MartianNextHop(net::IPv4Address a) { return a.value() == 0 || (a.value() >> 28) >= 0xe; }

void SessionReset(UpdateMessage* out, uint8_t code, uint8_t subcode, std::string reason,
                  std::vector<uint8_t> data = {}) {
  out->withdrawn.clear();
  out->announced.clear();
  out->attributes.reset();
  out->end_of_rib.reset();
  out->classic_withdrawn = 0;
  out->classic_announced = 0;
  UpdateErrors& e = out->errors;
  if (e.count++ == 0) e.reason = std::move(reason);
  e.session_reset = true;
  e.notification = Notification{code, subcode, std::move(data)};
  out->wire_notes |= kNoteErrors;
}

// Drops the NLRI of `families` from `v`; `classic` counts the leading ones that came from a
// classic field.
void RemoveFamilies(AfiSafiSet families, std::vector<Nlri>* v, uint32_t* classic) {
  size_t kept = 0, kept_classic = 0;
  for (size_t i = 0; i < v->size(); ++i) {
    if (families.Has((*v)[i].family())) continue;
    if (i < *classic) ++kept_classic;
    (*v)[kept++] = (*v)[i];
  }
  v->resize(kept);
  *classic = uint32_t(kept_classic);
}

}  // namespace

std::string_view UpdateActionName(UpdateAction action) {
  switch (action) {
    case UpdateAction::kNone:
      return "ok";
    case UpdateAction::kAttributeDiscard:
      return "attribute-discard";
    case UpdateAction::kTreatAsWithdraw:
      return "treat-as-withdraw";
    case UpdateAction::kAfiSafiDisable:
      return "afi-safi-disable";
    case UpdateAction::kSessionReset:
      return "session-reset";
  }
  return "?";
}

UpdateAction UpdateErrors::action() const {
  if (session_reset) return UpdateAction::kSessionReset;
  if (!disabled_families.empty()) return UpdateAction::kAfiSafiDisable;
  if (treat_as_withdraw) return UpdateAction::kTreatAsWithdraw;
  if (!discarded.empty()) return UpdateAction::kAttributeDiscard;
  return UpdateAction::kNone;
}

void UpdateErrors::Clear() {
  treat_as_withdraw = false;
  disabled_families = AfiSafiSet();
  discarded.clear();
  session_reset = false;
  notification = Notification();
  reason.clear();
  count = 0;
}

void UpdateMessage::Clear() {
  withdrawn.clear();
  announced.clear();
  attributes.reset();
  end_of_rib.reset();
  errors.Clear();
  classic_withdrawn = 0;
  classic_announced = 0;
  wire_notes = 0;
}

void UpdateMessage::DropFamilies(AfiSafiSet families) {
  if (families.empty()) return;
  RemoveFamilies(families, &announced, &classic_announced);
  RemoveFamilies(families, &withdrawn, &classic_withdrawn);
  if (end_of_rib && families.Has(*end_of_rib)) end_of_rib.reset();
  if (announced.empty()) attributes.reset();
}

std::string WireNotesToString(uint32_t notes) {
  static constexpr std::pair<uint32_t, const char*> kNames[] = {
      {kNoteAttributeOrder, "attribute-order"},
      {kNoteExtendedLength, "extended-length"},
      {kNoteFlags, "flags"},
      {kNoteHostBits, "host-bits"},
      {kNoteMpReserved, "mp-reserved"},
      {kNoteAs4Reconciled, "as4-reconciled"},
      {kNoteAs4Unneeded, "as4-unneeded"},
      {kNoteDroppedAttribute, "dropped-attribute"},
      {kNoteAttributesWithoutNlri, "attributes-without-nlri"},
      {kNoteMpLayout, "mp-layout"},
      {kNoteErrors, "errors"},
  };
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if (notes & bit) {
      if (!out.empty()) out += ',';
      out += name;
    }
  }
  return out;
}

UpdateDecoder::UpdateDecoder(const SessionParams& params, AttributeStore* store)
    : params_(params), store_(store) {}

void UpdateDecoder::Decode(Bytes message, UpdateMessage* out) {
  if (message.size() < size_t(kHeaderSize) || message[18] != uint8_t(MessageType::kUpdate) ||
      LoadU16(message.data() + 16) != message.size()) {
    out->Clear();
    uint8_t len[2];
    StoreU16(len, uint16_t(message.size()));
    SessionReset(out, uint8_t(ErrorCode::kMessageHeader), header_error::kBadMessageLength,
                 absl::StrFormat("not an UPDATE message of %d octets", message.size()),
                 std::vector<uint8_t>(len, len + 2));
    return;
  }
  DecodeBody(message.subspan(kHeaderSize), out);
}

void UpdateDecoder::DecodeBody(Bytes body, UpdateMessage* out) {
  out->Clear();
  constexpr uint8_t kUpdateCode = uint8_t(ErrorCode::kUpdateMessage);
  if (body.size() < 4) {
    SessionReset(out, kUpdateCode, update_error::kMalformedAttributeList,
                 absl::StrFormat("UPDATE body of %d octets (at least 4)", body.size()));
    return;
  }
  const size_t withdrawn_len = LoadU16(body.data());
  if (2 + withdrawn_len + 2 > body.size()) {
    SessionReset(out, kUpdateCode, update_error::kMalformedAttributeList,
                 absl::StrFormat("Withdrawn Routes Length %d overruns the UPDATE", withdrawn_len));
    return;
  }
  const size_t attr_len = LoadU16(body.data() + 2 + withdrawn_len);
  if (4 + withdrawn_len + attr_len > body.size()) {
    SessionReset(out, kUpdateCode, update_error::kMalformedAttributeList,
                 absl::StrFormat("Total Path Attribute Length %d overruns the UPDATE", attr_len));
    return;
  }
  const Bytes withdrawn = body.subspan(2, withdrawn_len);
  const Bytes attr_block = body.subspan(4 + withdrawn_len, attr_len);
  const Bytes nlri = body.subspan(4 + withdrawn_len + attr_len);
  const bool add_path4 = params_.add_path_receive.Has(kIPv4Unicast);
  uint32_t notes = 0;
  bool host_bits = false;

  absl::Status st =
      DecodeNlri(withdrawn, Afi::kIPv4, Safi::kUnicast, add_path4, &out->withdrawn, &host_bits);
  if (!st.ok()) {
    SessionReset(out, kUpdateCode, update_error::kInvalidNetworkField,
                 absl::StrFormat("Withdrawn Routes: %s", st.message()));
    return;
  }
  if (host_bits) notes |= kNoteHostBits;
  if (withdrawn_len == 0 && attr_len == 0 && nlri.empty()) {
    out->end_of_rib = kIPv4Unicast;  // RFC 4724 §2
    return;
  }

  MpNlriField reach, unreach;
  attribute_decoder_.Decode(attr_block, params_, AttributeSource::kUpdate, &scratch_, &reach,
                            &unreach, &out->errors, &notes);
  if (out->errors.session_reset) {
    out->withdrawn.clear();
    out->wire_notes = notes | kNoteErrors;
    return;
  }

  // Withdrawn Routes then MP_UNREACH_NLRI; the NLRI field then MP_REACH_NLRI.
  out->classic_withdrawn = uint32_t(out->withdrawn.size());
  if (unreach.usable) {
    const size_t before = out->withdrawn.size();
    st = DecodeNlri(unreach.nlri, unreach.family.afi, unreach.family.safi,
                    params_.add_path_receive.Has(unreach.family), &out->withdrawn, &host_bits);
    if (!st.ok()) {
      out->withdrawn.resize(before);
      out->errors.disabled_families.Add(unreach.family);
      AddUpdateError(
          &out->errors, UpdateAction::kAfiSafiDisable, update_error::kOptionalAttributeError, {},
          absl::StrFormat("MP_UNREACH_NLRI %s: %s", unreach.family.ToString(), st.message()));
    } else {
      if (host_bits) notes |= kNoteHostBits;
      if (unreach.nlri.empty() && withdrawn_len == 0 && nlri.empty() && !reach.present &&
          scratch_ == PathAttributes()) {
        out->end_of_rib = unreach.family;  // RFC 4724 §2
      }
    }
  }
  st = DecodeNlri(nlri, Afi::kIPv4, Safi::kUnicast, add_path4, &out->announced, &host_bits);
  if (!st.ok()) {
    SessionReset(out, kUpdateCode, update_error::kInvalidNetworkField,
                 absl::StrFormat("NLRI: %s", st.message()));
    return;
  }
  if (host_bits) notes |= kNoteHostBits;
  out->classic_announced = uint32_t(out->announced.size());
  const bool has_classic = !out->announced.empty();
  if (reach.usable && !reach.nlri.empty()) {
    const size_t before = out->announced.size();
    st = DecodeNlri(reach.nlri, reach.family.afi, reach.family.safi,
                    params_.add_path_receive.Has(reach.family), &out->announced, &host_bits);
    if (!st.ok()) {
      out->announced.resize(before);
      out->errors.disabled_families.Add(reach.family);
      AddUpdateError(
          &out->errors, UpdateAction::kAfiSafiDisable, update_error::kOptionalAttributeError, {},
          absl::StrFormat("MP_REACH_NLRI %s: %s", reach.family.ToString(), st.message()));
    } else {
      if (host_bits) notes |= kNoteHostBits;
      if (reach.family == kIPv4Unicast && has_classic) notes |= kNoteMpLayout;
    }
  } else if (reach.usable) {
    notes |= kNoteMpLayout;  // MP_REACH_NLRI without NLRI: its nexthop is of no route
    scratch_.mp_next_hop.reset();
  }

  if (!params_.mrt && !out->announced.empty()) {
    // RFC 7606 §3(d): missing well-known mandatory attributes → treat-as-withdraw.
    auto missing = [out](std::string_view name) {
      UpdateErrors& e = out->errors;
      if (e.count++ == 0) e.reason = absl::StrFormat("missing well-known attribute %s", name);
      e.treat_as_withdraw = true;
    };
    if (!scratch_.origin) missing("ORIGIN");
    if (!scratch_.as_path) missing("AS_PATH");
    if (has_classic && !scratch_.next_hop) missing("NEXT_HOP");
    if (has_classic && scratch_.next_hop && MartianNextHop(*scratch_.next_hop)) {
      UpdateErrors& e = out->errors;
      if (e.count++ == 0) {
        e.reason = absl::StrFormat("NEXT_HOP %s is not a unicast host address",
                                   scratch_.next_hop->ToString());
      }
      e.treat_as_withdraw = true;  // RFC 4271 §6.3: the route is ignored
    }
    CheckFirstAs(out);
  }
  if (ResetForMissingNlri(!nlri.empty() || reach.present, out)) {
    out->wire_notes |= notes;
    return;
  }

  out->DropFamilies(out->errors.disabled_families);
  if (out->errors.treat_as_withdraw) {
    out->withdrawn.insert(out->withdrawn.end(), out->announced.begin(), out->announced.end());
    out->announced.clear();
    out->classic_announced = 0;
  }
  if (!out->announced.empty()) {
    out->attributes = store_->Intern(scratch_);
  } else if (attr_len > 0 && !out->errors.treat_as_withdraw && !(scratch_ == PathAttributes())) {
    notes |= kNoteAttributesWithoutNlri;
  }
  if (out->errors.count > 0) notes |= kNoteErrors;
  out->wire_notes = notes;
}

bool UpdateDecoder::ResetForMissingNlri(bool reachable, UpdateMessage* out) const {
  if (params_.mrt || reachable || !attribute_decoder_.carried_other_than_mp_unreach()) return false;
  if (!out->errors.treat_as_withdraw && out->errors.disabled_families.empty()) return false;
  // RFC 7606 §5.2: path attributes and an error, but no reachable NLRI: the NLRI may not have
  // been parsed as §3(j) requires (a lost MP_REACH_NLRI or MP_UNREACH_NLRI), so no
  // treat-as-withdraw.
  std::string reason =
      absl::StrFormat("%s, in an UPDATE with path attributes but no reachable NLRI (RFC 7606 §5.2)",
                      out->errors.reason);
  SessionReset(out, uint8_t(ErrorCode::kUpdateMessage), update_error::kMalformedAttributeList, "");
  out->errors.reason = std::move(reason);
  return true;
}

void UpdateDecoder::CheckFirstAs(UpdateMessage* out) const {
  if (params_.enforce_first_as == 0 || !scratch_.as_path) return;
  const uint32_t first = scratch_.as_path->FirstAs();
  if (first == params_.enforce_first_as) return;
  // RFC 4271 §6.3 lets a speaker check that an external peer's AS_PATH starts with the peer's
  // AS (Malformed AS_PATH); RFC 7606 §7.2 says routes failing it SHOULD be treat-as-withdraw
  // rather than reset the session — as FRR (since 7.4) and BIRD do.
  UpdateErrors& e = out->errors;
  if (e.count++ == 0) {
    e.reason = first == 0 ? absl::StrFormat(
                                "AS_PATH \"%s\" does not start with the peer's AS "
                                "%u (enforce-first-as, RFC 4271 §6.3)",
                                scratch_.as_path->ToString(), params_.enforce_first_as)
                          : absl::StrFormat(
                                "AS_PATH starts with AS %u, not the peer's AS %u "
                                "(enforce-first-as, RFC 4271 §6.3)",
                                first, params_.enforce_first_as);
  }
  e.treat_as_withdraw = true;
}

}  // namespace sluice::bgp
