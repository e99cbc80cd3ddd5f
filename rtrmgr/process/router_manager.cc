#include "rtrmgr/process/router_manager.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "ipc/caller_key.h"
#include "ipc/methods/rtrmgr.h"
#include "ipc/process_security.h"
#include "ipc/proto/rtrmgr.pb.h"
#include "ipc/unix_listener.h"
#include "rtrmgr/config/config_printer.h"
#include "rtrmgr/process/credentials.h"
#include "rtrmgr/process/program_dir.h"

namespace sluice::rtrmgr {

namespace {

namespace v1 = ::sluice::rtrmgr::v1;
using ipc::methods::rtrmgr::kGetConfig;
using ipc::methods::rtrmgr::kGetStatus;
using ipc::methods::rtrmgr::kLoadConfig;
// The processes, in the order they start: sluice-rpki before sluice-bgp, so that its VRPs
// are there early.
const std::vector<const char*> kComponents = {"fea", "rib", Configurator::kRpkiTarget, "bgp",
                                              Configurator::kStaticTarget};
const std::vector<const char*> kChildren = {
    "finder", "fea", "rib", Configurator::kRpkiTarget, "bgp", Configurator::kStaticTarget};

}  // namespace

RouterManager::RouterManager(boost::asio::io_context& io, RouterManagerOptions options)
    : io_(io),
      options_(std::move(options)),
      archive_(options_.archive_dir.empty() ? DefaultArchiveDir(options_.rundir)
                                            : options_.archive_dir),
      supervisor_(io) {}

RouterManager::~RouterManager() { Shutdown(); }

std::vector<std::string> RouterManager::ProcessArgv(const std::string& name) const {
  const std::string& bin = options_.bin_dir;
  if (name == "finder") {
    // The Unix socket is ours (descriptor 3); the master key comes through descriptor 4.
    std::vector<std::string> argv = {ProgramPath(bin, "sluice-finder"),
                                     "--listen-fd",
                                     "3",
                                     "--master-key-fd",
                                     "4",
                                     "--operator-group",
                                     running_.finder.operator_group,
                                     "--admin-group",
                                     running_.finder.admin_group,
                                     "--acl",
                                     options_.rundir + "/finder.acl",
                                     "--grace-ms",
                                     "500"};
    for (const BgpListen& l : running_.finder.listen) {
      argv.push_back("--listen");
      argv.push_back(Configurator::TcpEndpoint(l.address, l.port));
    }
    return argv;
  }
  if (name == "fea") {
    std::vector<std::string> argv = {ProgramPath(bin, "sluice-fea"), "--finder", finder_address(),
                                     "--instance", "fea"};
    for (std::string& f : Configurator::FeaFlags(running_)) argv.push_back(std::move(f));
    return argv;
  }
  if (name == Configurator::kStaticTarget) {
    // End-of-RIB only once the router manager has pushed the configuration (synced).
    return {ProgramPath(bin, "sluice-static"), "--finder",       finder_address(), "--instance",
            Configurator::kStaticTarget,       "--wait-for-sync"};
  }
  if (name == Configurator::kRpkiTarget) {
    return {ProgramPath(bin, "sluice-rpki"), "--finder", finder_address(), "--instance",
            Configurator::kRpkiTarget};
  }
  if (name == "rib") {
    std::vector<std::string> argv = {ProgramPath(bin, "sluice-rib"), "--finder", finder_address(),
                                     "--instance", "rib"};
    for (std::string& f : Configurator::RibFlags(running_)) argv.push_back(std::move(f));
    return argv;
  }
  std::vector<std::string> argv = {ProgramPath(bin, "sluice-bgp"), "--finder", finder_address(),
                                   "--instance", options_.bgp_instance};
  if (running_.bgp.threads != 0) {  // else sluice-bgp's default: the CPUs it may use
    argv.push_back("--threads");
    argv.push_back(absl::StrCat(running_.bgp.threads));
  }
  if (running_.rpki.enabled) {  // fixed for the process's life: VRPs from sluice-rpki
    argv.push_back("--rpki");
    argv.push_back(Configurator::kRpkiTarget);
  }
  return argv;
}

absl::StatusOr<LaunchPlan> RouterManager::Plan(const std::string& name) {
  LaunchPlan plan;
  plan.argv = ProcessArgv(name);
  for (std::string& flag : ChildLogFlags(name)) plan.argv.push_back(std::move(flag));
  ASSIGN_OR_RETURN(std::string dir, PrepareChildDir(name));
  plan.env.push_back("SLUICE_SOCKET_DIR=" + dir);
  if (name == "finder") {
    // The adopted Finder that held the socket has died: a new socket for its successor.
    if (finder_socket_ < 0) RETURN_IF_ERROR(PrepareFinderSocket());
    const int socket = fcntl(finder_socket_, F_DUPFD_CLOEXEC, 0);
    if (socket < 0) return absl::InternalError("cannot pass the Finder its socket");
    plan.fds.emplace_back(3, socket);
    ASSIGN_OR_RETURN(int key, SecretPipe(master_key_));
    plan.fds.emplace_back(4, key);
  } else {
    ASSIGN_OR_RETURN(int credential, SecretPipe(ipc::ClassCredential(master_key_, name)));
    plan.fds.emplace_back(3, credential);
    plan.env.push_back(absl::StrCat(ipc::kCredentialFdEnv, "=3"));
  }
  if (child_user_) plan.privileges = ChildPrivileges{*child_user_, Capabilities(name)};
  return plan;
}

absl::Status RouterManager::WriteAccessList(const Config& config) {
  const std::string path = options_.rundir + "/finder.acl";
  const std::string tmp = path + ".new";
  {
    // Not a secret, and the Finder may run as another user: readable by all.
    unlink(tmp.c_str());
    const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return absl::UnavailableError("cannot write " + tmp);
    fchmod(fd, 0644);
    close(fd);
    std::ofstream out(tmp, std::ios::trunc);
    out << Configurator::AccessListText(config);
    if (!out) return absl::UnavailableError("cannot write " + tmp);
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::UnavailableError("cannot write " + path);
  }
  return absl::OkStatus();
}

absl::Status RouterManager::Start() {
  if (ipc::UnixSocketAnswers(StatePath("rtrmgr.sock"))) {
    return absl::FailedPreconditionError(absl::StrCat(
        "another sluice-rtrmgr runs on ", options_.rundir, ": stop it first (SIGTERM)"));
  }
  RETURN_IF_ERROR(ChooseConfig());
  ApplyOwnLog();
  ASSIGN_OR_RETURN(child_user_, ChildUser(options_.user.empty() ? running_.user : options_.user));
  if (geteuid() == 0 && !child_user_) {
    SLUICE_LOG(kWarning) << "no user \"sluice\": the processes run as root with every "
                            "capability (create it: adduser --system --group sluice)";
  }
  if (child_user_) {
    for (const char* name : kChildren) {
      RETURN_IF_ERROR(CheckUserCanExecute(*child_user_, ProcessArgv(name).front()));
    }
  }
  RETURN_IF_ERROR(PrepareRunDir());
  RETURN_IF_ERROR(PrepareStateDir());
  ASSIGN_OR_RETURN(master_key_, LoadOrCreateMasterKey(options_.rundir + "/master.key"));
  ExportTransportSecurity();
  RETURN_IF_ERROR(WriteAccessList(running_));
  // A running Finder keeps the socket it was given; a new one gets a new socket.
  if (!live_.count("finder")) RETURN_IF_ERROR(PrepareFinderSocket());
  if (live_.empty()) SaveRunning();

  supervisor_.on_started = [this](const std::string&, pid_t) { SaveChildren(); };
  supervisor_.on_exited = [this](const std::string& name, const std::string&) {
    configured_[name] = false;
    skip_birth_.erase(name);
    SaveChildren();
  };
  for (const char* name : kChildren) {
    const bool wanted =
        (std::string(name) != "bgp" || running_.bgp.enabled) &&
        (std::string(name) != "fea" || !running_.fea.remote_only) &&
        (name != Configurator::kStaticTarget || !running_.static_routes.routes.empty()) &&
        (name != Configurator::kRpkiTarget || running_.rpki.enabled);
    if (wanted || live_.count(name)) configured_[name] = std::string(name) == "finder";
  }
  RETURN_IF_ERROR(StartOrAdopt("finder"));

  ASSIGN_OR_RETURN(ipc::RouterOptions o, OwnRouterOptions());
  router_ = std::make_unique<ipc::XrlRouter>(io_, "rtrmgr", "rtrmgr", o);
  configurator_ = std::make_unique<Configurator>(*router_, io_);
  if (absl::Status s = RegisterService(); !s.ok()) return s;
  router_->SetShutdownHandler([this] {
    Shutdown();
    io_.stop();
  });
  router_->OnReady([this](absl::Status s) {
    if (!s.ok()) {
      SLUICE_LOG(kWarning) << "Finder: " << s.message() << " (still trying)";
      return;
    }
    registered_ = true;
    CheckReady();
  });
  if (absl::Status s = router_->Start(); !s.ok()) return s;
  metrics_ = std::make_unique<metrics::MetricsService>(io_, *router_, [this] {
    std::vector<metrics::ProcessSample> out;
    for (const auto& c : supervisor_.children()) {
      out.push_back(metrics::ProcessSample{c->name, c->pid, c->restarts, std::nullopt});
    }
    return out;
  });
  if (std::optional<std::string> w = ApplyMetrics()) {
    SLUICE_LOG(kWarning) << *w;
  }
  for (const char* name : kComponents) {
    router_->WatchClass(name, [this](const ipc::TargetEvent& e) {
      if (e.kind == ipc::TargetEvent::kBirth) OnBirth(e.class_name);
      // The Finder's word is a second sign of an adopted process's death.
      if (e.kind == ipc::TargetEvent::kDeath) supervisor_.CheckExited(e.class_name);
    });
  }
  for (const char* name : kComponents) {
    if (!configured_.count(name)) continue;
    RETURN_IF_ERROR(StartOrAdopt(name));
  }
  starting_ = false;
  SaveChildren();
  // Everything that needed root's full powers is done.
  if (child_user_) RETURN_IF_ERROR(KeepSupervisorCapabilities());
  return absl::OkStatus();
}

absl::Status RouterManager::StartChild(const std::string& name) {
  return supervisor_.Add(
      name, [this, name] { return Plan(name); }, options_.rundir + "/" + name + ".log");
}

void RouterManager::OnBirth(const std::string& class_name) {
  if (stopped_ || !configured_.count(class_name)) return;
  if (skip_birth_.erase(class_name)) {
    SLUICE_LOG(kInfo) << class_name << " registered: adopted, it has its configuration";
    return;
  }
  SLUICE_LOG(kInfo) << class_name << " registered: pushing its configuration";
  auto done = [this, class_name](std::vector<std::string> errors) {
    Configured(class_name, std::move(errors));
  };
  if (class_name == "fea") configurator_->ConfigureFea(running_, done);
  if (class_name == "rib") configurator_->ConfigureRib(running_, done);
  if (class_name == "bgp") configurator_->ConfigureBgp(running_, done);
  if (class_name == Configurator::kStaticTarget) configurator_->ConfigureStatic(running_, done);
  if (class_name == Configurator::kRpkiTarget) configurator_->ConfigureRpki(running_, done);
}

void RouterManager::Configured(const std::string& name, std::vector<std::string> errors) {
  for (const std::string& e : errors) SLUICE_LOG(kWarning) << name << ": " << e;
  configured_[name] = true;
  SLUICE_LOG(kInfo) << name << " configured";
  SaveChildren();
  CheckReady();
}

void RouterManager::CheckReady() {
  if (ready_ || !registered_ || stopped_) return;
  for (const auto& [n, done] : configured_) {
    if (!done) return;
  }
  if (pending_delta_) {
    // Adopted processes have the saved configuration; the file says what changed since.
    pending_delta_ = false;
    Reload("", false, [this](absl::StatusOr<std::string> delta, std::vector<std::string> warnings) {
      if (delta.ok()) {
        SLUICE_LOG(kInfo) << "applied the file's changes:\n" << *delta;
      } else {
        SLUICE_LOG(kWarning) << "the file's changes were not applied: " << delta.status().message();
      }
      for (const std::string& w : warnings) SLUICE_LOG(kWarning) << w;
      CheckReady();
    });
    return;
  }
  ready_ = true;
  ArchiveRunning();
  router_->SetStatus(common::v1::READY);
  if (on_ready) on_ready();
}

absl::Status RouterManager::RegisterService() {
  absl::Status s = router_->HandleAsync(
      kLoadConfig, [this](const v1::LoadConfigRequest& r, ipc::Responder<v1::LoadConfigReply> out) {
        if (r.file().empty()) {
          out.Fail(absl::InvalidArgumentError("file: want the configuration file's path"));
          return;
        }
        Reload(r.file(), r.dry_run(), ReplyWithDelta(std::move(out)),
               std::chrono::milliseconds(r.confirm_ms()));
      });
  if (!s.ok()) return s;
  if (s = RegisterCommitService(); !s.ok()) return s;
  s = router_->Handle(kGetConfig,
                      [this](const v1::GetConfigRequest& r) { return GetConfig(r.archived()); });
  if (!s.ok()) return s;
  return router_->Handle(kGetStatus, [this](const v1::GetStatusRequest&) {
    v1::GetStatusReply reply;
    reply.set_config_file(options_.config_file);
    reply.set_rss_kb(ProcessMemoryKb(getpid(), "VmRSS"));
    reply.set_confirm_remaining_ms(ConfirmRemaining().count());
    for (const auto& c : supervisor_.children()) {
      v1::ChildInfo* info = reply.add_children();
      info->set_name(c->name);
      info->set_pid(c->pid);
      info->set_restarts(c->restarts);
      info->set_configured(configured_[c->name]);
      info->set_rss_kb(ProcessMemoryKb(c->pid, "VmRSS"));
      info->set_peak_rss_kb(ProcessMemoryKb(c->pid, "VmHWM"));
      info->set_last_exit(c->last_exit);
    }
    return absl::StatusOr<v1::GetStatusReply>(std::move(reply));
  });
}

std::optional<std::string> RouterManager::ApplyMetrics() {
  if (!metrics_) return std::nullopt;
  if (absl::Status s = metrics_->Apply(running_.metrics); !s.ok()) {
    return std::string(s.message());
  }
  return std::nullopt;
}

void RouterManager::Shutdown() {
  if (stopped_) return;
  stopped_ = true;
  metrics_.reset();
  // Start() failed: what a predecessor started runs on, and its record stays for the next try.
  if (starting_) supervisor_.ReleaseAdopted();
  const Supervisor::Child* finder = supervisor_.Find("finder");
  const bool finder_stops = finder != nullptr && finder->pid > 0;
  if (!supervisor_.children().empty()) {
    SLUICE_LOG(kInfo) << "shutting down";
    supervisor_.StopAll(std::chrono::milliseconds(5000));
    // Nothing runs any more: nothing for a successor to adopt.
    if (!starting_) unlink(StatePath("children").c_str());
    // An adopted Finder's socket is not ours to close, but it is gone with the Finder.
    if (finder_stops && finder_socket_ < 0) unlink((options_.rundir + "/finder.sock").c_str());
  }
  if (finder_socket_ >= 0) {
    close(finder_socket_);
    finder_socket_ = -1;
    unlink((options_.rundir + "/finder.sock").c_str());
  }
}

}  // namespace sluice::rtrmgr
