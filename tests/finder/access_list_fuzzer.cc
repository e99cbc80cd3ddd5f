// libFuzzer target: the Finder's access list. Any text is a list or an error, never a crash;
// a parsed list answers Allows() for callers, targets and services named by the words of the
// text itself (so that rules match) and by the components' own names, and an empty list allows
// everything. Only the public API is used: Parse() and Allows().
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_split.h"
#include "finder/access_list.h"
#include "ipc/method_name.h"

namespace {

constexpr size_t kMaxNames = 8;

// Distinct words of the text (at most kMaxNames), then the usual component names.
std::vector<std::string> Names(std::string_view text) {
  std::vector<std::string> names;
  for (absl::string_view word : absl::StrSplit(absl::string_view(text.data(), text.size()),
                                               absl::ByAnyChar(" \t\r\n#"), absl::SkipEmpty())) {
    if (names.size() == kMaxNames) break;
    if (std::find(names.begin(), names.end(), word) == names.end()) names.emplace_back(word);
  }
  for (const char* name : {"sluice", "bgp", "rib", "fea", "rib-2"}) names.emplace_back(name);
  return names;
}

// The services the words could stand for: as written, and "interface/version" as a service.
std::vector<std::string> Services(const std::vector<std::string>& names) {
  std::vector<std::string> services = names;
  for (const std::string& name : names) {
    const size_t slash = name.find('/');
    if (slash == std::string::npos) continue;
    auto service = sluice::ipc::InterfaceToService(std::string_view(name).substr(0, slash),
                                                   std::string_view(name).substr(slash + 1));
    if (service.ok()) services.push_back(*service);
  }
  services.push_back("sluice.rib.v1.Rib");
  return services;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using sluice::finder::AccessList;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto list = AccessList::Parse(text);
  if (!list.ok()) return 0;
  // Each name as caller (class, with the next as instance), then each following name as target
  // and each service: rules naming any of them are tried, in a number of calls that grows with
  // the names rather than with their cube.
  const std::vector<std::string> names = Names(text);
  const std::vector<std::string> services = Services(names);
  for (size_t i = 0; i < names.size(); ++i) {
    const AccessList::Party caller{names[i], names[(i + 1) % names.size()]};
    const AccessList::Party target{names[(i + 2) % names.size()], names[(i + 3) % names.size()]};
    for (const std::string& service : services) {
      if (!list->Allows(caller, target, service) && list->empty()) {
        std::fprintf(stderr, "an empty access list refused a call\n");
        std::abort();
      }
    }
  }
  return 0;
}
