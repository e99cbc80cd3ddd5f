#pragma once
// profile/1.0 (ipc/proto/profile.proto) over a process's stage::Profiler (XORP NSDI'05 §8.1):
// list, enable, read and clear the process's profiling points, and describe_plumbing — the
// process's stage network as it stands, dynamic stages included (`sluice show plumbing fea`).
// One adapter for every process (sluice-fea, sluice-rib, sluice-bgp): each passes its Profiler
// and what describes its plumbing. A thin adapter: every call runs on the router's loop and reads
// or sets the Profiler.
//
//   finder://fea/profile/1.0/enable?point:txt=fea_route_in&enable:bool=true
//   finder://bgp/profile/1.0/get_entries?point:txt=bgp_route_in
//
// Replies: list_points gives every point in name order with whether it is enabled and how many
// entries it holds; get_entries gives the entries (time in microseconds since the Unix epoch and
// text) and how many were dropped past stage::ProfilePoint::kMaxEntries.
// Errors: enable, get_entries and clear answer NOT_FOUND naming an unknown point.

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ipc/methods/profile.h"
#include "ipc/xrl_router.h"
#include "stage/plumber.h"
#include "stage/profile.h"

namespace sluice::ipc {

// How the NOT_FOUND for an unknown point reads.
enum class UnknownPointText {
  kPointOnly,        // no profiling point 'x'  (stage::Profiler::Find's text)
  kWithKnownPoints,  // no profiling point "x" (points: a, b)  (the known points in name order)
};

// What answers describe_plumbing: called on the loop, it hands the text to `reply`, at once or
// later (from the loop), so a process whose stages live on other threads need not wait for them.
using DescribePlumbing = std::function<void(std::function<void(std::string text)> reply)>;
// A DescribePlumbing that replies at once with `describe()`.
DescribePlumbing DescribeNow(std::function<std::string()> describe);

// Adds the profile/1.0 handlers to `router` (call before router.Start()). `describe` answers
// describe_plumbing (an empty text when it is null). `profiler` outlives the router. Errors:
// those of XrlRouter::Handle.
absl::Status ServeProfile(XrlRouter& router, stage::Profiler& profiler, DescribePlumbing describe,
                          UnknownPointText unknown = UnknownPointText::kPointOnly);

// Adds profile/1.0/get_stage_stats: `depths` (run on the loop) lists the stages that keep a
// queue and how much each holds (stage::Plumber::QueueDepths). Errors: those of Handle.
absl::Status ServeStageStats(XrlRouter& router,
                             std::function<std::vector<stage::Plumber::QueueDepth>()> depths);

}  // namespace sluice::ipc
