#include "ipc/mac_address.h"

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace sluice::ipc {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

absl::StatusOr<MacAddress> MacAddress::Parse(std::string_view text) {
  auto bad = [&] {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bad MAC address \"%s\" (want six hex octets like 00:11:22:aa:bb:cc)", text));
  };
  if (text.size() != 17) return bad();
  uint64_t value = 0;
  for (int i = 0; i < 6; ++i) {
    int hi = HexDigit(text[i * 3]);
    int lo = HexDigit(text[i * 3 + 1]);
    if (hi < 0 || lo < 0) return bad();
    if (i < 5 && text[i * 3 + 2] != ':') return bad();
    value = (value << 8) | static_cast<uint64_t>(hi * 16 + lo);
  }
  return MacAddress(value);
}

std::string MacAddress::ToString() const {
  return absl::StrFormat("%02x:%02x:%02x:%02x:%02x:%02x", (value_ >> 40) & 0xff,
                         (value_ >> 32) & 0xff, (value_ >> 24) & 0xff, (value_ >> 16) & 0xff,
                         (value_ >> 8) & 0xff, value_ & 0xff);
}

}  // namespace sluice::ipc
