#include "rtrmgr/process/service_notify.h"

#include <systemd/sd-daemon.h>

#include <cstring>
#include <ctime>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/log.h"

namespace sluice::rtrmgr {

namespace {

void Notify(const std::string& state) {
  // 0: not configured (NOTIFY_SOCKET unset), > 0: sent. The variable stays set, so that later
  // states reach the service manager too; the children do not inherit it (supervisor.cc).
  const int r = sd_notify(0, state.c_str());
  if (r < 0) {
    SLUICE_LOG(kWarning) << "cannot notify the service manager (" << state
                         << "): " << std::strerror(-r);
  }
}

}  // namespace

void NotifyReady() { Notify("READY=1\nSTATUS=ready"); }

void NotifyReloading() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const long long usec = static_cast<long long>(now.tv_sec) * 1000000 + now.tv_nsec / 1000;
  Notify(absl::StrCat("RELOADING=1\nSTATUS=reloading\nMONOTONIC_USEC=", usec));
}

void NotifyStopping() { Notify("STOPPING=1\nSTATUS=stopping"); }

}  // namespace sluice::rtrmgr
