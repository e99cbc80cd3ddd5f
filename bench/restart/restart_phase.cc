#include "bench/restart/restart_phase.h"

#include <signal.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <optional>
#include <thread>

#include "ipc/methods/rtrmgr.h"
#include "rtrmgr/cli/queries.h"
#include "rtrmgr/mainjob/programs.h"

namespace sluice::bench::restart {
namespace {

using rtrmgr::mainjob::Running;

// The pid of one of the router manager's children; 0 when unknown.
pid_t ChildPid(rtrmgr::cli::SyncClient& client, const std::string& name) {
  auto r = client.Call("rtrmgr", ipc::methods::rtrmgr::kGetStatus, rtrmgr::v1::GetStatusRequest());
  if (!r.ok()) return 0;
  for (const auto& c : r->children()) {
    if (c.name() == name) return c.pid();
  }
  return 0;
}

// Polls `get` every 20 ms for up to `seconds`.
std::optional<absl::Time> WaitFor(const std::function<std::optional<absl::Time>()>& get,
                                  double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto t = get()) return t;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return std::nullopt;
}

// The log file and line that say `process` is back, and the ones that say it converged.
struct Marks {
  std::string back_log, back_text, converged_log, converged_text;
};

Marks MarksOf(const Router& r, const std::string& process) {
  const std::string rtrmgr = r.rundir + "/rtrmgr.log";
  const std::string fea = r.rundir + "/fea.log";
  const std::string rib = r.rundir + "/rib.log";
  if (process == "finder")
    return {rtrmgr, "rtrmgr re-registered with the Finder", rtrmgr,
            "rtrmgr re-registered with the Finder"};
  if (process == "rtrmgr")
    return {rtrmgr, "rtrmgr registered with the Finder", rtrmgr,
            "rtrmgr registered with the Finder"};
  if (process == "rib" || process == "fea")
    return {rtrmgr, process + " configured", fea, "full push complete"};
  if (process == "bgp") return {rtrmgr, "bgp configured", rib, "protocol ebgp: end-of-RIB"};
  return {rtrmgr, process + " configured", rib, "protocol static: end-of-RIB"};
}

void Kill(Router& r, const std::string& process) {
  if (process == "rtrmgr") {
    kill(r.rtrmgr, SIGKILL);
    while (Running(r.rtrmgr)) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    r.rtrmgr =
        rtrmgr::mainjob::Spawn(r.rtrmgr_argv, r.rundir + "/rtrmgr.out", r.rundir + "/rtrmgr.log");
    return;
  }
  const pid_t pid = ChildPid(*r.client, process);
  if (pid > 0) kill(pid, SIGKILL);
}

// A new upstream route (SIGUSR2) until it is in the kernel, in milliseconds; -1 if it is not
// within 30 s.
double Probe(Router& r) {
  const size_t mark = r.monitor->Mark();
  const auto start = std::chrono::steady_clock::now();
  kill(r.upstream, SIGUSR2);
  ++r.probes_since_reconnect;
  while (r.monitor->Additions(mark, r.table) == 0) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(30)) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

double Seconds(absl::Time from, std::optional<absl::Time> to) {
  return to ? absl::ToDoubleSeconds(*to - from) : -1;
}

}  // namespace

PhaseResult KillAndRecover(Router& r, const std::string& process) {
  PhaseResult result;
  result.process = process;
  const Marks marks = MarksOf(r, process);
  const size_t mark = r.monitor->Mark();
  const double mono = MonotonicSeconds();
  const absl::Time killed = absl::Now();
  Kill(r, process);
  const auto back =
      WaitFor([&] { return LogLineTime(marks.back_log, killed, marks.back_text); }, 180);
  const auto converged =
      WaitFor([&] { return LogLineTime(marks.converged_log, killed, marks.converged_text); }, 300);
  result.back_s = Seconds(killed, back);
  result.converged_s = Seconds(killed, converged);
  if (process == "bgp") {
    // The upstream reconnected and sent its table again, without the routes announced since
    // its previous session: the RIB's End-of-RIB sweep removes those.
    result.expected_deletions = r.probes_since_reconnect;
    r.probes_since_reconnect = 0;
    const auto started = LogLineTime(r.rundir + "/rtrmgr.log", killed, "started bgp");
    if (started && converged) result.swept_after_start_s = Seconds(*started, converged);
  }
  if (converged) result.probe_ms = Probe(r);
  std::this_thread::sleep_for(std::chrono::seconds(2));  // late deletions would show here
  result.deletions = r.monitor->Deletions(mark, r.table);
  result.lowest_held = LowestHeld(r.downstream_out, mono);
  return result;
}

}  // namespace sluice::bench::restart
