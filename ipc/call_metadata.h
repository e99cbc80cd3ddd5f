#pragma once
// The gRPC metadata of a plain unary Sluice call (ipc/proto/channel.proto): how the Finder's
// relay and any gRPC client say who calls with which key, and which component a relayed call
// is for.
//
//   sluice-key     the method key the Finder derived for the caller, 32 hex digits
//   sluice-caller  the caller's identity "CLASS/INSTANCE"
//   sluice-target  on a call to the Finder itself: the instance to relay it to

#include <string>
#include <string_view>

namespace grpc {
class ServerContextBase;
}

namespace sluice::ipc {

inline constexpr char kKeyMetadata[] = "sluice-key";
inline constexpr char kCallerMetadata[] = "sluice-caller";
inline constexpr char kTargetMetadata[] = "sluice-target";

// Octets as lower-case hex digits.
std::string HexKey(std::string_view octets);
// Hex digits (either case) as octets; a one-octet "\0" (which matches no key) when `hex` is not
// exactly 32 hex digits, "" when it is empty.
std::string KeyFromHex(std::string_view hex);
// The value of the call's metadata entry `name`, "" when absent; valid during the call.
std::string_view MetadataValue(const grpc::ServerContextBase& context, const char* name);

}  // namespace sluice::ipc
