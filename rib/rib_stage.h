#pragma once
// The stage types of the RIB (stage/stage.h over RibRoute) and a helper that turns "what was
// sent downstream before" and "what should be there now" into the one call that keeps the
// downstream stream consistent.

#include <optional>

#include "rib/rib_route.h"
#include "stage/stage.h"

namespace sluice::rib {

using RibStage = stage::Stage<RibRoute>;
using RibLinearStage = stage::LinearStage<RibRoute>;

// Sends `down` the change from `before` to `after` for one prefix, as `self`: add, delete,
// replace, or nothing when they are equal. Nothing when `down` is null.
inline void EmitChange(RibStage* down, RibStage* self, const std::optional<RibRoute>& before,
                       const std::optional<RibRoute>& after) {
  if (down == nullptr) return;
  if (before && after) {
    if (!(*before == *after)) down->replace_route(*before, *after, self);
  } else if (before) {
    down->delete_route(*before, self);
  } else if (after) {
    down->add_route(*after, self);
  }
}

}  // namespace sluice::rib
