#pragma once
// Method keys bound to a caller (DESIGN.md § IPC, § Security).
//
// The Finder draws a secret of 16 random octets for every method a component registers and
// gives it to that component only. A caller resolving the method receives
//
//   key = HMAC-SHA256(secret, caller id "CLASS/INSTANCE"), first 16 octets
//
// and presents the key with its id on every bind (or unary call). The receiver recomputes the
// key from its secret and the presented id: a match proves the Finder resolved this method for
// exactly this caller, so the id can be trusted without asking the Finder again.

#include <string>
#include <string_view>

namespace sluice::ipc {

inline constexpr size_t kMethodKeySize = 16;

// The key of `caller_id` for a method whose secret is `secret` (16 octets).
std::string CallerKey(std::string_view secret, std::string_view caller_id);
// Equal lengths and contents, in time independent of where they differ.
bool SameKey(std::string_view a, std::string_view b);

// A class credential (32 octets): HMAC-SHA256(master key, "sluice class " + class_name). The
// router manager gives each process it starts its class's credential; the Finder, holding the
// master key, checks it at registration.
std::string ClassCredential(std::string_view master_key, std::string_view class_name);

}  // namespace sluice::ipc
