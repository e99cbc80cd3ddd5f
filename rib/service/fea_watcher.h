#pragma once
// FeaWatcher: which FEA the RIB feeds, from the Finder's birth and death events (XORP NSDI'05
// §6: lifetime events; DESIGN.md: "the RIB re-sends its FIB to a restarted FEA").
//
// It watches one FEA instance by name, or every component of class "fea" and uses one of them
// at a time (the first born; when it dies, another live one if any). `born(instance)` runs when
// the RIB starts using an FEA, `died()` when the one in use dies. Events run on the loop.

#include <functional>
#include <set>
#include <string>

#include "ipc/xrl_router.h"

namespace sluice::rib {

class FeaWatcher {
 public:
  // `instance` empty: any component of class "fea".
  FeaWatcher(ipc::XrlRouter& router, std::string instance,
             std::function<void(const std::string&)> born, std::function<void()> died);
  // Starts watching (before or after router.Start()).
  void Start();

  // The FEA in use; empty while none.
  const std::string& current() const { return current_; }

 private:
  void OnEvent(const ipc::TargetEvent& event);

  ipc::XrlRouter& router_;
  std::string instance_;
  std::function<void(const std::string&)> born_;
  std::function<void()> died_;
  std::set<std::string> live_;
  std::string current_;
};

}  // namespace sluice::rib
