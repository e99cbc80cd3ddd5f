// Input: the octets a cache sends on an RTR session, first octet choosing the session's version
// (0 or 1). Two checks:
//  - the codec: PDU after PDU, each decoded PDU consumes octets within the input, an error stops
//    the stream, and the Error Report we would send about it decodes;
//  - a session (rtr_session.h) fed the same octets in chunks of the sizes the second octet
//    gives, reconnecting after each close and ticking the clock between chunks: it never
//    crashes, and the store's counts always equal what the store holds.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "rpki/rtr_pdu.h"
#include "rpki/rtr_session.h"

namespace {

using sluice::rpki::rtr::Decode;
using sluice::rpki::rtr::Decoded;

void FuzzCodec(uint8_t version, std::span<const uint8_t> input) {
  while (true) {
    Decoded d = Decode(input, version);
    if (d.kind == Decoded::kNeedMore) return;
    if (d.kind == Decoded::kError) {
      const size_t whole = std::min<size_t>(input.size(), sluice::rpki::rtr::kMaxPduLength);
      auto report =
          sluice::rpki::rtr::EncodeErrorReport(version, d.error, input.first(whole), d.what);
      if (Decode(report, version).kind != Decoded::kPdu) abort();
      return;
    }
    if (d.consumed < sluice::rpki::rtr::kHeaderLength || d.consumed > input.size()) abort();
    input = input.subspan(d.consumed);
  }
}

void FuzzSession(uint8_t version, size_t chunk, std::span<const uint8_t> input) {
  sluice::rpki::VrpStore store;
  sluice::rpki::RtrSession session(&store, 1, {}, version);
  auto now = sluice::rpki::RtrSession::Clock::time_point() + std::chrono::hours(1);
  session.Connected(now);
  for (size_t i = 0; i < input.size(); i += chunk) {
    const auto part = input.subspan(i, std::min(chunk, input.size() - i));
    if (session.Received(part, now).close) {
      session.Disconnected();
      session.Connected(now);
    }
    now += std::chrono::seconds(part[0]);
    if (auto due = session.Deadline(); due && *due <= now) session.Tick(now);
    if (store.Snapshot().size() != store.size()) abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t version = data[0] & 1;
  const size_t chunk = 1 + data[1] % 64;
  const std::span<const uint8_t> input(data + 2, size - 2);
  FuzzCodec(version, input);
  FuzzSession(version, chunk, input);
  return 0;
}
