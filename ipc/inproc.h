#pragma once
// The routers living in this process, so that a call between two of them skips gRPC and
// serialization (internal to ipc/). A router registers the endpoint "inproc:PROCESS/ID" with the
// Finder; PROCESS is random per process, so another process never mistakes it for its own.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace sluice::ipc::internal {

class RouterCore;

// Adds a router; returns its endpoint "inproc:PROCESS/ID".
std::string AddInprocRouter(const std::weak_ptr<RouterCore>& router);
void RemoveInprocRouter(const std::string& endpoint);
// The live router at `endpoint` when it is in this process, else null.
std::shared_ptr<RouterCore> FindInprocRouter(std::string_view endpoint);

}  // namespace sluice::ipc::internal
