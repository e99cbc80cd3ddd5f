#include "bgp/bmp/bmp_message.h"

#include <algorithm>

#include "bgp/wire/byte_io.h"

namespace sluice::bgp::bmp {

namespace {

// RFC 7854 §4.1: version, message length (headers included), type.
void StoreCommonHeader(MessageType type, uint32_t length, uint8_t* at) {
  at[0] = kVersion;
  StoreU32(at + 1, length);
  at[5] = static_cast<uint8_t>(type);
}

// Writes the common header with a length placeholder; returns where the message starts.
size_t BeginMessage(MessageType type, std::vector<uint8_t>* out) {
  size_t start = out->size();
  out->resize(start + kCommonHeaderSize);
  StoreCommonHeader(type, 0, out->data() + start);
  return start;
}

void EndMessage(size_t start, std::vector<uint8_t>* out) {
  StoreU32(out->data() + start + 1, uint32_t(out->size() - start));
}

// RFC 7854 §4.2: 16 octets, an IPv4 address in the last 4 (the first 12 zero).
void StoreAddress16(const net::IPAddress& a, uint8_t* at) {
  std::fill(at, at + 16, uint8_t{0});
  if (a.is_v6()) {
    a.v6().ToBytes(at);
  } else {
    StoreU32(at + 12, a.v4().value());
  }
}

void AppendAddress16(const net::IPAddress& a, std::vector<uint8_t>* out) {
  const size_t at = out->size();
  out->resize(at + 16);
  StoreAddress16(a, out->data() + at);
}

void AppendTlv(uint16_t type, std::span<const uint8_t> value, std::vector<uint8_t>* out) {
  ByteWriter w(out);
  w.U16(type);
  w.U16(uint16_t(value.size()));
  w.Append(value);
}

void AppendStringTlv(uint16_t type, const std::string& s, std::vector<uint8_t>* out) {
  std::span<const uint8_t> v(reinterpret_cast<const uint8_t*>(s.data()),
                             std::min<size_t>(s.size(), 0xffff));
  AppendTlv(type, v, out);
}

}  // namespace

EncodedPeerHeader EncodePerPeerHeader(const PeerHeader& peer) {
  EncodedPeerHeader b{};
  uint8_t flags = peer.flags;
  if (peer.type == PeerType::kGlobal) {
    flags = uint8_t((flags & ~kFlagV) | (peer.address.is_v6() ? kFlagV : 0));
  }
  b[0] = static_cast<uint8_t>(peer.type);
  b[1] = flags;
  StoreU32(&b[2], uint32_t(peer.distinguisher >> 32));
  StoreU32(&b[6], uint32_t(peer.distinguisher));
  StoreAddress16(peer.address, &b[10]);
  StoreU32(&b[26], peer.as);
  StoreU32(&b[30], peer.bgp_id);
  StoreU32(&b[34], peer.seconds);
  StoreU32(&b[38], peer.microseconds);
  return b;
}

void AppendPerPeerHeader(const PeerHeader& peer, std::vector<uint8_t>* out) {
  EncodedPeerHeader b = EncodePerPeerHeader(peer);
  out->insert(out->end(), b.begin(), b.end());
}

void AppendInitiation(const std::string& sys_name, const std::string& sys_descr,
                      std::vector<uint8_t>* out) {
  size_t start = BeginMessage(MessageType::kInitiation, out);
  AppendStringTlv(1, sys_descr, out);
  AppendStringTlv(2, sys_name, out);
  EndMessage(start, out);
}

void AppendTermination(TerminationReason reason, std::vector<uint8_t>* out) {
  size_t start = BeginMessage(MessageType::kTermination, out);
  uint8_t v[2];
  StoreU16(v, static_cast<uint16_t>(reason));
  AppendTlv(1, v, out);
  EndMessage(start, out);
}

void AppendPeerUp(const PeerHeader& peer, const net::IPAddress& local_address, uint16_t local_port,
                  uint16_t remote_port, std::span<const uint8_t> sent_open,
                  std::span<const uint8_t> received_open, const std::string& table_name,
                  std::vector<uint8_t>* out) {
  size_t start = BeginMessage(MessageType::kPeerUp, out);
  AppendPerPeerHeader(peer, out);
  AppendAddress16(local_address, out);
  ByteWriter w(out);
  w.U16(local_port);
  w.U16(remote_port);
  w.Append(sent_open);
  w.Append(received_open);
  if (!table_name.empty()) AppendStringTlv(3, table_name, out);
  EndMessage(start, out);
}

void AppendPeerDown(const PeerHeader& peer, DownReason reason, std::span<const uint8_t> data,
                    uint16_t fsm_event, std::vector<uint8_t>* out) {
  size_t start = BeginMessage(MessageType::kPeerDown, out);
  AppendPerPeerHeader(peer, out);
  ByteWriter w(out);
  w.U8(static_cast<uint8_t>(reason));
  switch (reason) {
    case DownReason::kLocalNotification:
    case DownReason::kRemoteNotification:
      w.Append(data);
      break;
    case DownReason::kLocalNoNotification:
      w.U16(fsm_event);
      break;
    case DownReason::kRemoteNoData:
      break;
  }
  EndMessage(start, out);
}

RouteMonitoringHeaders RouteMonitoringHeadersFor(const EncodedPeerHeader& peer,
                                                 size_t update_octets) {
  RouteMonitoringHeaders headers;
  StoreCommonHeader(MessageType::kRouteMonitoring, uint32_t(headers.size() + update_octets),
                    headers.data());
  std::copy(peer.begin(), peer.end(), headers.begin() + kCommonHeaderSize);
  return headers;
}

void AppendRouteMonitoring(const PeerHeader& peer, std::span<const uint8_t> update,
                           std::vector<uint8_t>* out) {
  AppendRouteMonitoring(EncodePerPeerHeader(peer), update, out);
}

void AppendRouteMonitoring(const EncodedPeerHeader& peer, std::span<const uint8_t> update,
                           std::vector<uint8_t>* out) {
  // Two appends per message: the headers, then the UPDATE.
  const RouteMonitoringHeaders headers = RouteMonitoringHeadersFor(peer, update.size());
  out->insert(out->end(), headers.begin(), headers.end());
  out->insert(out->end(), update.begin(), update.end());
}

void AppendStatisticsReport(const PeerHeader& peer, std::span<const Statistic> stats,
                            std::vector<uint8_t>* out) {
  size_t start = BeginMessage(MessageType::kStatisticsReport, out);
  AppendPerPeerHeader(peer, out);
  ByteWriter w(out);
  w.U32(uint32_t(stats.size()));
  for (const Statistic& s : stats) {
    w.U16(s.type);
    w.U16(8);
    w.U32(uint32_t(s.gauge >> 32));
    w.U32(uint32_t(s.gauge));
  }
  EndMessage(start, out);
}

}  // namespace sluice::bgp::bmp
