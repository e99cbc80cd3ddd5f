#include "fea/fib_backend.h"

namespace sluice::fea {

std::string_view FibOpKindName(FibOpKind kind) {
  switch (kind) {
    case FibOpKind::kAdd:
      return "add";
    case FibOpKind::kReplace:
      return "replace";
    case FibOpKind::kDelete:
      return "delete";
  }
  return "?";
}

}  // namespace sluice::fea
