#include "bgp/mrt/bgpdump_format.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::bgp::mrt {
namespace {

const char* kNoAddress = "255.255.255.255";  // bgpdump's INADDR_NONE for a missing address

std::string AsPathText(const PathAttributes* a) {
  return a && a->as_path ? a->as_path->ToString() : std::string();
}

std::string OriginText(const PathAttributes* a) {
  return std::string(a && a->origin ? OriginName(*a->origin) : OriginName(Origin::kIncomplete));
}

// "|communities|AG|aggregator|" — the tail every A and B line shares.
void AppendTail(const PathAttributes* a, std::string* out) {
  *out += '|';
  if (a) {
    for (size_t i = 0; i < a->communities.size(); ++i) {
      if (i) *out += ' ';
      *out += CommunityToString(a->communities[i]);
    }
  }
  *out += a && a->atomic_aggregate ? "|AG|" : "|NAG|";
  if (a && a->aggregator && a->aggregator->address.value() != 0xffffffff) {
    absl::StrAppend(out, a->aggregator->as, " ", a->aggregator->address.ToString());
  }
  *out += "|\n";
}

// "nexthop|lpref|med", `sign` printing the numbers as signed 32-bit (bgpdump's %d).
void AppendNextHopPrefMed(const std::string& nexthop, const PathAttributes* a, bool sign,
                          std::string* out) {
  const uint32_t pref = a && a->local_pref ? *a->local_pref : 0;
  const uint32_t med = a && a->med ? *a->med : 0;
  if (sign) {
    absl::StrAppend(out, nexthop, "|", int32_t(pref), "|", int32_t(med));
  } else {
    absl::StrAppend(out, nexthop, "|", pref, "|", med);
  }
}

std::string Time(const MrtRecord& r) {
  if (r.type == uint16_t(MrtType::kBgp4mpEt)) {
    return absl::StrFormat("%u.%06u", r.timestamp, r.microseconds);
  }
  return absl::StrCat(r.timestamp);
}

// The RIB-entry nexthop: the MP_REACH_NLRI nexthop when there is one (bgpdump shows it as IPv6),
// else NEXT_HOP.
std::string RibNextHop(const PathAttributes* a) {
  if (a && a->mp_next_hop) {
    if (a->mp_next_hop->global.is_v6()) return a->mp_next_hop->global.ToString();
    uint8_t b[16] = {};
    a->mp_next_hop->global.v4().ToBytes(b);
    return net::IPv6Address::FromBytes(b).ToString();
  }
  return a && a->next_hop ? a->next_hop->ToString() : kNoAddress;
}

}  // namespace

BgpdumpFormatter::BgpdumpFormatter(AttributeStore* store)
    : update_decoder_(SessionParams::ForMrt(true, false), store), rib_decoder_(store) {}

void BgpdumpFormatter::NoteError(std::string error) {
  if (stats_.decode_errors++ == 0) stats_.first_error = std::move(error);
}

