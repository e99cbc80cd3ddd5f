#include "ipc/xrl.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"

namespace sluice::ipc {
namespace {

constexpr absl::string_view kScheme = "finder://";

bool IsTargetChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}
bool IsNameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }
bool IsVersionChar(char c) { return (c >= '0' && c <= '9') || c == '.'; }

}  // namespace

absl::StatusOr<Xrl> Xrl::Parse(std::string_view text) {
  size_t begin = 0;
  while (begin < text.size() && (text[begin] == ' ' || text[begin] == '\t')) ++begin;
  size_t end = text.size();
  while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\n' ||
                         text[end - 1] == '\r')) {
    --end;
  }
  auto error = [&](size_t pos, std::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrFormat("column %d: %s", static_cast<int>(pos) + 1, what));
  };
  if (text.substr(begin, kScheme.size()) != std::string_view(kScheme.data(), kScheme.size())) {
    return error(begin,
                 "an XRL starts with finder:// (finder://TARGET/INTERFACE/VERSION/METHOD?ARGS)");
  }
  size_t pos = begin + kScheme.size();
  Xrl xrl;
  struct Part {
    std::string* out;
    bool (*ok)(char);
    std::string_view what;
    char terminator;
  };
  const Part parts[] = {
      {&xrl.target, IsTargetChar, "target name (want letters, digits, '_', '-', '.')", '/'},
      {&xrl.interface, IsNameChar, "interface name (want lower-case letters, digits, '_')", '/'},
      {&xrl.version, IsVersionChar, "version (want MAJOR.MINOR such as 1.0)", '/'},
      {&xrl.method, IsNameChar, "method name (want lower-case letters, digits, '_')", '?'},
  };
  for (const Part& part : parts) {
    size_t start = pos;
    while (pos < end && part.ok(text[pos])) ++pos;
    std::string_view value = text.substr(start, pos - start);
    bool last = part.terminator == '?';
    if (value.empty() || (pos < end && text[pos] != part.terminator) || (pos >= end && !last)) {
      std::string_view shown =
          text.substr(start, std::min(end, text.find_first_of("/?", start)) - start);
      return error(start, absl::StrFormat("bad %s: \"%s\"", part.what, shown));
    }
    *part.out = std::string(value);
    if (pos < end) ++pos;  // the terminator
  }
  if (auto method = xrl.method_name(); !method.ok()) {
    return error(begin + kScheme.size() + xrl.target.size() + 1,
                 std::string(method.status().message()));
  }
  ASSIGN_OR_RETURN(xrl.args, XrlArgs::Parse(text.substr(pos, end - pos), static_cast<int>(pos)));
  return xrl;
}

std::string Xrl::ToString() const {
  std::string out = absl::StrCat(kScheme, target, "/", interface, "/", version, "/", method);
  if (!args.empty()) {
    out.push_back('?');
    args.AppendTo(&out);
  }
  return out;
}

absl::StatusOr<MethodName> Xrl::method_name() const {
  return MethodName::Parse(absl::StrCat(interface, "/", version, "/", method));
}

}  // namespace sluice::ipc
