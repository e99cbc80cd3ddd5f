// sluice call 'XRL'...  |  sluice call -f FILE
//
// Prints each reply on one line in XRL argument form (empty for an empty reply). Stops at the
// first failure with exit status 1 and the error on stderr:
//   sluice call: finder://rib/rib/1.0/add_route4?...: NOT_FOUND: no such target: rib
// In a file, blank lines and lines starting with '#' are skipped; errors name the line.

#include <fstream>
#include <iostream>
#include <optional>

#include "absl/strings/str_format.h"
#include "rtrmgr/cli/command.h"
#include "rtrmgr/cli/xrl_client.h"

namespace sluice::rtrmgr::cli {
namespace {

std::string CodeName(absl::StatusCode code) { return absl::StatusCodeToString(code); }

// The XRL as echoed under a parse error: whole when it fits a terminal line or two, else its
// start (the error names the column).
std::string Shown(const std::string& text) {
  constexpr size_t kMaxShown = 160;
  if (text.size() <= kMaxShown) return text;
  return text.substr(0, kMaxShown) + absl::StrFormat("... (%d characters)", text.size());
}

// One XRL; prints its reply or the error. `where` prefixes errors ("calls.txt:3: ").
bool CallOne(XrlClient& client, const std::string& text, const std::string& where,
             Context& context) {
  auto xrl = ipc::Xrl::Parse(text);
  if (!xrl.ok()) {
    *context.err << "sluice call: " << where << "bad XRL: " << xrl.status().message() << "\n  "
                 << Shown(text) << "\n";
    return false;
  }
  auto reply = client.Call(*xrl);
  if (!reply.ok()) {
    *context.err << "sluice call: " << where << xrl->ToString() << ": "
                 << CodeName(reply.status().code()) << ": " << reply.status().message() << "\n";
    return false;
  }
  *context.out << reply->ToString() << "\n";
  context.out->flush();
  return true;
}

}  // namespace

int RunCall(const std::vector<std::string>& args, Context& context) {
  std::optional<std::string> file;
  std::vector<std::string> xrls;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-f" && i + 1 < args.size()) {
      file = args[++i];
    } else if (args[i] == "-h" || args[i] == "--help") {
      *context.out << Usage(*FindCommand("call"));
      return kOk;
    } else if (!args[i].empty() && args[i][0] == '-') {
      *context.err << "sluice call: unknown option " << args[i] << "\n";
      return kUsage;
    } else {
      xrls.push_back(args[i]);
    }
  }
  if (file.has_value() == !xrls.empty()) {
    *context.err << Usage(*FindCommand("call"));
    return kUsage;
  }
  XrlClient client(context.finder_address, context.timeout_ms);
  if (!file) {
    for (const std::string& xrl : xrls) {
      if (!CallOne(client, xrl, "", context)) return kFailed;
    }
    return kOk;
  }
  std::ifstream in(*file);
  if (!in) {
    *context.err << "sluice call: cannot read " << *file << "\n";
    return kFailed;
  }
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#') continue;
    if (!CallOne(client, line, absl::StrFormat("%s:%d: ", *file, number), context)) {
      return kFailed;
    }
  }
  return kOk;
}

}  // namespace sluice::rtrmgr::cli
