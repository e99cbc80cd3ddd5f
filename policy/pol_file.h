#pragma once
// .pol files: tests of the policy language written in the language (BIRD's bt_assert idea).
// A .pol file holds policy items (sets and policy statements, as in a policy block) and tests:
//
//   test NAME {
//     route {                        # the input route: any of
//       protocol bgp;                #   protocol NAME   to-protocol NAME
//       network 10.1.0.0/16;         #   network PREFIX (or network4 / network6)
//       nexthop 192.0.2.1;           #   nexthop ADDRESS   neighbor ADDRESS   to-neighbor ADDRESS
//       as-path "65001 65002";       #   as-path "PATH"   tag N   origin igp|egp|incomplete
//       community [ 65000:100 ];     #   med N   local-pref N   local-as N
//       rpki invalid;                #   rpki valid|invalid|not-found (absent: none)
//     }                              #   community / ext-community / large-community [ ... ]
//     filter [ import-a import-b ];  # the chain (one name without brackets is fine)
//     default reject;                # the bank's default verdict (accept when omitted)
//     expect {
//       accept;                      # the verdict: accept or reject (required)
//       local-pref 200;              # attributes after the run, in the route syntax; "none"
//       nexthop self;                # for an absent one; nexthop also takes self / peer.
//     }                              # Attributes not listed must be unchanged.
//   }
//
// A route's protocol defaults to "bgp" and its network to 0.0.0.0/0; other attributes are absent
// until given. Tests run in file order; each one compiles its filter from the file's policies.

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "policy/ast.h"
#include "policy/compiler.h"
#include "policy/simple_route.h"
#include "policy/vm.h"

namespace sluice::policy {

struct PolTest {
  std::string name;
  SourceLocation loc;
  SimpleRoute route;
  FilterSpec spec;
  Verdict expected_verdict = Verdict::kAccept;
  SimpleRoute expected_route;  // the input with the expect block's attributes applied
};

struct PolFile {
  PolicyConfig config;
  std::vector<PolTest> tests;
};

// Errors name FILE:LINE:COL as the policy parser's do.
absl::StatusOr<PolFile> ParsePolFile(std::string_view text, const std::string& file);

struct PolOutcome {
  bool passed = false;
  std::string failure;  // "FILE:LINE:COL: test NAME: expected ..., got ..." when !passed
  Result result;
  SimpleRoute route_after;
  // Which match kinds and action kinds the run executed (indexed by MatchKind / ActionKind).
  std::vector<bool> matches_run = std::vector<bool>(kMatchKindCount);
  std::vector<bool> actions_run = std::vector<bool>(kActionKindCount);
};

// Compiles the test's filter from file.config and runs it on the test's route.
PolOutcome RunPolTest(const PolFile& file, const PolTest& test);

}  // namespace sluice::policy
