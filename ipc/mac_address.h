#pragma once
// MacAddress: a 48-bit IEEE 802 MAC address, the value of the XRL atom type `mac`.
//
// Text form: six octets in hex separated by ':' — "00:11:22:aa:bb:cc" (IEEE 802-2014 §8.1
// canonical form). Parse accepts either case; ToString prints lower case.

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace sluice::ipc {

class MacAddress {
 public:
  constexpr MacAddress() = default;
  // The low 48 bits of `value`; the first octet on the wire is bits 47..40.
  constexpr explicit MacAddress(uint64_t value) : value_(value & 0xffffffffffffULL) {}

  // Errors: InvalidArgument naming the text unless it is six ':'-separated hex octets.
  static absl::StatusOr<MacAddress> Parse(std::string_view text);

  constexpr uint64_t value() const { return value_; }
  std::string ToString() const;

  friend constexpr auto operator<=>(MacAddress, MacAddress) = default;

 private:
  uint64_t value_ = 0;
};

}  // namespace sluice::ipc
