#pragma once
// Named profiling points (XORP NSDI'05 §8.1): a point records timestamped route events while
// it is enabled, so that the path of one route through the processes can be timed
// ("route entering BGP", "sent to the RIB", "arriving at the FEA", ...).
//
//   ProfilePoint* p = profiler.Point("bgp_route_in");
//   if (p->enabled()) p->Record(prefix.ToString());
//
// A disabled point costs one relaxed atomic load. Points are safe to record from any thread.
// One Profiler per process; `profile/1.0` exposes enable, get and clear over IPC.

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace sluice::stage {

struct ProfileEntry {
  absl::Time when;
  std::string text;
};

class ProfilePoint {
 public:
  explicit ProfilePoint(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }
  void set_enabled(bool on) { enabled_.store(on, std::memory_order_relaxed); }

  // Records `text` with the current time (microsecond resolution or better) when enabled;
  // callers that build `text` check enabled() first. Entries past kMaxEntries are dropped
  // and counted.
  void Record(std::string_view text);
  void RecordAt(absl::Time when, std::string_view text);
  std::vector<ProfileEntry> Entries() const;
  uint64_t dropped() const;
  void Clear();

  static constexpr size_t kMaxEntries = 1'000'000;

 private:
  std::string name_;
  std::atomic<bool> enabled_{false};
  mutable std::mutex mu_;
  std::vector<ProfileEntry> entries_;
  uint64_t dropped_ = 0;
};

class Profiler {
 public:
  // The point called `name`, created (disabled) on first use. The pointer stays valid for the
  // Profiler's lifetime.
  ProfilePoint* Point(std::string_view name);
  // Errors: NotFound naming the point when no such point exists.
  absl::StatusOr<ProfilePoint*> Find(std::string_view name) const;
  std::vector<std::string> Names() const;

  // The process-wide profiler.
  static Profiler& Default();

 private:
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<ProfilePoint>> points_;
};

}  // namespace sluice::stage
