#include "rtrmgr/config/config_loader.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_format.h"
#include "rtrmgr/config/config_builder.h"
#include "rtrmgr/config/config_tree.h"
#include "rtrmgr/config/config_validator.h"

namespace sluice::rtrmgr {

std::optional<Config> ReadConfig(std::string_view text, std::string_view file, Diagnostics* diags) {
  const std::string name = file.empty() ? "<config>" : std::string(file);
  const size_t before = diags->count();
  ConfigTree tree = ParseConfigTree(text, name, diags);
  if (!tree.syntax_ok) return std::nullopt;
  // An error in the policy block leaves the tree whole; only policy references are skipped.
  const bool policy_ok = diags->count() == before;
  Config config;
  config.file = name;
  BuildConfig(tree, &config, diags);
  ValidateConfig(config, policy_ok, diags);
  if (diags->count() != before) return std::nullopt;
  return config;
}

absl::StatusOr<Config> ParseConfig(std::string_view text, std::string_view file,
                                   size_t max_errors) {
  Diagnostics diags(max_errors);
  std::optional<Config> config = ReadConfig(text, file, &diags);
  if (!config) return diags.ToStatus();
  return *std::move(config);
}

absl::StatusOr<Config> LoadConfigFile(const std::string& path, size_t max_errors) {
  constexpr std::streamoff kMaxSize = 16 << 20;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::FailedPreconditionError(absl::StrFormat("%s: is a directory", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int e = errno;
    const std::string what = absl::StrFormat("%s: %s", path, std::strerror(e));
    if (e == ENOENT) return absl::NotFoundError(what);
    if (e == EACCES) return absl::PermissionDeniedError(what);
    return absl::FailedPreconditionError(what);
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad() || text.tellp() > kMaxSize) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%s: unreadable or larger than 16 MiB", path));
  }
  return ParseConfig(text.str(), path, max_errors);
}

}  // namespace sluice::rtrmgr
