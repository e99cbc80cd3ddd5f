#include "net/ip_address.h"

#include <arpa/inet.h>

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::net {
namespace {

uint64_t LoadBig64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}

void StoreBig64(uint64_t v, uint8_t* p) {
  for (int i = 7; i >= 0; --i) {
    p[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

}  // namespace

std::string_view FamilyName(Family family) { return family == Family::kIPv4 ? "ipv4" : "ipv6"; }

absl::StatusOr<IPv4Address> IPv4Address::Parse(std::string_view text) {
  // inet_pton is strict: exactly four decimal octets, no leading zeros, nothing else.
  char buf[INET_ADDRSTRLEN];
  in_addr a;
  if (text.size() >= sizeof(buf)) {
    return absl::InvalidArgumentError(absl::StrFormat("not an IPv4 address: '%s'", text));
  }
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  if (inet_pton(AF_INET, buf, &a) != 1) {
    return absl::InvalidArgumentError(absl::StrFormat("not an IPv4 address: '%s'", text));
  }
  return IPv4Address(ntohl(a.s_addr));
}

IPv4Address IPv4Address::FromBytes(const uint8_t* b) {
  return IPv4Address((uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) |
                     b[3]);
}

void IPv4Address::ToBytes(uint8_t* out) const {
  out[0] = static_cast<uint8_t>(value_ >> 24);
  out[1] = static_cast<uint8_t>(value_ >> 16);
  out[2] = static_cast<uint8_t>(value_ >> 8);
  out[3] = static_cast<uint8_t>(value_);
}

std::string IPv4Address::ToString() const {
  return absl::StrFormat("%u.%u.%u.%u", value_ >> 24, (value_ >> 16) & 0xff, (value_ >> 8) & 0xff,
                         value_ & 0xff);
}

absl::StatusOr<IPv6Address> IPv6Address::Parse(std::string_view text) {
  char buf[INET6_ADDRSTRLEN + 1];
  uint8_t bytes[16];
  if (text.size() >= sizeof(buf)) {
    return absl::InvalidArgumentError(absl::StrFormat("not an IPv6 address: '%s'", text));
  }
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  if (inet_pton(AF_INET6, buf, bytes) != 1) {
    return absl::InvalidArgumentError(absl::StrFormat("not an IPv6 address: '%s'", text));
  }
  return FromBytes(bytes);
}

IPv6Address IPv6Address::FromBytes(const uint8_t* b) {
  return IPv6Address(LoadBig64(b), LoadBig64(b + 8));
}

void IPv6Address::ToBytes(uint8_t* out) const {
  StoreBig64(hi_, out);
  StoreBig64(lo_, out + 8);
}

std::string IPv6Address::ToString() const {
  uint16_t g[8];
  for (int i = 0; i < 4; ++i) {
    g[i] = static_cast<uint16_t>(hi_ >> (48 - 16 * i));
    g[4 + i] = static_cast<uint16_t>(lo_ >> (48 - 16 * i));
  }
  // RFC 5952 §4.2: compress the longest run (>= 2) of zero groups, the first on a tie.
  int best = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (g[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && g[j] == 0) ++j;
    if (j - i > best_len && j - i >= 2) {
      best = i;
      best_len = j - i;
    }
    i = j;
  }
  const bool mapped = IsV4Mapped();  // RFC 5952 §5
  const int groups = mapped ? 6 : 8;
  std::string out;
  for (int i = 0; i < groups; ++i) {
    if (i == best) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ':';
    absl::StrAppend(&out, absl::Hex(g[i]));
  }
  if (mapped) {
    if (out.back() != ':') out += ':';
    out += IPv4Address(static_cast<uint32_t>(lo_)).ToString();
  }
  return out;
}

absl::StatusOr<IPAddress> IPAddress::Parse(std::string_view text) {
  if (text.find(':') != std::string_view::npos) {
    auto a = IPv6Address::Parse(text);
    if (!a.ok()) return a.status();
    return IPAddress(*a);
  }
  auto a = IPv4Address::Parse(text);
  if (!a.ok()) return a.status();
  return IPAddress(*a);
}

IPAddress IPAddress::Masked(int length) const {
  IPAddress r = *this;
  IPv6Address m = v6().Masked(length);
  r.hi_ = m.hi();
  r.lo_ = m.lo();
  return r;
}

std::string IPAddress::ToString() const { return is_v4() ? v4().ToString() : v6().ToString(); }

}  // namespace sluice::net
