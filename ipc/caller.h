#pragma once
// Caller: who made the call a handler is answering, as the Finder vouches for it (DESIGN.md
// § Security). Handlers that attribute something to their caller — protocol ownership in the
// RIB, a full push in the FEA, a subscription — use this, never a field of the request.
//
// The Finder authenticates every component when it registers (its class credential, its TLS
// certificate, or the kernel's word on a Unix socket) and hands a caller only a method key
// derived from the caller's own identity (ipc/caller_key.h); the receiving router checks the
// key against the identity the call carries, so a call cannot claim to come from anyone else.
// People reach components only through the Finder, which calls on their behalf as class
// "user" (kPersonClass) with their user name as instance.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace sluice::ipc {

// The class the Finder calls with on behalf of a person (`sluice` CLI users). No component may
// register it.
inline constexpr std::string_view kPersonClass = "user";

struct Caller {
  std::string class_name;     // "bgp", "rib", ...; kPersonClass for a person
  std::string instance_name;  // "bgp"; a person's user name ("alice", or "uid-1001")

  bool person() const { return class_name == kPersonClass; }
  // "CLASS/INSTANCE": what keys are derived from and what the call carries.
  std::string id() const { return class_name + "/" + instance_name; }
  // Parses id(). Empty class or instance, or no '/': an empty Caller.
  static Caller FromId(std::string_view id);
  bool empty() const { return class_name.empty() || instance_name.empty(); }
};

inline Caller Caller::FromId(std::string_view id) {
  size_t slash = id.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == id.size()) return Caller();
  return Caller{std::string(id.substr(0, slash)), std::string(id.substr(slash + 1))};
}

// For a request that names the component to call back or to hold something (a subscription, a
// transaction, an interest registration): `named` must be empty or the caller's own instance,
// and the caller a component. Returns the caller's instance name. Errors: PermissionDenied
// saying `method` and who is refused.
absl::StatusOr<std::string> CallerAsTarget(std::string_view method, std::string_view named,
                                           const Caller& caller);

}  // namespace sluice::ipc
