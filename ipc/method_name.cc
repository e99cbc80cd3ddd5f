#include "ipc/method_name.h"

#include <cctype>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"

namespace sluice::ipc {
namespace {

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

absl::Status BadName(std::string_view what, std::string_view text, std::string_view rule) {
  return absl::InvalidArgumentError(absl::StrFormat("bad %s \"%s\": %s", what, text, rule));
}

// "1.0" -> "v1", "2.3" -> "v2_3".
absl::StatusOr<std::string> VersionToPackage(std::string_view version) {
  size_t dot = version.find('.');
  auto digits = [](std::string_view s) {
    if (s.empty() || s.size() > 9) return false;
    for (char c : s)
      if (!IsDigit(c)) return false;
    return !(s.size() > 1 && s[0] == '0');
  };
  if (dot == std::string_view::npos || !digits(version.substr(0, dot)) ||
      !digits(version.substr(dot + 1))) {
    return BadName("XRL version", version, "want MAJOR.MINOR such as 1.0");
  }
  std::string major(version.substr(0, dot));
  std::string minor(version.substr(dot + 1));
  if (minor == "0") return "v" + major;
  return absl::StrCat("v", major, "_", minor);
}

// "v1" -> "1.0", "v2_3" -> "2.3".
absl::StatusOr<std::string> PackageToVersion(std::string_view v) {
  auto bad = [&] { return BadName("package version", v, "want vMAJOR or vMAJOR_MINOR"); };
  if (v.size() < 2 || v[0] != 'v') return bad();
  std::string_view rest = v.substr(1);
  size_t us = rest.find('_');
  std::string_view major = rest.substr(0, us);
  std::string_view minor = us == std::string_view::npos ? "0" : rest.substr(us + 1);
  for (std::string_view part : {major, minor}) {
    if (part.empty() || part.size() > 9 || (part.size() > 1 && part[0] == '0')) return bad();
    for (char c : part)
      if (!IsDigit(c)) return bad();
  }
  if (us != std::string_view::npos && minor == "0") return bad();
  return absl::StrCat(std::string(major), ".", std::string(minor));
}

bool IsIdentifier(std::string_view s) {
  if (s.empty() || !(IsLower(s[0]) || IsUpper(s[0]) || s[0] == '_')) return false;
  for (char c : s)
    if (!(IsLower(c) || IsUpper(c) || IsDigit(c) || c == '_')) return false;
  return true;
}

bool IsServiceName(std::string_view s) {
  if (s.empty()) return false;
  for (absl::string_view part : absl::StrSplit(absl::string_view(s.data(), s.size()), '.')) {
    if (!IsIdentifier(std::string_view(part.data(), part.size()))) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> SnakeToCamel(std::string_view snake) {
  constexpr std::string_view kRule =
      "want lower-case words of letters and digits joined by single '_', each word starting "
      "with a letter";
  if (snake.empty()) return BadName("name", snake, kRule);
  std::string out;
  bool word_start = true;
  for (char c : snake) {
    if (c == '_') {
      if (word_start) return BadName("name", snake, kRule);
      word_start = true;
      continue;
    }
    if (word_start) {
      if (!IsLower(c)) return BadName("name", snake, kRule);
      out.push_back(static_cast<char>(c - 'a' + 'A'));
      word_start = false;
    } else {
      if (!IsLower(c) && !IsDigit(c)) return BadName("name", snake, kRule);
      out.push_back(c);
    }
  }
  if (word_start) return BadName("name", snake, kRule);
  return out;
}

absl::StatusOr<std::string> CamelToSnake(std::string_view camel) {
  constexpr std::string_view kRule =
      "want UpperCamelCase: letters and digits starting with a capital";
  if (camel.empty() || !IsUpper(camel[0])) return BadName("name", camel, kRule);
  std::string out;
  for (size_t i = 0; i < camel.size(); ++i) {
    char c = camel[i];
    if (IsUpper(c)) {
      if (i > 0) out.push_back('_');
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else if (IsLower(c) || IsDigit(c)) {
      out.push_back(c);
    } else {
      return BadName("name", camel, kRule);
    }
  }
  return out;
}

absl::StatusOr<std::string> InterfaceToService(std::string_view interface,
                                               std::string_view version) {
  ASSIGN_OR_RETURN(std::string service, SnakeToCamel(interface));
  ASSIGN_OR_RETURN(std::string v, VersionToPackage(version));
  return absl::StrCat("sluice.", std::string(interface), ".", v, ".", service);
}

absl::StatusOr<XrlInterface> ServiceToInterface(std::string_view service) {
  std::vector<std::string> parts =
      absl::StrSplit(absl::string_view(service.data(), service.size()), '.');
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "service \"%s\" has no XRL name: %s (want sluice.INTERFACE.vN.Interface)", service, why));
  };
  if (parts.size() != 4 || parts[0] != "sluice") return bad("not sluice.INTERFACE.vN.Service");
  auto version = PackageToVersion(parts[2]);
  if (!version.ok()) return bad(std::string(version.status().message()));
  auto camel = SnakeToCamel(parts[1]);
  if (!camel.ok()) return bad(std::string(camel.status().message()));
  if (*camel != parts[3]) {
    return bad(absl::StrFormat("service name %s does not match interface %s (want %s)", parts[3],
                               parts[1], *camel));
  }
  return XrlInterface{parts[1], *version};
}

absl::StatusOr<MethodName> MethodName::FromService(std::string_view service, std::string_view rpc) {
  if (!IsServiceName(service)) {
    return BadName("service name", service, "want dotted identifiers like sluice.rib.v1.Rib");
  }
  if (!IsIdentifier(rpc)) return BadName("rpc name", rpc, "want an identifier like AddRoute4");
  MethodName m;
  m.service_ = std::string(service);
  m.rpc_ = std::string(rpc);
  m.path_ = absl::StrCat("/", m.service_, "/", m.rpc_);
  auto iface = ServiceToInterface(service);
  auto method = CamelToSnake(rpc);
  if (iface.ok() && method.ok()) {
    m.xrl_ = absl::StrCat(iface->interface, "/", iface->version, "/", *method);
  }
  return m;
}

absl::StatusOr<MethodName> MethodName::Parse(std::string_view text) {
  if (!text.empty() && text[0] == '/') {  // gRPC path
    size_t slash = text.find('/', 1);
    if (slash == std::string_view::npos) {
      return BadName("method path", text, "want /PACKAGE.SERVICE/RPC");
    }
    return FromService(text.substr(1, slash - 1), text.substr(slash + 1));
  }
  if (text.find('/') != std::string_view::npos) {  // XRL interface/version/method
    std::vector<std::string> parts =
        absl::StrSplit(absl::string_view(text.data(), text.size()), '/');
    if (parts.size() != 3) {
      return BadName("XRL method", text, "want INTERFACE/VERSION/METHOD like rib/1.0/add_route4");
    }
    ASSIGN_OR_RETURN(std::string service, InterfaceToService(parts[0], parts[1]));
    ASSIGN_OR_RETURN(std::string rpc, SnakeToCamel(parts[2]));
    return FromService(service, rpc);
  }
  size_t dot = text.rfind('.');  // protobuf full name
  if (dot == std::string_view::npos) {
    return BadName("method name", text,
                   "want rib/1.0/add_route4, sluice.rib.v1.Rib.AddRoute4 or "
                   "/sluice.rib.v1.Rib/AddRoute4");
  }
  return FromService(text.substr(0, dot), text.substr(dot + 1));
}

}  // namespace sluice::ipc
