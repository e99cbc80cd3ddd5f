#pragma once
// The compiler: a chain of policy statements (a filter bank's "import [ a b c ]") and the bank's
// default verdict into one stack-machine Program (policy/program.h).
//
// Semantics of a chain (XORP / Junos):
//   - Policies run in order; in each, terms run in order.
//   - A term matches when every line of its from block and of its to block matches (an empty
//     block matches everything). A matching term runs its actions in order.
//   - accept / reject end the whole chain with that verdict; modifications made so far stay.
//   - next term (or a matching term without a flow action, or a term that does not match) goes
//     on with the next term; after the last term the next policy runs.
//   - next policy skips the rest of this policy's terms.
//   - When the last policy ends without a verdict, the bank's default verdict applies.
// Default verdicts are the caller's: BGP import accepts unless RFC 8212 (eBGP without a policy)
// says otherwise, BGP export likewise, RIB redistribution rejects (nothing is redistributed
// unless a policy accepts it). That choice belongs to the stage that owns the bank.
//
// The compiler checks what the parser could not: a referenced set exists and is of the right
// kind, community set/add lists are exact values, and each variable read or written is one the
// bank supports. Errors are InvalidArgument "FILE:LINE:COL: message" at the offending line.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "policy/ast.h"
#include "policy/program.h"
#include "policy/var.h"

namespace sluice::policy {

struct FilterSpec {
  std::vector<std::string> policies;  // the chain, in order (may be empty)
  Verdict default_verdict = Verdict::kAccept;
  // Where the chain was written (the router manager's "import [ ... ]"), for errors about an
  // unknown policy; errors have no location prefix when its file is empty.
  SourceLocation where;
};

struct CompileOptions {
  // Variables this bank's routes provide and accept: a BGP bank all of them, the RIB's no
  // AS path or communities. Using another is a compile error at the line that does.
  VarSet readable = VarSet::All();
  VarSet writable = VarSet::All();
  // Emit TEST superinstructions for match lines (faster); false gives LOAD/MATCH/JUMP_IF_FALSE.
  bool fuse_tests = true;
};

absl::StatusOr<std::unique_ptr<Program>> CompileProgram(const PolicyConfig& config,
                                                        const FilterSpec& spec,
                                                        const CompileOptions& options = {});

// Compiles every policy statement of `config` on its own, so that a configuration with an error
// in a statement no bank uses yet is still refused. Returns the first error.
absl::Status CheckPolicyConfig(const PolicyConfig& config, const CompileOptions& options = {});

}  // namespace sluice::policy
