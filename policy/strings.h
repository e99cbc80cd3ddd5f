#pragma once
// Debian's abseil (20220623) has its own absl::string_view: these convert between it and
// std::string_view for absl::StrCat and absl::Status::message().

#include <string_view>

#include "absl/strings/string_view.h"

namespace sluice::policy {

inline absl::string_view Av(std::string_view s) { return absl::string_view(s.data(), s.size()); }
inline std::string_view Sv(absl::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace sluice::policy
