#include "stage/profile.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace sluice::stage {

void ProfilePoint::Record(std::string_view text) { RecordAt(absl::Now(), text); }

void ProfilePoint::RecordAt(absl::Time when, std::string_view text) {
  if (!enabled()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (entries_.size() >= kMaxEntries) {
    ++dropped_;
    return;
  }
  entries_.push_back({when, std::string(text)});
}

std::vector<ProfileEntry> ProfilePoint::Entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_;
}

uint64_t ProfilePoint::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

void ProfilePoint::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
  dropped_ = 0;
}

ProfilePoint* Profiler::Point(std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = points_[std::string(name)];
  if (!slot) slot = std::make_unique<ProfilePoint>(std::string(name));
  return slot.get();
}

absl::StatusOr<ProfilePoint*> Profiler::Find(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = points_.find(std::string(name));
  if (it == points_.end()) {
    return absl::NotFoundError(absl::StrFormat("no profiling point '%s'", name));
  }
  return it->second.get();
}

std::vector<std::string> Profiler::Names() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, point] : points_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

Profiler& Profiler::Default() {
  static Profiler* profiler = new Profiler();
  return *profiler;
}

}  // namespace sluice::stage
