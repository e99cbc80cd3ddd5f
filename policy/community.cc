#include "policy/community.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "net/ip_address.h"

namespace sluice::policy {
namespace {

struct WellKnown {
  std::string_view name;
  uint32_t value;
};
constexpr WellKnown kWellKnown[] = {
    {"no-export", kCommunityNoExport},
    {"no-advertise", kCommunityNoAdvertise},
    {"no-export-subconfed", kCommunityNoExportSubconfed},
    {"no-peer", kCommunityNoPeer},
    {"blackhole", kCommunityBlackhole},
    {"graceful-shutdown", kCommunityGracefulShutdown},
};

std::vector<std::string_view> SplitColons(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return parts;
}

bool ParseNumber(std::string_view text, uint64_t max, uint32_t* out) {
  if (text.empty() || text.size() > 10) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  uint64_t v = 0;
  if (!absl::SimpleAtoi(absl::string_view(text.data(), text.size()), &v) || v > max) return false;
  *out = static_cast<uint32_t>(v);
  return true;
}

// "N", "*" or "LO-HI" with every value at most `max`.
bool ParseRange(std::string_view text, uint32_t max, PartRange* out) {
  if (text == "*") {
    *out = PartRange{0, max};
    return true;
  }
  size_t dash = text.find('-');
  if (dash == std::string_view::npos) {
    uint32_t v;
    if (!ParseNumber(text, max, &v)) return false;
    *out = PartRange{v, v};
    return true;
  }
  uint32_t lo, hi;
  if (!ParseNumber(text.substr(0, dash), max, &lo) ||
      !ParseNumber(text.substr(dash + 1), max, &hi) || lo > hi) {
    return false;
  }
  *out = PartRange{lo, hi};
  return true;
}

absl::Status BadCommunity(std::string_view text, std::string_view form) {
  return absl::InvalidArgumentError(absl::StrFormat("bad %s '%s'", form, text));
}

constexpr std::string_view kCommunityForm =
    "community (expected AS:VALUE with each part 0..65535, or no-export, no-advertise, "
    "no-export-subconfed, no-peer, blackhole, graceful-shutdown)";
constexpr std::string_view kLargeForm =
    "large community (expected GLOBAL:LOCAL1:LOCAL2, each part 0..4294967295)";
constexpr std::string_view kExtForm =
    "extended community (expected target:AS:N, origin:AS:N, target:IPV4:N, origin:IPV4:N or "
    "0x followed by 16 hex digits)";

// Ext community as (value, mask); a "*" part leaves its bits out of the mask.
absl::StatusOr<ExtCommunityPattern> ParseExt(std::string_view text, bool allow_wildcard) {
  if (text.size() == 18 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    uint64_t v = 0;
    for (size_t i = 2; i < text.size(); ++i) {
      const char c = text[i];
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (d < 0) return BadCommunity(text, kExtForm);
      v = (v << 4) | static_cast<uint64_t>(d);
    }
    return ExtCommunityPattern{v, ~uint64_t{0}};
  }
  auto parts = SplitColons(text);
  if (parts.size() != 3) return BadCommunity(text, kExtForm);
  uint64_t subtype;
  if (parts[0] == "target") {
    subtype = 0x02;
  } else if (parts[0] == "origin") {
    subtype = 0x03;
  } else {
    return BadCommunity(text, kExtForm);
  }
  const bool admin_any = allow_wildcard && parts[1] == "*";
  const bool number_any = allow_wildcard && parts[2] == "*";
  if (admin_any && number_any) {
    // "target:*:*": every route target, whatever the administrator's form (types 0x00-0x03).
    return ExtCommunityPattern{subtype << 48, (uint64_t{0xfc} << 56) | (uint64_t{0xff} << 48)};
  }
  uint64_t type, admin = 0, number = 0, admin_mask, number_mask;
  if (!admin_any && parts[1].find('.') != std::string_view::npos) {
    auto addr = net::IPv4Address::Parse(parts[1]);
    uint32_t n;
    if (!addr.ok() || !(number_any || ParseNumber(parts[2], 0xffff, &n))) {
      return BadCommunity(text, kExtForm);
    }
    type = 0x01;  // IPv4 address specific (RFC 4360 §3.2)
    admin = addr->value();
    number = number_any ? 0 : n;
    admin_mask = 0xffffffff;
    number_mask = 0xffff;
    const uint64_t v = (type << 56) | (subtype << 48) | (admin << 16) | number;
    const uint64_t m =
        (uint64_t{0xffff} << 48) | (admin_mask << 16) | (number_any ? 0 : number_mask);
    return ExtCommunityPattern{v & m, m};
  }
  uint32_t a = 0, n = 0;
  if (!admin_any && !ParseNumber(parts[1], 0xffffffff, &a)) return BadCommunity(text, kExtForm);
  const bool four_octet = !admin_any && a > 0xffff;
  if (!number_any && !ParseNumber(parts[2], four_octet ? 0xffff : 0xffffffff, &n)) {
    return BadCommunity(text, kExtForm);
  }
  uint64_t v, m;
  if (four_octet) {  // four-octet AS specific (RFC 5668)
    type = 0x02;
    v = (type << 56) | (subtype << 48) | (uint64_t{a} << 16) | n;
    m = (uint64_t{0xffff} << 48) | (uint64_t{0xffffffff} << 16) | (number_any ? 0 : 0xffff);
  } else {  // two-octet AS specific (RFC 4360 §3.1)
    type = 0x00;
    v = (type << 56) | (subtype << 48) | (uint64_t{a} << 32) | n;
    m = (uint64_t{0xffff} << 48) | (admin_any ? 0 : uint64_t{0xffff} << 32) |
        (number_any ? 0 : 0xffffffff);
  }
  (void)admin;
  (void)number;
  return ExtCommunityPattern{v & m, m};
}

}  // namespace

absl::StatusOr<uint32_t> ParseCommunity(std::string_view text) {
  for (const auto& w : kWellKnown) {
    if (text == w.name) return w.value;
  }
  auto parts = SplitColons(text);
  uint32_t as, value;
  if (parts.size() != 2 || !ParseNumber(parts[0], 0xffff, &as) ||
      !ParseNumber(parts[1], 0xffff, &value)) {
    return BadCommunity(text, kCommunityForm);
  }
  return (as << 16) | value;
}

absl::StatusOr<uint64_t> ParseExtCommunity(std::string_view text) {
  auto p = ParseExt(text, false);
  if (!p.ok()) return p.status();
  return p->value;
}

absl::StatusOr<LargeCommunity> ParseLargeCommunity(std::string_view text) {
  auto parts = SplitColons(text);
  LargeCommunity c;
  if (parts.size() != 3 || !ParseNumber(parts[0], 0xffffffff, &c.global_admin) ||
      !ParseNumber(parts[1], 0xffffffff, &c.local1) ||
      !ParseNumber(parts[2], 0xffffffff, &c.local2)) {
    return BadCommunity(text, kLargeForm);
  }
  return c;
}

std::string CommunityToString(uint32_t c) {
  for (const auto& w : kWellKnown) {
    if (c == w.value) return std::string(w.name);
  }
  return absl::StrCat(c >> 16, ":", c & 0xffff);
}

std::string ExtCommunityToString(uint64_t c) {
  const uint32_t type = static_cast<uint32_t>(c >> 56);
  const uint32_t subtype = static_cast<uint32_t>(c >> 48) & 0xff;
  if (subtype == 0x02 || subtype == 0x03) {
    const char* kind = subtype == 0x02 ? "target" : "origin";
    if (type == 0x00) {
      return absl::StrCat(kind, ":", (c >> 32) & 0xffff, ":", c & 0xffffffff);
    }
    if (type == 0x01) {
      return absl::StrCat(kind, ":", net::IPv4Address(static_cast<uint32_t>(c >> 16)).ToString(),
                          ":", c & 0xffff);
    }
    if (type == 0x02) {
      return absl::StrCat(kind, ":", (c >> 16) & 0xffffffff, ":", c & 0xffff);
    }
  }
  return absl::StrFormat("0x%016x", c);
}

std::string LargeCommunityToString(const LargeCommunity& c) {
  return absl::StrCat(c.global_admin, ":", c.local1, ":", c.local2);
}

absl::StatusOr<CommunityPattern> ParseCommunityPattern(std::string_view text) {
  for (const auto& w : kWellKnown) {
    if (text == w.name) {
      return CommunityPattern{{w.value >> 16, w.value >> 16}, {w.value & 0xffff, w.value & 0xffff}};
    }
  }
  auto parts = SplitColons(text);
  CommunityPattern p;
  if (parts.size() != 2 || !ParseRange(parts[0], 0xffff, &p.as) ||
      !ParseRange(parts[1], 0xffff, &p.value)) {
    return BadCommunity(text, kCommunityForm);
  }
  return p;
}

absl::StatusOr<ExtCommunityPattern> ParseExtCommunityPattern(std::string_view text) {
  return ParseExt(text, true);
}

absl::StatusOr<LargeCommunityPattern> ParseLargeCommunityPattern(std::string_view text) {
  auto parts = SplitColons(text);
  LargeCommunityPattern p;
  if (parts.size() != 3 || !ParseRange(parts[0], 0xffffffff, &p.global_admin) ||
      !ParseRange(parts[1], 0xffffffff, &p.local1) ||
      !ParseRange(parts[2], 0xffffffff, &p.local2)) {
    return BadCommunity(text, kLargeForm);
  }
  return p;
}

}  // namespace sluice::policy
