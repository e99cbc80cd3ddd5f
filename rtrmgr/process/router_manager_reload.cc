// RouterManager::Reload: a changed file applied as a delta (SIGHUP, `sluice configure load`,
// and a successor's first look at a file changed while no router manager ran).

#include <signal.h>

#include "net/log.h"
#include "rtrmgr/config/config_delta.h"
#include "rtrmgr/config/config_loader.h"
#include "rtrmgr/process/router_manager.h"

namespace sluice::rtrmgr {

void RouterManager::Reload(
    const std::string& file, bool dry_run,
    std::function<void(absl::StatusOr<std::string>, std::vector<std::string>)> done) {
  const std::string path = file.empty() ? options_.config_file : file;
  absl::StatusOr<Config> next = LoadConfigFile(path);
  if (!next.ok()) {
    SLUICE_LOG(kWarning) << "configuration " << path
                         << " refused; the running configuration stays:\n"
                         << next.status().message();
    done(next.status(), {});
    return;
  }
  ConfigDelta delta = ComputeDelta(running_, *next);
  std::string text = delta.ToString();
  if (dry_run) {
    done(text, {});
    return;
  }
  std::vector<std::string> warnings;
  if (next->bgp.enabled != running_.bgp.enabled) {
    warnings.push_back("a bgp block that comes or goes takes effect at the next start");
  }
  const FinderConfig& was = running_.finder;
  const FinderConfig& will = next->finder;
  if (will.operator_group != was.operator_group || will.admin_group != was.admin_group ||
      will.listen != was.listen || will.tls != was.tls || will.insecure != was.insecure ||
      next->user != running_.user) {
    warnings.push_back(
        "user, the Finder's groups, listen, tls and insecure take effect at the next start");
  }
  options_.config_file = path;
  Config before = std::move(running_);
  running_ = *std::move(next);
  SLUICE_LOG(kInfo) << "applying " << path << ":\n" << text;
  if (!delta.finder.empty()) {
    if (absl::Status s = WriteAccessList(running_); !s.ok()) {
      warnings.push_back(std::string(s.message()));
    } else if (const Supervisor::Child* f = supervisor_.Find("finder"); f && f->pid > 0) {
      kill(f->pid, SIGHUP);
    }
  }
  // Settings fixed for a process's life: it restarts (SIGUSR2: it leaves its state for its
  // successor) and the configuration is pushed again when it registers. The shard stage's
  // threads (sluice-bgp: its GR peers keep our routes), the FEA's backend, table and
  // retain-on-exit (the kernel keeps the routes), the RIB's restart-time (the FEA keeps them).
  std::vector<std::string> restart;
  if (delta.bgp.threads_changed && configured_.count("bgp")) restart.push_back("bgp");
  if (delta.fea.restart) restart.push_back("fea");
  if (delta.rib.restart) restart.push_back("rib");
  for (const std::string& name : restart) {
    configured_[name] = false;
    supervisor_.Restart(name, std::chrono::milliseconds(5000), SIGUSR2);
  }
  if (!running_.static_routes.routes.empty() && !configured_.count(Configurator::kStaticTarget)) {
    // The first static routes: sluice-static starts, and gets every route when it registers.
    configured_[Configurator::kStaticTarget] = false;
    if (absl::Status s = StartChild(Configurator::kStaticTarget); !s.ok()) {
      warnings.push_back(std::string(s.message()));
    }
    delta.static_routes.clear();
  }
  configurator_->ApplyDelta(
      delta, before, running_,
      [this, text, warnings, done = std::move(done)](std::vector<std::string> errors) mutable {
        // Saved once applied: a successor that finds the old one applies the delta again.
        SaveRunning();
        for (std::string& e : errors) warnings.push_back(std::move(e));
        done(text, std::move(warnings));
      });
}

}  // namespace sluice::rtrmgr
