// The stayrtr / rpki-client VRP file: {"roas":[{"prefix":"P","maxLength":N,"asn":"ASn"}, ...]}.
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bench/rpki/vrp_generator.h"

namespace sluice::bench::rpki {
namespace {

// The value after `"key":` inside `object`, without quotes; "" when absent.
absl::string_view Member(absl::string_view object, absl::string_view key) {
  const std::string needle = absl::StrCat("\"", key, "\"");
  size_t at = object.find(needle);
  if (at == absl::string_view::npos) return {};
  at = object.find(':', at + needle.size());
  if (at == absl::string_view::npos) return {};
  ++at;
  while (at < object.size() && (object[at] == ' ' || object[at] == '\t')) ++at;
  if (at < object.size() && object[at] == '"') {
    const size_t end = object.find('"', at + 1);
    if (end == absl::string_view::npos) return {};
    return object.substr(at + 1, end - at - 1);
  }
  size_t end = at;
  while (end < object.size() && object[end] >= '0' && object[end] <= '9') ++end;
  return object.substr(at, end - at);
}

absl::StatusOr<Vrp> ParseRoa(absl::string_view object) {
  const absl::string_view prefix = Member(object, "prefix");
  const absl::string_view max_length = Member(object, "maxLength");
  absl::string_view asn = Member(object, "asn");
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(why, " in ROA ", object));
  };
  auto p = net::Prefix::Parse(std::string_view(prefix.data(), prefix.size()));
  if (!p.ok()) return bad("no valid prefix");
  uint32_t length = 0;
  if (!absl::SimpleAtoi(max_length, &length) || length < uint32_t(p->length()) ||
      length > uint32_t(p->max_length())) {
    return bad("no valid maxLength");
  }
  if (asn.size() > 2 && (asn.substr(0, 2) == "AS" || asn.substr(0, 2) == "as")) {
    asn.remove_prefix(2);
  }
  uint32_t as = 0;
  if (!absl::SimpleAtoi(asn, &as)) return bad("no valid asn");
  return Vrp{*p, uint8_t(length), as};
}

}  // namespace

std::string VrpJson(const std::vector<Vrp>& vrps) {
  std::string out = "{\"roas\":[\n";
  for (size_t i = 0; i < vrps.size(); ++i) {
    absl::StrAppend(&out, "{\"prefix\":\"", vrps[i].prefix.ToString(),
                    "\",\"maxLength\":", vrps[i].max_length, ",\"asn\":\"AS", vrps[i].asn, "\"}",
                    i + 1 < vrps.size() ? ",\n" : "\n");
  }
  out += "]}\n";
  return out;
}

absl::StatusOr<std::vector<Vrp>> ParseVrpJson(absl::string_view text) {
  const size_t roas = text.find("\"roas\"");
  if (roas == absl::string_view::npos) return absl::InvalidArgumentError("no \"roas\" member");
  std::vector<Vrp> out;
  size_t at = text.find('[', roas);
  while (at != absl::string_view::npos) {
    const size_t open = text.find_first_of("{]", at + 1);
    if (open == absl::string_view::npos || text[open] == ']') break;
    const size_t close = text.find('}', open);
    if (close == absl::string_view::npos) return absl::InvalidArgumentError("an unclosed ROA");
    absl::StatusOr<Vrp> vrp = ParseRoa(text.substr(open, close - open + 1));
    if (!vrp.ok()) return vrp.status();
    out.push_back(*vrp);
    at = close;
  }
  return out;
}

}  // namespace sluice::bench::rpki
