#include "fea/fib_route.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace sluice::fea {

std::string Nexthop::ToString() const {
  std::string s;
  if (gateway.has_value()) absl::StrAppend(&s, "via ", gateway->ToString());
  if (!interface.empty()) absl::StrAppend(&s, s.empty() ? "" : " ", "dev ", interface);
  if (onlink) absl::StrAppend(&s, " onlink");
  if (weight != 1) absl::StrAppend(&s, " weight ", weight);
  if (s.empty()) s = "(no nexthop)";
  return s;
}

std::string FibRoute::ToString() const {
  std::string s = prefix.ToString();
  for (const Nexthop& nh : nexthops) absl::StrAppend(&s, " ", nh.ToString());
  if (metric != 0) absl::StrAppend(&s, " metric ", metric);
  if (!protocol.empty()) absl::StrAppend(&s, " proto ", protocol);
  return s;
}

absl::StatusOr<FibRoute> FibRoute::Parse(std::string_view text) {
  std::vector<absl::string_view> words =
      absl::StrSplit(absl::string_view(text.data(), text.size()), ' ', absl::SkipWhitespace());
  auto error = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrFormat("invalid route \"%s\": %s", text, what));
  };
  if (words.empty()) return error("empty");
  FibRoute route;
  auto prefix = net::Prefix::Parse(std::string_view(words[0].data(), words[0].size()));
  if (!prefix.ok()) return error(std::string(prefix.status().message()));
  route.prefix = *prefix;
  for (size_t i = 1; i < words.size(); ++i) {
    absl::string_view w = words[i];
    bool has_value = i + 1 < words.size();
    if (w == "onlink") {
      if (route.nexthops.empty()) return error("\"onlink\" before any nexthop");
      route.nexthops.back().onlink = true;
      continue;
    }
    if (!has_value) return error(absl::StrCat("\"", w, "\" needs a value"));
    absl::string_view v = words[++i];
    if (w == "via") {
      auto gw = net::IPAddress::Parse(std::string_view(v.data(), v.size()));
      if (!gw.ok()) return error(std::string(gw.status().message()));
      route.nexthops.push_back(Nexthop{*gw, "", false, 1});
    } else if (w == "dev") {
      if (route.nexthops.empty() || !route.nexthops.back().interface.empty()) {
        route.nexthops.push_back(Nexthop{});
      }
      route.nexthops.back().interface = std::string(v);
    } else if (w == "weight") {
      uint32_t weight = 0;
      if (route.nexthops.empty()) return error("\"weight\" before any nexthop");
      if (!absl::SimpleAtoi(v, &weight) || weight < 1 || weight > 256) {
        return error(absl::StrCat("weight \"", v, "\" is not a number in 1..256"));
      }
      route.nexthops.back().weight = static_cast<uint16_t>(weight);
    } else if (w == "metric") {
      if (!absl::SimpleAtoi(v, &route.metric)) {
        return error(absl::StrCat("metric \"", v, "\" is not a 32-bit unsigned number"));
      }
    } else if (w == "proto") {
      route.protocol = std::string(v);
    } else {
      return error(absl::StrCat("unknown keyword \"", w, "\""));
    }
  }
  if (route.nexthops.empty()) return error("no nexthop (\"via ADDRESS\" or \"dev INTERFACE\")");
  return route;
}

}  // namespace sluice::fea
