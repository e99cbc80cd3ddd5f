#include "finder/access_list.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "ipc/method_name.h"

namespace sluice::finder {

absl::StatusOr<AccessList> AccessList::Parse(std::string_view text) {
  AccessList list;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    ++line_number;
    absl::Status status = list.AddRuleAt(std::string_view(line.data(), line.size()), line_number);
    if (!status.ok()) return status;
  }
  return list;
}

absl::StatusOr<AccessList> AccessList::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrFormat("cannot read access list %s", path));
  std::stringstream text;
  text << in.rdbuf();
  auto list = Parse(text.str());
  if (!list.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("access list %s: %s", path, list.status().message()));
  }
  return list;
}

absl::Status AccessList::AddRule(std::string_view rule) { return AddRuleAt(rule, 0); }

absl::Status AccessList::AddRuleAt(std::string_view line, int line_number) {
  size_t hash = line.find('#');
  if (hash != std::string_view::npos) line = line.substr(0, hash);
  std::vector<std::string> words = absl::StrSplit(absl::string_view(line.data(), line.size()),
                                                  absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
  if (words.empty()) return absl::OkStatus();
  auto error = [&](std::string_view what) {
    std::string where =
        line_number > 0 ? absl::StrFormat("line %d: ", line_number) : std::string("access rule: ");
    return absl::InvalidArgumentError(absl::StrFormat("%s%s in \"%s\"", where, what, line));
  };
  if (words.size() != 4) return error("want: allow|deny CALLER TARGET INTERFACE");
  if (words[0] != "allow" && words[0] != "deny")
    return error("the rule must start with allow or deny");
  Rule rule{words[0] == "allow", words[1], words[2], words[3]};
  if (rule.service != "*" && rule.service.find('/') != std::string::npos) {
    size_t slash = rule.service.find('/');
    auto service = ipc::InterfaceToService(std::string_view(rule.service).substr(0, slash),
                                           std::string_view(rule.service).substr(slash + 1));
    if (!service.ok()) return error(std::string(service.status().message()));
    rule.service = *service;
  }
  rules_.push_back(std::move(rule));
  return absl::OkStatus();
}

bool AccessList::Allows(const Party& caller, const Party& target, std::string_view service) const {
  if (rules_.empty()) return true;
  auto matches = [](const std::string& pattern, const Party& party) {
    return pattern == "*" || pattern == party.class_name || pattern == party.instance_name;
  };
  for (const Rule& rule : rules_) {
    if (matches(rule.caller, caller) && matches(rule.target, target) &&
        (rule.service == "*" || rule.service == service)) {
      return rule.allow;
    }
  }
  return false;
}

}  // namespace sluice::finder
