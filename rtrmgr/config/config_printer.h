#pragma once
// The configuration back as text in its own language (`sluice show configuration`): canonical
// layout, four-space indentation, sections in a fixed order, values that equal their default
// left out. Reading the text back gives an equal Config (config.h ==), which the tests check.

#include <string>

#include "rtrmgr/config/config.h"

namespace sluice::rtrmgr {

struct PrintOptions {
  // Print md5-password values as "(hidden)" (the text then no longer reads back the same).
  bool hide_secrets = false;
};

std::string PrintConfig(const Config& config, const PrintOptions& options = {});

}  // namespace sluice::rtrmgr
