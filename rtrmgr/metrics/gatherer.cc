#include "rtrmgr/metrics/gatherer.h"

#include <unistd.h>

#include <map>

#include "ipc/methods/bgp.h"
#include "ipc/methods/fea_fib.h"
#include "ipc/methods/profile.h"
#include "ipc/methods/rib.h"
#include "ipc/methods/rpki.h"

namespace sluice::rtrmgr::metrics {

struct Gatherer::Round {
  Snapshot snapshot;
  int pending = 0;
  bool finished = false;
  std::map<std::string, int> unanswered;  // per process: its calls not answered (yet)
};

Gatherer::Gatherer(boost::asio::io_context& io, ipc::XrlRouter& router, ProcessList processes,
                   Publish publish, std::chrono::milliseconds interval)
    : router_(router),
      processes_(std::move(processes)),
      publish_(std::move(publish)),
      interval_(interval),
      timer_(io) {}

Gatherer::~Gatherer() {
  *alive_ = false;
  timer_.cancel();
}

void Gatherer::Start() { Tick(); }

void Gatherer::Tick() {
  // A round still waiting is published with what came.
  if (round_ && !round_->finished) Finish(*round_);
  BeginRound();
  timer_.expires_after(interval_);
  timer_.async_wait([this, alive = alive_](const boost::system::error_code& ec) {
    if (ec || !*alive) return;
    Tick();
  });
}

template <typename Request, typename Reply>
void Gatherer::Ask(const std::shared_ptr<Round>& round, const std::string& target,
                   const ipc::Method<Request, Reply>& method,
                   std::optional<Reply> Snapshot::*field) {
  round->snapshot.sources[target] = false;
  ++round->unanswered[target];
  ++round->pending;
  router_.Call(target, method, Request(),
               [this, alive = alive_, round, target, field](absl::StatusOr<Reply> reply) {
                 if (!*alive || round->finished) return;
                 if (reply.ok()) {
                   round->snapshot.*field = *std::move(reply);
                   // Up once every call to it was answered.
                   if (--round->unanswered[target] == 0) round->snapshot.sources[target] = true;
                 }
                 if (--round->pending == 0) Finish(*round);
               });
}

void Gatherer::BeginRound() {
  auto round = std::make_shared<Round>();
  round_ = round;
  Snapshot& s = round->snapshot;
  s.taken = std::chrono::system_clock::now();
  s.processes = processes_();
  ProcessSample self;
  self.name = "rtrmgr";
  self.pid = getpid();
  s.processes.insert(s.processes.begin(), std::move(self));
  for (ProcessSample& p : s.processes) {
    if (p.pid <= 0) continue;
    if (absl::StatusOr<ProcessStats> stats = ReadProcessStats(p.pid); stats.ok()) p.stats = *stats;
  }
  // Only the processes that run are asked; the others' values go.
  for (const ProcessSample& p : s.processes) {
    if (p.pid <= 0) continue;
    if (p.name == "bgp") {
      Ask(round, "bgp", ipc::methods::bgp::kListPeers, &Snapshot::bgp);
      Ask(round, "bgp", ipc::methods::profile::kGetStageStats, &Snapshot::bgp_stages);
    }
    if (p.name == "rib") {
      Ask(round, "rib", ipc::methods::rib::kListProtocols, &Snapshot::rib);
      Ask(round, "rib", ipc::methods::profile::kGetStageStats, &Snapshot::rib_stages);
    }
    if (p.name == "fea") Ask(round, "fea", ipc::methods::fea_fib::kGetStats, &Snapshot::fea);
    if (p.name == "rpki") Ask(round, "rpki", ipc::methods::rpki::kGetStatus, &Snapshot::rpki);
  }
  if (round->pending == 0) Finish(*round);
}

void Gatherer::Finish(Round& round) {
  round.finished = true;
  Snapshot& s = round.snapshot;
  // A running process that did not answer in time keeps what it said last.
  for (const auto& [source, up] : s.sources) {
    if (up) continue;
    if (source == "bgp" && !s.bgp) s.bgp = last_.bgp;
    if (source == "bgp" && !s.bgp_stages) s.bgp_stages = last_.bgp_stages;
    if (source == "rib" && !s.rib) s.rib = last_.rib;
    if (source == "rib" && !s.rib_stages) s.rib_stages = last_.rib_stages;
    if (source == "fea" && !s.fea) s.fea = last_.fea;
    if (source == "rpki" && !s.rpki) s.rpki = last_.rpki;
  }
  last_ = s;
  publish_(std::move(s));
}

}  // namespace sluice::rtrmgr::metrics
