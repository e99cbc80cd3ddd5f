// Input: the octets a cache sends on an RTR session, first octet choosing the session's version
// (0 or 1). Decodes PDU after PDU as the session would: each decoded PDU consumes octets within
// the input, an error stops the stream, and an Error Report we would send about it decodes.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "rpki/rtr_pdu.h"

using sluice::rpki::rtr::Decode;
using sluice::rpki::rtr::Decoded;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t version = data[0] & 1;
  std::span<const uint8_t> input(data + 1, size - 1);
  while (true) {
    Decoded d = Decode(input, version);
    if (d.kind == Decoded::kNeedMore) break;
    if (d.kind == Decoded::kError) {
      const size_t whole = std::min<size_t>(input.size(), sluice::rpki::rtr::kMaxPduLength);
      auto report =
          sluice::rpki::rtr::EncodeErrorReport(version, d.error, input.first(whole), d.what);
      if (Decode(report, version).kind != Decoded::kPdu) abort();
      break;
    }
    if (d.consumed < sluice::rpki::rtr::kHeaderLength || d.consumed > input.size()) abort();
    input = input.subspan(d.consumed);
  }
  return 0;
}
