#pragma once
// RouterManager: sluice-rtrmgr's core (XORP's rtrmgr). From one validated
// configuration file it starts sluice-finder, sluice-fea, sluice-rib, sluice-bgp, (when
// static routes are configured) sluice-static and (with an rpki block) sluice-rpki as child
// processes (Supervisor), pushes each its part of the configuration through XRLs when it registers
// with the Finder (Configurator; again after every restart), applies a changed file as a delta
// (SIGHUP, or rtrmgr/1.0/load_config from `sluice configure load FILE`) all or nothing, with an
// optional confirmation time, keeps the last 20 committed configurations for `sluice configure
// rollback N` (config_archive.h), and stops everything on Shutdown() (SIGTERM in main).
//
// A file with errors is refused before anything happens: Start() fails with every
// "FILE:LINE:COL: message", and a reload with errors leaves the running configuration as it was.
//
// The Finder's access list (the finder block) is written to RUNDIR/finder.acl and re-read by
// the Finder on SIGHUP. The FEA restarts when its backend, kernel table or retain-on-exit
// changes, the RIB when its restart-time does, sluice-bgp when its threads do: each with
// SIGUSR2 ("exit so that a successor takes over; leave your state for it").
//
// RPKI: with an rpki block, sluice-rpki starts before sluice-bgp, which runs with `--rpki rpki`
// (it subscribes to the VRPs). sluice-bgp's flags are fixed for its life: an rpki block that
// comes at a reload starts sluice-rpki and its caches, but a running sluice-bgp validates only
// from its next start (a warning says so; it is not restarted for it). One that goes deletes
// every cache (no VRPs: every route not-found) and leaves sluice-rpki running until the next
// start. A restarted sluice-rpki gets its caches again when it registers.
//
// Restarts of the router manager itself (DESIGN.md § Restarts). Its death stops nothing: the
// children run in sessions of their own. It keeps the running configuration and the children
// it started in RUNDIR/rtrmgr (saved_state.h); a new router manager on the same run directory
// adopts every recorded child that is still the same process (pid, start time, program), does
// not push the configuration again to those that had taken it, starts the missing ones, and
// applies the file, when it differs from the saved configuration, as a delta. A file with
// errors then leaves the saved configuration running (a warning, not a refusal). A deliberate
// stop (Shutdown) stops every child, adopted or not, and removes the children file; after a
// failed Start() it stops only what it started itself. Start() refuses to run beside a live
// router manager on the same run directory.
//
// Security (DESIGN.md § Security). The run directory must be ours (or root's) and writable by
// nobody else, or nothing starts. The router manager binds the Finder's socket itself
// (RUNDIR/finder.sock, mode 0660, the children's user, group sluice-ops) and hands it to every
// Finder it starts, so the socket people use outlives Finder restarts. Each child gets its class
// credential (rtrmgr/process/credentials.h) through an inherited pipe, its own socket
// directory RUNDIR/NAME (mode 0700, its user's), and, when started as root, an unprivileged
// user and only the capabilities it needs (rtrmgr/process/privileges.h).
//
// Metrics: with a `metrics { listen ADDRESS port N; }` block the router manager serves GET
// /metrics (Prometheus) from numbers it gathers every few seconds from the processes' XRLs and
// /proc (rtrmgr/metrics/README.md); a reload that changes or removes the block binds the new
// address or stops serving.

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ipc/proto/rtrmgr.pb.h"
#include "ipc/xrl_router.h"
#include "rtrmgr/config/config.h"
#include "rtrmgr/config/config_delta.h"
#include "rtrmgr/metrics/metrics_service.h"
#include "rtrmgr/process/config_archive.h"
#include "rtrmgr/process/configurator.h"
#include "rtrmgr/process/privileges.h"
#include "rtrmgr/process/saved_state.h"
#include "rtrmgr/process/supervisor.h"

