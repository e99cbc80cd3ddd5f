#include "rib/service/fea_watcher.h"

#include "base/log.h"

namespace sluice::rib {

FeaWatcher::FeaWatcher(ipc::XrlRouter& router, std::string instance,
                       std::function<void(const std::string&)> born, std::function<void()> died)
    : router_(router),
      instance_(std::move(instance)),
      born_(std::move(born)),
      died_(std::move(died)) {}

void FeaWatcher::Start() {
  auto fn = [this](const ipc::TargetEvent& e) { OnEvent(e); };
  if (instance_.empty()) {
    router_.WatchClass("fea", fn);
  } else {
    router_.WatchInstance(instance_, fn);
  }
}

void FeaWatcher::OnEvent(const ipc::TargetEvent& event) {
  if (event.kind == ipc::TargetEvent::kAbsent) return;  // not started yet: its birth will come
  const std::string& instance = event.instance_name;
  if (event.kind == ipc::TargetEvent::kBirth) {
    live_.insert(instance);
    SLUICE_LOG(kInfo) << "FEA " << instance << " born";
    if (current_.empty()) {
      current_ = instance;
      born_(current_);
    }
    return;
  }
  live_.erase(instance);
  SLUICE_LOG(kInfo) << "FEA " << instance << " died";
  if (instance != current_) return;
  current_.clear();
  died_();
  if (!live_.empty()) {
    current_ = *live_.begin();
    born_(current_);
  }
}

}  // namespace sluice::rib
