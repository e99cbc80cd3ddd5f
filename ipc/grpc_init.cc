#include "ipc/grpc_init.h"

#include <mutex>

#include "grpc/grpc.h"

namespace sluice::ipc {

void HoldGrpcForProcessLifetime() {
  static std::once_flag once;
  std::call_once(once, [] { grpc_init(); });
}

}  // namespace sluice::ipc
