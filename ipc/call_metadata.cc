#include "ipc/call_metadata.h"

namespace sluice::ipc {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string HexKey(std::string_view octets) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(octets.size() * 2);
  for (char ch : octets) {
    auto c = static_cast<unsigned char>(ch);
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string KeyFromHex(std::string_view hex) {
  if (hex.empty()) return "";
  if (hex.size() != 32) return std::string(1, '\0');  // present but wrong: never matches
  std::string key;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = HexDigit(hex[i]);
    int lo = HexDigit(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::string(1, '\0');
    key.push_back(static_cast<char>(hi * 16 + lo));
  }
  return key;
}

}  // namespace sluice::ipc
