#include "bgp/mrt/mrt_records.h"

#include "absl/strings/str_format.h"
#include "bgp/wire/nlri.h"
#include "bgp/wire/session_params.h"

namespace sluice::bgp::mrt {
namespace {

absl::Status Short(std::string_view what, const MrtRecord& r) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "MRT record type %d/%d at offset %d: %s cut short", r.type, r.subtype, r.offset, what));
}

bool ReadAddress(ByteReader& r, bool v6, net::IPAddress* out) {
  Bytes b;
  if (!r.ReadBytes(v6 ? 16 : 4, &b)) return false;
  *out = v6 ? net::IPAddress(net::IPv6Address::FromBytes(b.data()))
            : net::IPAddress(net::IPv4Address(LoadU32(b.data())));
  return true;
}

bool ReadAs(ByteReader& r, bool as4, uint32_t* out) {
  if (as4) return r.ReadU32(out);
  uint16_t v;
  if (!r.ReadU16(&v)) return false;
  *out = v;
  return true;
}

// Prefix length octet and prefix octets, as in NLRI.
bool ReadPrefix(ByteReader& r, Afi afi, net::Prefix* out) {
  uint8_t bits;
  if (!r.ReadU8(&bits)) return false;
  if (bits > (afi == Afi::kIPv4 ? 32 : 128)) return false;
  Bytes b;
  if (!r.ReadBytes(size_t((bits + 7) / 8), &b)) return false;
  uint8_t buf[17];
  buf[0] = bits;
  std::copy(b.begin(), b.end(), buf + 1);
  std::vector<Nlri> v;
  if (!DecodeNlri(Bytes(buf, 1 + b.size()), afi, Safi::kUnicast, false, &v).ok()) return false;
  *out = v.front().prefix;
  return true;
}

// Common header of BGP4MP MESSAGE and STATE_CHANGE records.
struct Bgp4mpHeader {
  uint32_t peer_as = 0, local_as = 0;
  uint16_t ifindex = 0;
  net::IPAddress peer, local;
};
bool ReadBgp4mpHeader(ByteReader& r, bool as4, Bgp4mpHeader* h) {
  uint16_t afi;
  if (!ReadAs(r, as4, &h->peer_as) || !ReadAs(r, as4, &h->local_as) || !r.ReadU16(&h->ifindex) ||
      !r.ReadU16(&afi)) {
    return false;
  }
  if (afi != 1 && afi != 2) return false;
  return ReadAddress(r, afi == 2, &h->peer) && ReadAddress(r, afi == 2, &h->local);
}

}  // namespace

bool IsBgp4mp(const MrtRecord& r) {
  return r.type == uint16_t(MrtType::kBgp4mp) || r.type == uint16_t(MrtType::kBgp4mpEt);
}

bool IsBgp4mpMessage(const MrtRecord& r) {
  if (!IsBgp4mp(r)) return false;
  switch (Bgp4mpSubtype(r.subtype)) {
    case Bgp4mpSubtype::kMessage:
    case Bgp4mpSubtype::kMessageAs4:
    case Bgp4mpSubtype::kMessageLocal:
    case Bgp4mpSubtype::kMessageAs4Local:
    case Bgp4mpSubtype::kMessageAddPath:
    case Bgp4mpSubtype::kMessageAs4AddPath:
    case Bgp4mpSubtype::kMessageLocalAddPath:
    case Bgp4mpSubtype::kMessageAs4LocalAddPath:
      return true;
    default:
      return false;
  }
}

bool IsBgp4mpStateChange(const MrtRecord& r) {
  return IsBgp4mp(r) && (r.subtype == uint16_t(Bgp4mpSubtype::kStateChange) ||
                         r.subtype == uint16_t(Bgp4mpSubtype::kStateChangeAs4));
}

bool IsRib(const MrtRecord& r) {
  if (r.type != uint16_t(MrtType::kTableDumpV2)) return false;
  return (r.subtype >= 2 && r.subtype <= 5) || (r.subtype >= 8 && r.subtype <= 11);
}

absl::Status DecodePeerIndexTable(const MrtRecord& record, PeerIndexTable* out) {
  ByteReader r(record.body);
  uint32_t id;
  uint16_t name_len, count;
  Bytes name;
  if (!r.ReadU32(&id) || !r.ReadU16(&name_len) || !r.ReadBytes(name_len, &name) ||
      !r.ReadU16(&count)) {
    return Short("PEER_INDEX_TABLE header", record);
  }
  out->collector_id = net::IPv4Address(id);
  out->view_name.assign(name.begin(), name.end());
  out->peers.clear();
  out->peers.reserve(count);
  for (int i = 0; i < count; ++i) {
    uint8_t type;
    uint32_t bgp_id;
    MrtPeer p;
    if (!r.ReadU8(&type) || !r.ReadU32(&bgp_id) || !ReadAddress(r, type & 1, &p.address) ||
        !ReadAs(r, type & 2, &p.as)) {
      return Short(absl::StrFormat("PEER_INDEX_TABLE peer %d", i), record);
    }
    p.bgp_id = net::IPv4Address(bgp_id);
    out->peers.push_back(p);
  }
  return absl::OkStatus();
}

AttrRef RibDecoder::DecodeAttributes(Bytes block, bool as4, UpdateErrors* errors) {
  MpNlriField reach, unreach;
  uint32_t notes = 0;
  errors->Clear();
  decoder_.Decode(block, SessionParams::ForMrt(as4, false), AttributeSource::kMrtRibEntry,
                  &scratch_, &reach, &unreach, errors, &notes);
  if (errors->session_reset) return AttrRef();
  return store_->Intern(scratch_);
}

