// RouterManager::Reload: a changed file applied as a delta (SIGHUP, `sluice configure load`,
// and a successor's first look at a file changed while no router manager ran), all or nothing:
// when a process refuses its part, what the others took is rolled back.

#include <signal.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/log.h"
#include "rtrmgr/config/config_delta.h"
#include "rtrmgr/config/config_loader.h"
#include "rtrmgr/process/router_manager.h"

namespace sluice::rtrmgr {

void RouterManager::Reload(const std::string& file, bool dry_run, ReloadDone done,
                           std::chrono::milliseconds confirm) {
  const std::string path = file.empty() ? options_.config_file : file;
  absl::StatusOr<Config> next = LoadConfigFile(path);
  if (!next.ok()) {
    SLUICE_LOG(kWarning) << "configuration " << path
                         << " refused; the running configuration stays:\n"
                         << next.status().message();
    done(next.status(), {});
    return;
  }
  if (dry_run) {
    done(ComputeDelta(running_, *next).ToString(), {});
    return;
  }
  Commit(*std::move(next), path, confirm, std::move(done));
}

ConfigDelta RouterManager::ProcessesPart(ConfigDelta delta) const {
  // No sluice-static yet: the first static routes start it (TakeEffect), and it gets every
  // route when it registers.
  if (!configured_.count(Configurator::kStaticTarget)) delta.static_routes.clear();
  // The same for sluice-rpki and the first rpki block.
  if (!configured_.count(Configurator::kRpkiTarget)) delta.rpki.caches.clear();
  // A bgp block that comes takes effect at the next start: no sluice-bgp to tell.
  if (!configured_.count("bgp")) delta.bgp = BgpDelta();
  return delta;
}

void RouterManager::Commit(Config next, std::string path, std::chrono::milliseconds confirm,
                           ReloadDone done) {
  if (applying_) {
    done(absl::UnavailableError("another configuration change is being applied; try again"), {});
    return;
  }
  applying_ = true;
  ConfigDelta delta = ComputeDelta(running_, next);
  SLUICE_LOG(kInfo) << "applying " << path << ":\n" << delta.ToString();
  auto shared = std::make_shared<Config>(std::move(next));
  auto applied = [this, shared, path = std::move(path), delta, confirm,
                  done = std::move(done)](std::vector<std::string> refusals) mutable {
    if (!refusals.empty()) {
      RollBack(*shared, std::move(refusals), std::move(done));
      return;
    }
    Config before = running_;
    std::string before_file = options_.config_file;
    std::vector<std::string> warnings = TakeEffect(std::move(*shared), path, delta);
    if (confirm.count() > 0) {
      AwaitConfirm(std::move(before), std::move(before_file), confirm);
    } else if (confirm_) {
      SLUICE_LOG(kInfo) << "a load without a confirmation time confirms the pending one";
      (void)ConfirmPending();
    }
    applying_ = false;
    done(delta.ToString(), std::move(warnings));
  };
  configurator_->ApplyDelta(ProcessesPart(delta), running_, *shared, std::move(applied));
}

void RouterManager::RollBack(const Config& refused, std::vector<std::string> refusals,
                             ReloadDone done) {
  for (const std::string& r : refusals) SLUICE_LOG(kWarning) << r;
  SLUICE_LOG(kWarning) << "rolling back to the running configuration";
  // The reverse delta: the running configuration's values for everything that changed. A part
  // that was refused is "undone" too; where there is nothing to undo its process refuses that
  // as well (logged below), which changes nothing.
  ConfigDelta reverse = ProcessesPart(ComputeDelta(refused, running_));
  configurator_->ApplyDelta(
      reverse, refused, running_,
      [this, refusals = std::move(refusals),
       done = std::move(done)](std::vector<std::string> errors) mutable {
        for (const std::string& e : errors) SLUICE_LOG(kInfo) << "while rolling back: " << e;
        applying_ = false;
        done(absl::FailedPreconditionError(absl::StrCat(
                 absl::StrJoin(refusals, "\n"),
                 "\nthe other processes were rolled back; the running configuration stays")),
             {});
      });
}

std::vector<std::string> RouterManager::TakeEffect(Config next, const std::string& path,
                                                   const ConfigDelta& delta) {
  std::vector<std::string> warnings;
  if (next.bgp.enabled != running_.bgp.enabled) {
    warnings.push_back("a bgp block that comes or goes takes effect at the next start");
  }
  if (next.fea.remote_only != running_.fea.remote_only) {
    warnings.push_back("fea remote-only takes effect at the next start");
  }
  if (delta.rpki.started && configured_.count("bgp")) {
    warnings.push_back(
        "sluice-bgp takes VRPs from sluice-rpki (--rpki) from its next start; until then its "
        "routes are not validated");
  }
  if (delta.rpki.stopped) {
    warnings.push_back("sluice-rpki runs on without caches (no VRPs) until the next start");
  }
  const FinderConfig& was = running_.finder;
  const FinderConfig& will = next.finder;
  if (will.operator_group != was.operator_group || will.admin_group != was.admin_group ||
      will.listen != was.listen || will.tls != was.tls || will.insecure != was.insecure ||
      next.user != running_.user) {
    warnings.push_back(
        "user, the Finder's groups, listen, tls and insecure take effect at the next start");
  }
  options_.config_file = path;
  running_ = std::move(next);
  ApplyLogDelta(delta.log);
  // Saved once applied: a successor that finds the old one applies the delta again.
  SaveRunning();
  ArchiveRunning();
  // The access list lets sluice-bgp and sluice-rpki talk only while there is an rpki block.
  if (!delta.finder.empty() || delta.rpki.started || delta.rpki.stopped) {
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
    configured_[Configurator::kStaticTarget] = false;
    if (absl::Status s = StartChild(Configurator::kStaticTarget); !s.ok()) {
      warnings.push_back(std::string(s.message()));
    }
  }
  if (!delta.metrics.empty()) {
    if (std::optional<std::string> w = ApplyMetrics()) warnings.push_back(*w);
  }
  if (running_.rpki.enabled && !configured_.count(Configurator::kRpkiTarget)) {
    configured_[Configurator::kRpkiTarget] = false;
    if (absl::Status s = StartChild(Configurator::kRpkiTarget); !s.ok()) {
      warnings.push_back(std::string(s.message()));
    }
  }
  return warnings;
}

}  // namespace sluice::rtrmgr
