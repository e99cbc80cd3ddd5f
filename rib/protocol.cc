#include "rib/protocol.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace sluice::rib {

const char* ProtocolClassName(ProtocolClass c) { return c == ProtocolClass::kEgp ? "egp" : "igp"; }

ProtocolDefaults DefaultsFor(std::string_view protocol) {
  struct Known {
    std::string_view name;
    ProtocolDefaults defaults;
  };
  static constexpr Known kKnown[] = {
      {"connected", {ProtocolClass::kIgp, 0}}, {"static", {ProtocolClass::kIgp, 1}},
      {"ebgp", {ProtocolClass::kEgp, 20}},     {"ospf", {ProtocolClass::kIgp, 110}},
      {"isis", {ProtocolClass::kIgp, 115}},    {"rip", {ProtocolClass::kIgp, 120}},
      {"ibgp", {ProtocolClass::kEgp, 200}},
  };
  for (const Known& k : kKnown) {
    if (k.name == protocol) return k.defaults;
  }
  return ProtocolDefaults{};
}

absl::Status ValidateProtocolName(std::string_view protocol) {
  bool ok = !protocol.empty() && protocol.size() <= 32;
  for (char c : protocol) {
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-');
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("bad protocol name \"", std::string(protocol.substr(0, 64)),
                   "\": want 1 to 32 characters of a-z, 0-9, '_' and '-'"));
}

}  // namespace sluice::rib
