// RouterManager: the state a successor needs (RUNDIR/rtrmgr/running.conf and children,
// saved_state.h) and taking over a predecessor's processes.

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "rtrmgr/config/config_loader.h"
#include "rtrmgr/config/config_printer.h"
#include "rtrmgr/process/router_manager.h"

namespace sluice::rtrmgr {

std::string RouterManager::StatePath(const char* file) const {
  return absl::StrCat(options_.rundir, "/rtrmgr/", file);
}

std::vector<ChildRecord> RouterManager::LiveChildren() const {
  absl::StatusOr<std::vector<ChildRecord>> records = ReadChildren(StatePath("children"));
  if (!records.ok()) {
    if (!absl::IsNotFound(records.status())) {
      SLUICE_LOG(kWarning) << records.status().message() << ": ignoring it; starting every process";
    }
    return {};
  }
  std::vector<ChildRecord> live;
  for (const ChildRecord& r : *records) {
    if (IsSameProcess(r)) {
      live.push_back(r);
    } else {
      SLUICE_LOG(kInfo) << r.name << " (pid " << r.pid << ") of the previous router manager "
                        << "is no longer running";
    }
  }
  return live;
}

absl::Status RouterManager::ChooseConfig() {
  absl::StatusOr<Config> file = LoadConfigFile(options_.config_file);
  for (ChildRecord& r : LiveChildren()) live_[r.name] = std::move(r);
  if (live_.empty()) {
    if (!file.ok()) return file.status();
    running_ = *std::move(file);
    return absl::OkStatus();
  }
  SLUICE_LOG(kInfo) << "taking over " << live_.size()
                    << " running processes of the previous router manager";
  absl::StatusOr<std::string> text = ReadOwnFile(StatePath("running.conf"));
  absl::StatusOr<Config> saved =
      text.ok() ? ParseConfig(*text, StatePath("running.conf")) : text.status();
  if (!saved.ok()) {
    // The processes' configuration is unknown: each gets the file's, whole.
    SLUICE_LOG(kWarning) << "no usable saved configuration (" << saved.status().message()
                         << "): pushing the whole configuration to every process";
    if (!file.ok()) return file.status();
    running_ = *std::move(file);
    for (auto& [name, r] : live_) r.configured = false;
    return absl::OkStatus();
  }
  running_ = *std::move(saved);
  if (!file.ok()) {
    SLUICE_LOG(kWarning) << options_.config_file << " refused; the running configuration stays:\n"
                         << file.status().message();
    return absl::OkStatus();
  }
  pending_delta_ = !(*file == running_);
  return absl::OkStatus();
}

absl::Status RouterManager::StartOrAdopt(const std::string& name) {
  const std::string log = absl::StrCat(options_.rundir, "/", name, ".log");
  auto plan = [this, name] { return Plan(name); };
  auto it = live_.find(name);
  if (it == live_.end()) return supervisor_.Add(name, plan, log);
  const ChildRecord record = it->second;
  live_.erase(it);
  RETURN_IF_ERROR(supervisor_.Adopt(record, plan, log));
  const Supervisor::Child* child = supervisor_.Find(name);
  if (child != nullptr && child->adopted && record.configured) {
    configured_[name] = true;
    if (name != "finder") skip_birth_.insert(name);
  }
  return absl::OkStatus();
}

void RouterManager::SaveChildren() {
  if (stopped_ || starting_) return;
  std::vector<ChildRecord> records;
  for (const auto& c : supervisor_.children()) {
    if (c->pid <= 0) continue;
    auto configured = configured_.find(c->name);
    records.push_back(ChildRecord{c->name, c->pid, c->start_time,
                                  configured != configured_.end() && configured->second,
                                  c->program});
  }
  if (absl::Status s = WriteChildren(StatePath("children"), records); !s.ok()) {
    SLUICE_LOG(kWarning) << s.message() << ": a successor cannot take over the processes";
  }
}

void RouterManager::SaveRunning() {
  if (absl::Status s = WriteFileAtomically(StatePath("running.conf"), PrintConfig(running_));
      !s.ok()) {
    SLUICE_LOG(kWarning) << s.message();
  }
}

}  // namespace sluice::rtrmgr
