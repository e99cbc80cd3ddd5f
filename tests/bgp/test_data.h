#pragma once
// Where the MRT captures are: $SLUICE_DATA_DIR/mrt (see ../shared/data/mrt/README.md).

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace sluice::testing {

// The mrt/ folder, or "" when SLUICE_DATA_DIR is unset or has no mrt/ folder.
inline std::string MrtDir() {
  const char* d = std::getenv("SLUICE_DATA_DIR");
  if (d == nullptr || *d == '\0') return "";
  std::filesystem::path p = std::filesystem::path(d) / "mrt";
  return std::filesystem::is_directory(p) ? p.string() : "";
}

// Every capture in the mrt/ folder (files whose name contains ".mrt"), sorted.
inline std::vector<std::string> MrtFiles() {
  std::vector<std::string> files;
  const std::string dir = MrtDir();
  if (dir.empty()) return files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename().string().find(".mrt") != std::string::npos) {
      files.push_back(e.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace sluice::testing

#define SLUICE_SKIP_WITHOUT_MRT_DATA()                                             \
  if (::sluice::testing::MrtDir().empty()) {                                       \
    GTEST_SKIP() << "SLUICE_DATA_DIR is not set (or has no mrt/ folder): the MRT " \
                    "captures are needed";                                         \
  }
