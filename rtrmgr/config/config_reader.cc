#include "rtrmgr/config/config_reader.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace sluice::rtrmgr {

BlockReader& BlockReader::Once(std::string keyword, Handler handler) {
  entries_.push_back(Entry{std::move(keyword), std::move(handler), true});
  return *this;
}

BlockReader& BlockReader::Many(std::string keyword, Handler handler) {
  entries_.push_back(Entry{std::move(keyword), std::move(handler), false});
  return *this;
}

BlockReader& BlockReader::Otherwise(Handler handler) {
  otherwise_ = std::move(handler);
  return *this;
}

void BlockReader::Read(const std::vector<ConfigNode>& statements) {
  std::vector<const ConfigNode*> seen(entries_.size(), nullptr);
  for (const ConfigNode& n : statements) {
    size_t i = 0;
    while (i < entries_.size() && entries_[i].keyword != n.keyword) ++i;
    if (i == entries_.size()) {
      if (otherwise_) {
        otherwise_(n);
        continue;
      }
      std::vector<std::string> known;
      for (const Entry& e : entries_) known.push_back(e.keyword);
      diags_->Add(n.loc, absl::StrFormat("unknown keyword '%s' in %s (expected one of: %s)",
                                         n.keyword, context_, absl::StrJoin(known, ", ")));
      continue;
    }
    if (entries_[i].once && seen[i] != nullptr) {
      diags_->Add(n.loc, absl::StrFormat("'%s' given twice in %s (first at %s)", n.keyword,
                                         context_, seen[i]->loc.ToString()));
      continue;
    }
    seen[i] = &n;
    entries_[i].handler(n);
  }
}

namespace {

bool NoBlock(const ConfigNode& n, std::string_view usage, Diagnostics* d) {
  if (!n.has_block) return true;
  d->Add(n.loc, absl::StrFormat("'%s' takes no block: %s", n.keyword, usage));
  return false;
}

}  // namespace

bool ExpectArgRange(const ConfigNode& n, size_t min, size_t max, std::string_view usage,
                    Diagnostics* d) {
  if (n.args.size() > max) {
    ConfigNode shown = n;
    shown.args.resize(max);
    d->Add(n.args[max].loc, absl::StrFormat("expected ';' after '%s', found %s", shown.Summary(),
                                            n.args[max].Describe()));
    return false;
  }
  if (n.args.size() < min) {
    d->Add(n.loc, absl::StrFormat("'%s' needs %s: %s", n.keyword,
                                  min - n.args.size() == 1 && min == 1 ? "a value" : "more values",
                                  usage));
    return false;
  }
  return NoBlock(n, usage, d);
}

bool ExpectArgs(const ConfigNode& n, size_t count, std::string_view usage, Diagnostics* d) {
  return ExpectArgRange(n, count, count, usage, d);
}

bool ExpectBlock(const ConfigNode& n, size_t count, std::string_view usage, Diagnostics* d) {
  if (n.args.size() > count) {
    ConfigNode shown = n;
    shown.args.resize(count);
    d->Add(n.args[count].loc, absl::StrFormat("expected '{' after '%s', found %s", shown.Summary(),
                                              n.args[count].Describe()));
    return false;
  }
  if (n.args.size() < count) {
    d->Add(n.loc, absl::StrFormat("'%s' needs a name: %s", n.keyword, usage));
    return false;
  }
  if (!n.has_block) {
    d->Add(n.loc, absl::StrFormat("'%s' needs a block: %s", n.Summary(), usage));
    return false;
  }
  return true;
}

const ConfigValue* ExpectOne(const ConfigNode& n, std::string_view usage, Diagnostics* d) {
  if (!ExpectArgs(n, 1, usage, d)) return nullptr;
  if (n.args[0].kind == ConfigValue::Kind::kList) {
    d->Add(n.args[0].loc,
           absl::StrFormat("'%s' takes one value, not a list: %s", n.keyword, usage));
    return nullptr;
  }
  return &n.args[0];
}

bool IsWord(const ConfigValue& v, std::string_view word) {
  return v.kind == ConfigValue::Kind::kWord && v.text == word;
}

std::vector<const ConfigValue*> Members(const ConfigValue& v) {
  std::vector<const ConfigValue*> out;
  if (v.kind != ConfigValue::Kind::kList) {
    out.push_back(&v);
    return out;
  }
  for (const ConfigValue& item : v.items) out.push_back(&item);
  return out;
}

