#pragma once
// A hook the logger (net/log.h) runs just before it writes a line to stderr, under its lock: what
// else draws on that terminal (net/progress.h's redrawn line) clears its line first, so a log
// line never lands in the middle of it. One hook at a time; an empty function removes it. The
// hook must not log.

#include <functional>

namespace sluice::net {

void SetStderrLogHook(std::function<void()> hook);

}  // namespace sluice::net