absl::Status RibDecoder::DecodeRib(const MrtRecord& record, RibRecord* out) {
  if (!IsRib(record)) return absl::InvalidArgumentError("not a TABLE_DUMP_V2 RIB record");
  const auto sub = TableDumpV2Subtype(record.subtype);
  const bool v6 = sub == TableDumpV2Subtype::kRibIPv6Unicast ||
                  sub == TableDumpV2Subtype::kRibIPv6Multicast ||
                  sub == TableDumpV2Subtype::kRibIPv6UnicastAddPath ||
                  sub == TableDumpV2Subtype::kRibIPv6MulticastAddPath;
  const bool multicast = sub == TableDumpV2Subtype::kRibIPv4Multicast ||
                         sub == TableDumpV2Subtype::kRibIPv6Multicast ||
                         sub == TableDumpV2Subtype::kRibIPv4MulticastAddPath ||
                         sub == TableDumpV2Subtype::kRibIPv6MulticastAddPath;
  out->add_path = record.subtype >= 8;
  out->safi = multicast ? Safi::kMulticast : Safi::kUnicast;
  ByteReader r(record.body);
  uint16_t count;
  if (!r.ReadU32(&out->sequence) || !ReadPrefix(r, v6 ? Afi::kIPv6 : Afi::kIPv4, &out->prefix) ||
      !r.ReadU16(&count)) {
    return Short("RIB header", record);
  }
  out->entries.resize(count);
  for (int i = 0; i < count; ++i) {
    RibEntry& e = out->entries[i];
    uint16_t attr_len;
    Bytes attrs;
    e.path_id = 0;
    if (!r.ReadU16(&e.peer_index) || !r.ReadU32(&e.originated_time) ||
        (out->add_path && !r.ReadU32(&e.path_id)) || !r.ReadU16(&attr_len) ||
        !r.ReadBytes(attr_len, &attrs)) {
      out->entries.resize(i);
      return Short(absl::StrFormat("RIB entry %d of %d", i + 1, count), record);
    }
    e.attributes = DecodeAttributes(attrs, true, &e.errors);
  }
  return absl::OkStatus();
}

absl::Status RibDecoder::DecodeTableDump(const MrtRecord& record, TableDumpRecord* out) {
  if (record.type != uint16_t(MrtType::kTableDump) ||
      (record.subtype != 1 && record.subtype != 2)) {
    return absl::InvalidArgumentError("not a TABLE_DUMP record");
  }
  const bool v6 = record.subtype == 2;
  ByteReader r(record.body);
  net::IPAddress prefix;
  uint8_t bits;
  uint16_t peer_as, attr_len;
  Bytes attrs;
  if (!r.ReadU16(&out->view) || !r.ReadU16(&out->sequence) || !ReadAddress(r, v6, &prefix) ||
      !r.ReadU8(&bits) || !r.ReadU8(&out->status) || !r.ReadU32(&out->originated_time) ||
      !ReadAddress(r, v6, &out->peer_address) || !r.ReadU16(&peer_as) || !r.ReadU16(&attr_len) ||
      !r.ReadBytes(attr_len, &attrs)) {
    return Short("TABLE_DUMP entry", record);
  }
  if (bits > prefix.bits()) {
    return absl::InvalidArgumentError(absl::StrFormat("TABLE_DUMP: prefix length %d", bits));
  }
  out->prefix = net::Prefix(prefix, bits);
  out->peer_as = peer_as;
  out->attributes = DecodeAttributes(attrs, false, &out->errors);
  return absl::OkStatus();
}

absl::Status DecodeBgp4mpMessage(const MrtRecord& record, Bgp4mpMessage* out) {
  if (!IsBgp4mpMessage(record)) return absl::InvalidArgumentError("not a BGP4MP MESSAGE record");
  const auto sub = Bgp4mpSubtype(record.subtype);
  out->as4 = sub == Bgp4mpSubtype::kMessageAs4 || sub == Bgp4mpSubtype::kMessageAs4Local ||
             sub == Bgp4mpSubtype::kMessageAs4AddPath ||
             sub == Bgp4mpSubtype::kMessageAs4LocalAddPath;
  out->local = sub == Bgp4mpSubtype::kMessageLocal || sub == Bgp4mpSubtype::kMessageAs4Local ||
               sub == Bgp4mpSubtype::kMessageLocalAddPath ||
               sub == Bgp4mpSubtype::kMessageAs4LocalAddPath;
  out->add_path = record.subtype >= 8;
  ByteReader r(record.body);
  Bgp4mpHeader h;
  if (!ReadBgp4mpHeader(r, out->as4, &h)) return Short("BGP4MP MESSAGE header", record);
  out->peer_as = h.peer_as;
  out->local_as = h.local_as;
  out->interface_index = h.ifindex;
  out->peer_address = h.peer;
  out->local_address = h.local;
  out->message = r.Rest();
  return absl::OkStatus();
}

absl::Status DecodeBgp4mpStateChange(const MrtRecord& record, Bgp4mpStateChange* out) {
  if (!IsBgp4mpStateChange(record)) {
    return absl::InvalidArgumentError("not a BGP4MP STATE_CHANGE record");
  }
  const bool as4 = record.subtype == uint16_t(Bgp4mpSubtype::kStateChangeAs4);
  ByteReader r(record.body);
  Bgp4mpHeader h;
  if (!ReadBgp4mpHeader(r, as4, &h) || !r.ReadU16(&out->old_state) || !r.ReadU16(&out->new_state)) {
    return Short("BGP4MP STATE_CHANGE", record);
  }
  out->peer_as = h.peer_as;
  out->local_as = h.local_as;
  out->interface_index = h.ifindex;
  out->peer_address = h.peer;
  out->local_address = h.local;
  return absl::OkStatus();
}

}  // namespace sluice::bgp::mrt
