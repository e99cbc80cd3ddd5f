#pragma once
// The stack machine that runs a compiled Program on one route through the route's VarRW.
// Thread-safe: any number of threads may run the same Program at once (each run keeps its own
// stack; scratch space for new community lists and AS paths is per thread and reused, so a run
// does not allocate once warm).

#include <vector>

#include "policy/program.h"
#include "policy/var_rw.h"

namespace sluice::policy {

struct Result {
  Verdict verdict = Verdict::kReject;
  bool modified = false;  // some action wrote a variable (even when the verdict is reject)
  bool accepted() const { return verdict == Verdict::kAccept; }
};

Result RunProgram(const Program& program, VarRW& rw);

// As RunProgram, and marks (*executed)[pc] for each instruction run (the vector is resized to the
// program's length and not cleared, so calls accumulate). For coverage checks in tests.
Result RunProgramTraced(const Program& program, VarRW& rw, std::vector<bool>* executed);

}  // namespace sluice::policy