namespace sluice::rtrmgr {

// The group of the Finder's socket: the people who may use the `sluice` CLI at all.
inline constexpr char kCliGroup[] = "sluice-ops";

struct RouterManagerOptions {
  std::string config_file;
  std::string rundir;   // sockets, logs (NAME.log), finder.acl, master.key
  std::string bin_dir;  // the programs, installed or a build tree (program_dir.h)
  std::string bgp_instance = "bgp";
  std::string user;  // --user: overrides the configuration's `user NAME;`
  // The last 20 committed configurations (config_archive.h); "" for DefaultArchiveDir(rundir).
  std::string archive_dir;
};

class RouterManager {
 public:
  RouterManager(boost::asio::io_context& io, RouterManagerOptions options);
  ~RouterManager();

  // Reads and validates the file, then starts the processes. Errors: the file's (nothing was
  // started), or a program that cannot be run.
  absl::Status Start();
  using ReloadDone =
      std::function<void(absl::StatusOr<std::string> delta, std::vector<std::string> warnings)>;
  // Reads `file` (empty: the current file again) and applies the change, all or nothing: the
  // delta goes to the processes; if any refuses its part, the reverse delta (the running
  // configuration's values for what changed) goes to them all, and the running configuration
  // and RUNDIR/rtrmgr/running.conf stay as they were. `done` gets the delta's text and
  // warnings (what takes effect only at the next start), or an error: the file's errors
  // (InvalidArgument), each refusal naming its process (FailedPrecondition), or Unavailable
  // while another change is being applied. Nothing changed on an error. `dry_run`: only the
  // delta's text. `confirm` > 0: once applied, the configuration before this load comes back
  // after `confirm` (itself a load, all or nothing) unless ConfirmPending() is called first; a
  // load without `confirm` confirms a pending one.
  void Reload(const std::string& file, bool dry_run, ReloadDone done,
              std::chrono::milliseconds confirm = std::chrono::milliseconds(0));
  // Keeps what a load with `confirm` applied. Errors: FailedPrecondition when nothing waits.
  absl::Status ConfirmPending();
  // Time left before an unconfirmed load is rolled back; zero when none waits.
  std::chrono::milliseconds ConfirmRemaining() const;
  // Applies the configuration committed `n` commits ago (1: the one before the running one)
  // from the archive, all or nothing as Reload; the configuration file stays the one a SIGHUP
  // re-reads. Errors: NotFound when the archive has no entry `n`, and Reload's.
  void Rollback(size_t n, ReloadDone done);
  // rtrmgr/1.0/get_config: the running configuration (`archived` 0) or the one committed
  // `archived` loads ago, as the archive holds it. Errors: NotFound, DataLoss (unreadable).
  absl::StatusOr<v1::GetConfigReply> GetConfig(size_t archived) const;
  // The answer to load_config and rollback_config: the delta and warnings, or the error.
  static ReloadDone ReplyWithDelta(ipc::Responder<v1::LoadConfigReply> out);
  // Stops every process (BGP first, the Finder last). Blocks up to a few seconds per process.
  void Shutdown();

  const Config& running() const { return running_; }
  std::string finder_address() const { return "unix:" + options_.rundir + "/finder.sock"; }
  // Runs once every process has been configured for the first time.
  std::function<void()> on_ready;

