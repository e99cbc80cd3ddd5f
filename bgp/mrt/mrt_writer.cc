#include "bgp/mrt/mrt_writer.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "bgp/wire/attribute_encoder.h"
#include "bgp/wire/byte_io.h"
#include "bgp/wire/nlri.h"

namespace sluice::bgp::mrt {
namespace {

void WriteAddress(const net::IPAddress& a, ByteWriter& w) {
  uint8_t b[16];
  if (a.is_v4()) {
    a.v4().ToBytes(b);
    w.Append(b, 4);
  } else {
    a.v6().ToBytes(b);
    w.Append(b, 16);
  }
}

void WriteBgp4mpHeader(uint32_t peer_as, uint32_t local_as, uint16_t ifindex,
                       const net::IPAddress& peer, const net::IPAddress& local, bool as4,
                       ByteWriter& w) {
  if (as4) {
    w.U32(peer_as);
    w.U32(local_as);
  } else {
    w.U16(uint16_t(peer_as));
    w.U16(uint16_t(local_as));
  }
  w.U16(ifindex);
  w.U16(peer.is_v4() ? 1 : 2);
  WriteAddress(peer, w);
  // Both addresses are of the AFI's family; a local address of the other family is written as
  // the unspecified address of the peer's family.
  if (local.family() == peer.family()) {
    WriteAddress(local, w);
  } else {
    WriteAddress(
        peer.is_v4() ? net::IPAddress(net::IPv4Address()) : net::IPAddress(net::IPv6Address()), w);
  }
}

}  // namespace

void EncodeRibAttributes(const PathAttributes& attrs, std::vector<uint8_t>* out) {
  ByteWriter w(out);
  AttributeEncodeOptions options;
  options.as_size = 4;
  EncodeAttributes(attrs, options, 0, 13, w);
  if (attrs.mp_next_hop) {
    const size_t nh = MpNextHopSize(*attrs.mp_next_hop);
    AppendAttributeHeader(kFlagOptional, uint8_t(AttrType::kMpReachNlri), 1 + nh, w);
    AppendMpNextHop(*attrs.mp_next_hop, w);
  }
  EncodeAttributes(attrs, options, 16, 255, w);
}

absl::StatusOr<std::unique_ptr<MrtWriter>> MrtWriter::Open(const std::string& path, bool append,
                                                           unsigned buffer_bytes) {
  const bool gzip = absl::EndsWith(path, ".gz");
  errno = 0;
  gzFile f = gzopen(path.c_str(), append ? (gzip ? "ab6" : "abT") : (gzip ? "wb6" : "wbT"));
  if (f == nullptr) {
    return absl::InternalError(absl::StrFormat(
        "cannot create %s: %s", path, errno != 0 ? std::strerror(errno) : "out of memory"));
  }
  gzbuffer(f, buffer_bytes);
  std::unique_ptr<MrtWriter> w(new MrtWriter());
  w->gz_ = f;
  w->path_ = path;
  return w;
}

MrtWriter::MrtWriter(std::vector<uint8_t>* out) : memory_(out) {}

MrtWriter::~MrtWriter() {
  if (gz_) gzclose(static_cast<gzFile>(gz_));
}

absl::Status MrtWriter::Close() {
  if (!gz_) return absl::OkStatus();
  const int rc = gzclose(static_cast<gzFile>(gz_));
  gz_ = nullptr;
  if (rc != Z_OK) return absl::InternalError(absl::StrFormat("writing %s failed", path_));
  return absl::OkStatus();
}

absl::Status MrtWriter::Flush() {
  if (!gz_) return absl::OkStatus();
  if (gzflush(static_cast<gzFile>(gz_), Z_SYNC_FLUSH) != Z_OK) {
    return absl::InternalError(absl::StrFormat("writing %s failed", path_));
  }
  return absl::OkStatus();
}

absl::Status MrtWriter::Emit(uint32_t timestamp, uint16_t type, uint16_t subtype,
                             bool extended_time, uint32_t microseconds) {
  // RFC 6396 §2 (and §3: the _ET types' microseconds count in the length).
  uint8_t header[16];
  StoreU32(header, timestamp);
  StoreU16(header + 4, type);
  StoreU16(header + 6, subtype);
  StoreU32(header + 8, uint32_t(body_.size() + (extended_time ? 4 : 0)));
  if (extended_time) StoreU32(header + 12, microseconds);
  const size_t header_size = extended_time ? 16 : 12;
  if (memory_) {
    memory_->insert(memory_->end(), header, header + header_size);
    memory_->insert(memory_->end(), body_.begin(), body_.end());
    return absl::OkStatus();
  }
  if (!gz_) return absl::FailedPreconditionError("MRT writer is closed");
  gzFile gz = static_cast<gzFile>(gz_);
  if (gzwrite(gz, header, unsigned(header_size)) != int(header_size) ||
      (!body_.empty() && gzwrite(gz, body_.data(), unsigned(body_.size())) != int(body_.size()))) {
    return absl::InternalError(absl::StrFormat("writing %s failed", path_));
  }
  return absl::OkStatus();
}

absl::Status MrtWriter::WritePeerIndexTable(uint32_t timestamp, const PeerIndexTable& table) {
  body_.clear();
  ByteWriter w(&body_);
  w.U32(table.collector_id.value());
  w.U16(uint16_t(table.view_name.size()));
  w.Append(reinterpret_cast<const uint8_t*>(table.view_name.data()), table.view_name.size());
  w.U16(uint16_t(table.peers.size()));
  for (const MrtPeer& p : table.peers) {
    w.U8(uint8_t((p.address.is_v6() ? 1 : 0) | 2));  // always 4-octet AS
    w.U32(p.bgp_id.value());
    WriteAddress(p.address, w);
    w.U32(p.as);
  }
  return Emit(timestamp, uint16_t(MrtType::kTableDumpV2),
              uint16_t(TableDumpV2Subtype::kPeerIndexTable));
}

absl::Status MrtWriter::WriteRib(uint32_t timestamp, uint32_t sequence, const net::Prefix& prefix,
                                 Safi safi, std::span<const RibEntry> entries, bool add_path) {
  body_.clear();
  ByteWriter w(&body_);
  w.U32(sequence);
  EncodeNlri(Nlri{prefix, 0, safi}, false, w);
  w.U16(uint16_t(entries.size()));
  for (const RibEntry& e : entries) {
    if (!e.attributes) {
      return absl::InvalidArgumentError(
          absl::StrFormat("RIB entry for %s without attributes", prefix.ToString()));
    }
    w.U16(e.peer_index);
    w.U32(e.originated_time);
    if (add_path) w.U32(e.path_id);
    attributes_.clear();
    EncodeRibAttributes(*e.attributes, &attributes_);
    w.U16(uint16_t(attributes_.size()));
    w.Append(attributes_);
  }
  uint16_t subtype = prefix.is_v4() ? 2 : 4;
  if (safi == Safi::kMulticast) subtype += 1;
  if (add_path) subtype += 6;
  return Emit(timestamp, uint16_t(MrtType::kTableDumpV2), subtype);
}

absl::Status MrtWriter::WriteBgp4mpMessage(uint32_t timestamp, uint32_t microseconds,
                                           bool extended_time, const Bgp4mpMessage& m) {
  body_.clear();
  ByteWriter w(&body_);
  WriteBgp4mpHeader(m.peer_as, m.local_as, m.interface_index, m.peer_address, m.local_address,
                    m.as4, w);
  w.Append(m.message);
  Bgp4mpSubtype sub;
  if (m.add_path) {
    sub = m.local ? (m.as4 ? Bgp4mpSubtype::kMessageAs4LocalAddPath
                           : Bgp4mpSubtype::kMessageLocalAddPath)
                  : (m.as4 ? Bgp4mpSubtype::kMessageAs4AddPath : Bgp4mpSubtype::kMessageAddPath);
  } else {
    sub = m.local ? (m.as4 ? Bgp4mpSubtype::kMessageAs4Local : Bgp4mpSubtype::kMessageLocal)
                  : (m.as4 ? Bgp4mpSubtype::kMessageAs4 : Bgp4mpSubtype::kMessage);
  }
  return Emit(timestamp, uint16_t(extended_time ? MrtType::kBgp4mpEt : MrtType::kBgp4mp),
              uint16_t(sub), extended_time, microseconds);
}

absl::Status MrtWriter::WriteBgp4mpStateChange(uint32_t timestamp, uint32_t microseconds,
                                               bool extended_time, bool as4,
                                               const Bgp4mpStateChange& c) {
  body_.clear();
  ByteWriter w(&body_);
  WriteBgp4mpHeader(c.peer_as, c.local_as, c.interface_index, c.peer_address, c.local_address, as4,
                    w);
  w.U16(c.old_state);
  w.U16(c.new_state);
  return Emit(timestamp, uint16_t(extended_time ? MrtType::kBgp4mpEt : MrtType::kBgp4mp),
              uint16_t(as4 ? Bgp4mpSubtype::kStateChangeAs4 : Bgp4mpSubtype::kStateChange),
              extended_time, microseconds);
}

}  // namespace sluice::bgp::mrt
