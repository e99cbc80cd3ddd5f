#include "net/prefix.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::net {
namespace {

absl::StatusOr<Prefix> ParsePrefix(std::string_view text, bool mask) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrFormat("not a prefix (no '/'): '%s'", text));
  }
  auto address = IPAddress::Parse(text.substr(0, slash));
  if (!address.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("bad address in prefix '%s': %s", text, address.status().message()));
  }
  std::string_view len_text = text.substr(slash + 1);
  int length = -1;
  if (len_text.empty() || len_text.size() > 3 ||
      !std::all_of(len_text.begin(), len_text.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      !absl::SimpleAtoi(absl::string_view(len_text.data(), len_text.size()), &length) ||
      length > address->bits()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("bad prefix length in '%s' (0..%d expected)", text, address->bits()));
  }
  Prefix p(*address, length);
  if (!mask && p.address() != *address) {
    return absl::InvalidArgumentError(
        absl::StrFormat("host bits set in prefix '%s' (did you mean %s?)", text, p.ToString()));
  }
  return p;
}

}  // namespace

Prefix::Prefix(IPv4Address address, int length) : Prefix(IPAddress(address), length) {}
Prefix::Prefix(IPv6Address address, int length) : Prefix(IPAddress(address), length) {}

Prefix::Prefix(const IPAddress& address, int length)
    : family_(address.family()),
      length_(static_cast<uint8_t>(std::clamp(length, 0, address.bits()))) {
  IPv6Address masked = address.v6().Masked(length_);
  hi_ = masked.hi();
  lo_ = masked.lo();
}

absl::StatusOr<Prefix> Prefix::Parse(std::string_view text) { return ParsePrefix(text, false); }
absl::StatusOr<Prefix> Prefix::ParseAndMask(std::string_view text) {
  return ParsePrefix(text, true);
}

IPAddress Prefix::address() const {
  if (is_v4()) return IPAddress(v4());
  return IPAddress(v6());
}

bool Prefix::Contains(const IPAddress& a) const {
  if (a.family() != family_) return false;
  IPv6Address m = a.v6().Masked(length_);
  return m.hi() == hi_ && m.lo() == lo_;
}

bool Prefix::Contains(const Prefix& other) const {
  if (other.family_ != family_ || other.length_ < length_) return false;
  IPv6Address m = other.v6().Masked(length_);
  return m.hi() == hi_ && m.lo() == lo_;
}

Prefix Prefix::Truncated(int length) const {
  return Prefix(address(), std::min<int>(length, length_));
}

std::string Prefix::ToString() const { return absl::StrCat(address().ToString(), "/", length_); }

}  // namespace sluice::net
