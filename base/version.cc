#include "base/version.h"

#include <iostream>
#include <string>

#include "base/version_info.h"

namespace sluice::base {

std::string_view Version() {
  static const std::string version = [] {
    std::string v = SLUICE_PROJECT_VERSION;
    if (const std::string describe = SLUICE_SOURCE_DESCRIBE; !describe.empty()) {
      v += " (" + describe + ")";
    }
    return v;
  }();
  return version;
}

void PrintVersion(std::string_view program) { std::cout << program << " " << Version() << "\n"; }

}  // namespace sluice::base
