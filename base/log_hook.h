#pragma once
// A hook the logger (base/log.h) runs just before it writes a line to stderr, under its lock: what
// else draws on that terminal (base/progress.h's redrawn line) clears its line first, so a log
// line never lands in the middle of it. One hook at a time; an empty function removes it. The
// hook must not log.

#include <functional>

namespace sluice::base {

void SetStderrLogHook(std::function<void()> hook);

}  // namespace sluice::base