 private:
  absl::Status RegisterService();
  void OnBirth(const std::string& class_name);
  void Configured(const std::string& name, std::vector<std::string> errors);
  // Says "ready" once registered and every process is configured (after the pending delta).
  void CheckReady();
  absl::Status WriteAccessList(const Config& config);
  std::vector<std::string> ProcessArgv(const std::string& name) const;
  // The log block (router_manager_log.cc): a child's --log-* flags, the router manager's own
  // settings, and a change sent to the running processes.
  std::vector<std::string> ChildLogFlags(const std::string& child) const;
  void ApplyOwnLog() const;
  void ApplyLogDelta(const std::vector<LogDelta>& changes);
  absl::StatusOr<LaunchPlan> Plan(const std::string& name);
  absl::Status StartChild(const std::string& name);
  // The saved state (router_manager_state.cc). ChooseConfig sets running_ from the file or,
  // when a predecessor's processes still run (live_), from the saved configuration.
  std::string StatePath(const char* file) const;
  absl::Status ChooseConfig();
  std::vector<ChildRecord> LiveChildren() const;
  // Starts `name`, or adopts it when a predecessor's process still runs.
  absl::Status StartOrAdopt(const std::string& name);
  void SaveChildren();
  void SaveRunning();
  // All-or-nothing application of a new configuration (router_manager_reload.cc): Commit sends
  // the delta, RollBack the reverse delta after a refusal, TakeEffect makes `next` the running
  // configuration and does what the router manager does itself (restarts, the access list,
  // starting sluice-static). ProcessesPart: the part of `delta` the live processes are told.
  void Commit(Config next, std::string path, std::chrono::milliseconds confirm, ReloadDone done);
  // Commit confirmed (router_manager_confirm.cc): remembers `before` (unless an earlier
  // unconfirmed load already did) and arms the timer; ConfirmExpired loads `before` again.
  void AwaitConfirm(Config before, std::string file, std::chrono::milliseconds within);
  void ConfirmExpired();
  // Adds the running configuration to the archive (a warning when it cannot be written).
  void ArchiveRunning();
  absl::Status RegisterCommitService();
  void RollBack(const Config& refused, std::vector<std::string> refusals, ReloadDone done);
  std::vector<std::string> TakeEffect(Config next, const std::string& path,
                                      const ConfigDelta& delta);
  ConfigDelta ProcessesPart(ConfigDelta delta) const;
  // Security set-up before anything starts (router_manager_setup.cc).
  absl::Status PrepareRunDir();
  absl::Status PrepareStateDir() const;  // RUNDIR/rtrmgr
  absl::Status PrepareFinderSocket();
  absl::StatusOr<std::string> PrepareChildDir(const std::string& name) const;
  absl::StatusOr<ipc::RouterOptions> OwnRouterOptions() const;
  void ExportTransportSecurity() const;
  std::vector<cap_value_t> Capabilities(const std::string& name) const;

  boost::asio::io_context& io_;
  RouterManagerOptions options_;
  ConfigArchive archive_;
  Config running_;
  Supervisor supervisor_;
  std::unique_ptr<ipc::XrlRouter> router_;
  std::unique_ptr<Configurator> configurator_;
  // The metrics block's endpoint (rtrmgr/metrics); made with router_, applied at start and at
  // every reload. ApplyMetrics: a warning when it cannot be served.
  std::unique_ptr<metrics::MetricsService> metrics_;
  std::optional<std::string> ApplyMetrics();
  std::map<std::string, bool> configured_;
  // Adopted processes that have their configuration: their first birth pushes nothing.
  std::set<std::string> skip_birth_;
  std::map<std::string, ChildRecord> live_;  // a predecessor's processes still running
  // The configuration an unconfirmed load replaced, and when it comes back.
  struct PendingConfirm {
    Config before;
    std::string file;
    std::chrono::steady_clock::time_point deadline;
  };
  std::optional<PendingConfirm> confirm_;
  std::unique_ptr<boost::asio::steady_timer> confirm_timer_;
  bool applying_ = false;       // a Commit is waiting for the processes' answers
  bool pending_delta_ = false;  // apply the file against the saved configuration when ready
  bool registered_ = false;
  bool starting_ = true;  // Start() has not added every child yet: nothing to save
  bool ready_ = false;
  bool stopped_ = false;
  std::optional<RunAs> child_user_;  // nullopt: the children run as we do
  std::string master_key_;
  int finder_socket_ = -1;  // the listening socket every Finder inherits
};

}  // namespace sluice::rtrmgr