void BgpdumpFormatter::Format(const MrtRecord& record, std::string* out) {
  ++stats_.records;
  if (IsBgp4mpMessage(record)) {
    Bgp4mpMessage m;
    absl::Status st = DecodeBgp4mpMessage(record, &m);
    if (!st.ok()) return NoteError(std::string(st.message()));
    if (m.message.size() >= size_t(kHeaderSize) && m.message[18] == uint8_t(MessageType::kUpdate)) {
      FormatUpdate(record, m, out);
    }
    return;
  }
  if (IsBgp4mpStateChange(record)) {
    Bgp4mpStateChange s;
    absl::Status st = DecodeBgp4mpStateChange(record, &s);
    if (!st.ok()) return NoteError(std::string(st.message()));
    absl::StrAppend(out, record.type == uint16_t(MrtType::kBgp4mpEt) ? "BGP4MP_ET" : "BGP4MP", "|",
                    Time(record), "|STATE|", s.peer_address.ToString(), "|", s.peer_as, "|",
                    s.old_state, "|", s.new_state, "\n");
    return;
  }
  if (record.type == uint16_t(MrtType::kTableDumpV2) &&
      record.subtype == uint16_t(TableDumpV2Subtype::kPeerIndexTable)) {
    absl::Status st = DecodePeerIndexTable(record, &peers_);
    if (!st.ok()) NoteError(std::string(st.message()));
    return;
  }
  if (IsRib(record)) {
    absl::Status st = rib_decoder_.DecodeRib(record, &rib_);
    if (!st.ok()) NoteError(std::string(st.message()));  // print the entries read so far
    const std::string prefix = rib_.prefix.ToString();
    for (const RibEntry& e : rib_.entries) {
      const PathAttributes* a = e.attributes.get();
      if (!a) continue;
      std::string peer = "?", peer_as = "0";
      if (e.peer_index < peers_.peers.size()) {
        peer = peers_.peers[e.peer_index].address.ToString();
        peer_as = absl::StrCat(peers_.peers[e.peer_index].as);
      }
      absl::StrAppend(out, rib_.add_path ? "TABLE_DUMP2_AP|" : "TABLE_DUMP2|", record.timestamp,
                      "|B|", peer, "|", peer_as, "|", prefix, "|");
      if (rib_.add_path) absl::StrAppend(out, e.path_id, "|");
      absl::StrAppend(out, AsPathText(a), "|", OriginText(a), "|");
      AppendNextHopPrefMed(RibNextHop(a), a, false, out);
      AppendTail(a, out);
    }
    return;
  }
  if (record.type == uint16_t(MrtType::kTableDump)) {
    absl::Status st = rib_decoder_.DecodeTableDump(record, &table_dump_);
    if (!st.ok()) return NoteError(std::string(st.message()));
    const PathAttributes* a = table_dump_.attributes.get();
    if (!a) return;
    absl::StrAppend(out, "TABLE_DUMP|", record.timestamp, "|B|",
                    table_dump_.peer_address.ToString(), "|", table_dump_.peer_as, "|",
                    table_dump_.prefix.ToString(), "|", AsPathText(a), "|", OriginText(a), "|");
    AppendNextHopPrefMed(RibNextHop(a), a, false, out);
    AppendTail(a, out);
  }
}

void BgpdumpFormatter::FormatUpdate(const MrtRecord& record, const Bgp4mpMessage& m,
                                    std::string* out) {
  ++stats_.updates;
  update_decoder_.set_params(SessionParams::ForMrt(m.as4, m.add_path));
  update_decoder_.Decode(m.message, &update_);
  if (!update_.errors.ok()) ++stats_.update_errors;
  const bool et = record.type == uint16_t(MrtType::kBgp4mpEt);
  std::string kind = et ? "BGP4MP_ET" : "BGP4MP";
  if (m.local) kind += "_LOCAL";
  if (m.add_path) kind += "_AP";
  const std::string head = absl::StrCat(kind, "|", Time(record), "|");
  const std::string peer = absl::StrCat(m.peer_address.ToString(), "|", m.peer_as, "|");

  for (const Nlri& n : update_.withdrawn) {
    absl::StrAppend(out, head, "W|", peer, n.prefix.ToString());
    if (m.add_path) absl::StrAppend(out, "|", n.path_id);
    *out += '\n';
  }
  const PathAttributes* a = update_.attributes.get();
  for (size_t i = 0; i < update_.announced.size(); ++i) {
    const Nlri& n = update_.announced[i];
    absl::StrAppend(out, head, "A|", peer, n.prefix.ToString(), "|");
    if (m.add_path) absl::StrAppend(out, n.path_id, "|");
    absl::StrAppend(out, AsPathText(a), "|", OriginText(a), "|");
    const bool classic = i < update_.classic_announced;
    std::string nexthop = kNoAddress;
    bool sign = false;
    if (classic) {
      if (a && a->next_hop) nexthop = a->next_hop->ToString();
    } else if (a && a->mp_next_hop) {
      nexthop = a->mp_next_hop->global.ToString();
      sign = n.prefix.is_v4();
    }
    AppendNextHopPrefMed(nexthop, a, sign, out);
    AppendTail(a, out);
  }
}

}  // namespace sluice::bgp::mrt
