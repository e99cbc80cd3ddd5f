#include "ipc/call_metadata.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "grpcpp/server_context.h"

namespace sluice::ipc {

std::string HexKey(std::string_view octets) {
  return absl::BytesToHexString(absl::string_view(octets.data(), octets.size()));
}

std::string KeyFromHex(std::string_view hex) {
  if (hex.empty()) return "";
  // Present but wrong: one octet that matches no key.
  if (hex.size() != 32 || !std::all_of(hex.begin(), hex.end(), absl::ascii_isxdigit)) {
    return std::string(1, '\0');
  }
  return absl::HexStringToBytes(absl::string_view(hex.data(), hex.size()));
}

std::string_view MetadataValue(const grpc::ServerContextBase& context, const char* name) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(name);
  if (it == metadata.end()) return {};
  return std::string_view(it->second.data(), it->second.size());
}

}  // namespace sluice::ipc