namespace {

bool AllDigits(std::string_view s) {
  if (s.empty() || s.size() > 19) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool NotAList(const ConfigValue& v, std::string_view what, Diagnostics* d) {
  if (v.kind != ConfigValue::Kind::kList) return true;
  d->Add(v.loc, absl::StrFormat("expected %s, found a list", what));
  return false;
}

}  // namespace

std::optional<uint64_t> ReadNumber(const ConfigValue& v, uint64_t min, uint64_t max,
                                   std::string_view what, Diagnostics* d) {
  if (!NotAList(v, what, d)) return std::nullopt;
  uint64_t n = 0;
  const bool digits = v.kind == ConfigValue::Kind::kWord && AllDigits(v.text);
  if (!digits || !absl::SimpleAtoi(v.text, &n)) {
    if (v.kind == ConfigValue::Kind::kWord && !v.text.empty() && v.text.size() > 19 &&
        AllDigits(v.text.substr(0, 19))) {
      d->Add(v.loc, absl::StrFormat("%s %s is out of range %d..%d", what, v.text, min, max));
    } else {
      d->Add(v.loc, absl::StrFormat("expected %s (a number %d..%d), found %s", what, min, max,
                                    v.Describe()));
    }
    return std::nullopt;
  }
  if (n < min || n > max) {
    d->Add(v.loc, absl::StrFormat("%s %d is out of range %d..%d", what, n, min, max));
    return std::nullopt;
  }
  return n;
}

std::optional<net::IPAddress> ReadAddress(const ConfigValue& v, const net::Family* family,
                                          std::string_view what, Diagnostics* d) {
  if (!NotAList(v, what, d)) return std::nullopt;
  auto a = net::IPAddress::Parse(v.text);
  if (v.kind != ConfigValue::Kind::kWord || !a.ok()) {
    d->Add(v.loc, absl::StrFormat("expected %s (an %s address), found %s", what,
                                  family == nullptr               ? "IPv4 or IPv6"
                                  : *family == net::Family::kIPv4 ? "IPv4"
                                                                  : "IPv6",
                                  v.Describe()));
    return std::nullopt;
  }
  if (family != nullptr && a->family() != *family) {
    d->Add(v.loc, absl::StrFormat("%s %s is an %s address; expected %s", what, v.text,
                                  a->is_v4() ? "IPv4" : "IPv6",
                                  *family == net::Family::kIPv4 ? "IPv4" : "IPv6"));
    return std::nullopt;
  }
  if (a->is_unspecified()) {
    d->Add(v.loc, absl::StrFormat("%s %s is the unspecified address", what, v.text));
    return std::nullopt;
  }
  return *a;
}

std::optional<net::Prefix> ReadPrefix(const ConfigValue& v, std::string_view what, Diagnostics* d) {
  if (!NotAList(v, what, d)) return std::nullopt;
  auto p = net::Prefix::Parse(v.text);
  if (v.kind == ConfigValue::Kind::kWord && p.ok()) return *p;
  auto masked = net::Prefix::ParseAndMask(v.text);
  if (v.kind == ConfigValue::Kind::kWord && masked.ok()) {
    d->Add(v.loc, absl::StrFormat("host bits set in %s '%s' (did you mean %s?)", what, v.text,
                                  masked->ToString()));
  } else {
    d->Add(v.loc, absl::StrFormat("expected %s (ADDRESS/LENGTH, IPv4 or IPv6), found %s", what,
                                  v.Describe()));
  }
  return std::nullopt;
}

std::optional<uint32_t> ReadDuration(const ConfigValue& v, uint32_t min_s, uint32_t max_s,
                                     std::string_view what, Diagnostics* d) {
  if (!NotAList(v, what, d)) return std::nullopt;
  std::string_view text = v.text;
  uint64_t unit = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 's':
        unit = 1;
        text.remove_suffix(1);
        break;
      case 'm':
        unit = 60;
        text.remove_suffix(1);
        break;
      case 'h':
        unit = 3600;
        text.remove_suffix(1);
        break;
      default:
        break;
    }
  }
  uint64_t n = 0;
  if (v.kind != ConfigValue::Kind::kWord || !AllDigits(text) ||
      !absl::SimpleAtoi(absl::string_view(text.data(), text.size()), &n)) {
    d->Add(v.loc, absl::StrFormat("expected %s (a duration such as 90s, 15m or 1h), found %s", what,
                                  v.Describe()));
    return std::nullopt;
  }
  if (n > (uint64_t{1} << 40) || n * unit < min_s || n * unit > max_s) {
    d->Add(v.loc, absl::StrFormat("%s %s is out of range %s..%s", what, v.text,
                                  FormatDuration(min_s), FormatDuration(max_s)));
    return std::nullopt;
  }
  return static_cast<uint32_t>(n * unit);
}

std::optional<std::string> ReadName(const ConfigValue& v, std::string_view allowed,
                                    size_t max_length, bool first_digit_ok, std::string_view what,
                                    Diagnostics* d) {
  if (!NotAList(v, what, d)) return std::nullopt;
  const std::string& s = v.text;
  bool ok = !s.empty() && s.size() <= max_length;
  for (size_t i = 0; ok && i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = absl::ascii_isalpha(static_cast<unsigned char>(c));
    const bool digit = absl::ascii_isdigit(static_cast<unsigned char>(c));
    const bool other = allowed.find(c) != std::string_view::npos;
    if (i == 0) {
      ok = alpha || (digit && first_digit_ok) || c == '_';
      ok = ok && (c != '_' || other);
    } else {
      ok = alpha || digit || other;
    }
  }
  if (!ok) {
    d->Add(v.loc, absl::StrFormat("expected %s (1..%d characters: letters, digits and '%s'), "
                                  "found %s",
                                  what, max_length, allowed, v.Describe()));
    return std::nullopt;
  }
  return s;
}

std::optional<std::string> ReadText(const ConfigValue& v, size_t max_octets, std::string_view what,
                                    Diagnostics* d) {
  if (!NotAList(v, what, d)) return std::nullopt;
  if (v.text.size() > max_octets) {
    d->Add(v.loc, absl::StrFormat("%s of %d octets is too long (at most %d)", what, v.text.size(),
                                  max_octets));
    return std::nullopt;
  }
  return v.text;
}

bool IsMulticast(const net::IPAddress& a) {
  if (a.is_v4()) return (a.v4().value() >> 28) == 0xe;
  return (a.v6().hi() >> 56) == 0xff;
}

std::string FormatDuration(uint32_t seconds) {
  if (seconds != 0 && seconds % 3600 == 0) return absl::StrCat(seconds / 3600, "h");
  if (seconds != 0 && seconds % 60 == 0) return absl::StrCat(seconds / 60, "m");
  return absl::StrCat(seconds, "s");
}

}  // namespace sluice::rtrmgr
