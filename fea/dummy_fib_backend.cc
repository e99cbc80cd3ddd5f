#include "fea/dummy_fib_backend.h"

namespace sluice::fea {

void DummyFibBackend::Apply(std::span<const FibOp> ops, const InterfaceTree& /*interfaces*/,
                            std::span<absl::Status> results) {
  for (size_t i = 0; i < ops.size(); ++i) {
    if (refuse_.has_value() && ops[i].kind != FibOpKind::kDelete &&
        refuse_->Contains(ops[i].route->prefix)) {
      results[i] = absl::FailedPreconditionError("refused by the dummy forwarding plane");
      continue;
    }
    results[i] = absl::OkStatus();
    ++ops_applied_;
  }
}

}  // namespace sluice::fea
