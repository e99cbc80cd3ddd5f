#pragma once
// The Finder's access list: which caller may resolve which target's interface (XORP NSDI'05
// §6.2: a process can only call what the Finder tells it, so the Finder is where calls are
// allowed or refused).
//
// One rule per line; '#' starts a comment:
//
//   allow|deny  CALLER  TARGET  INTERFACE
//
//   CALLER     the resolving component's class or instance name, or *
//   TARGET     the resolved component's class or instance name, or *
//   INTERFACE  an XRL interface "rib/1.0", a protobuf service "sluice.rib.v1.Rib", or *
//
// The first rule that matches decides. An empty list allows everything; a list with any rule
// denies what no rule matches. Example (the CLI may call anything, BGP only the RIB):
//
//   allow sluice * *
//   allow bgp    rib rib/1.0
//   allow *      *   common/1.0

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sluice::finder {

class AccessList {
 public:
  // Errors (InvalidArgument): "line N: ..." for a malformed rule.
  static absl::StatusOr<AccessList> Parse(std::string_view text);
  // Reads and parses a file. Errors: NotFound/Unavailable naming the file, or Parse's.
  static absl::StatusOr<AccessList> Load(const std::string& path);

  // Appends one rule in the line syntax above (as given by --allow/--deny flags).
  absl::Status AddRule(std::string_view rule);

  struct Party {
    std::string_view class_name;
    std::string_view instance_name;
  };
  // Whether `caller` may resolve `service` ("sluice.rib.v1.Rib") of `target`.
  bool Allows(const Party& caller, const Party& target, std::string_view service) const;

  bool empty() const { return rules_.empty(); }
  size_t size() const { return rules_.size(); }

 private:
  struct Rule {
    bool allow;
    std::string caller;   // "*" or a name
    std::string target;   // "*" or a name
    std::string service;  // "*" or a protobuf service name
  };
  absl::Status AddRuleAt(std::string_view line, int line_number);

  std::vector<Rule> rules_;
};

}  // namespace sluice::finder
