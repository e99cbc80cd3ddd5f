#include "bgp/process/mrt_outputs.h"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "bgp/mrt/mrt_path.h"

namespace sluice::bgp::process {
namespace {

constexpr size_t kPageRoutes = 10000;  // routes read per turn of the loop
constexpr size_t kMaxPendingPages = 4;

}  // namespace

struct MrtOutputs::Job {
  explicit Job(boost::asio::io_context& io) : timer(io) {}
  std::string path;
  std::optional<net::IPAddress> peer;  // Adj-RIB-In of this peer; else the Loc-RIB
  std::vector<net::Family> families{net::Family::kIPv4, net::Family::kIPv6};
  size_t family = 0;
  std::optional<net::Prefix> cursor;
  absl::Time start;
  absl::Duration on_loop;
  std::unique_ptr<mrt::MrtTableDump> dump;
  std::function<void(absl::StatusOr<DumpDone>)> done;
  boost::asio::steady_timer timer;
};

MrtOutputs::MrtOutputs(boost::asio::io_context& io, BgpProcess* bgp)
    : io_(io), bgp_(bgp), timer_(io) {}

MrtOutputs::~MrtOutputs() {
  *alive_ = false;
  timer_.cancel();
  if (update_log_) bgp_->peers().RemoveTap(update_log_.get());
  for (const std::shared_ptr<Job>& job : jobs_) {
    job->timer.cancel();
    job->dump.reset();
  }
  jobs_.clear();  // abandons the dumps (their threads stop, partial files are removed)
}

absl::Status MrtOutputs::SetUpdateLog(std::optional<mrt::UpdateLogOptions> options) {
  if (options) {
    if (absl::Status s = mrt::MrtUpdateLog::Check(*options); !s.ok()) return s;
  }
  // The old log writes what it queued and closes its file before the new one opens (perhaps
  // the same file, appended to).
  if (update_log_) bgp_->peers().RemoveTap(update_log_.get());
  update_log_.reset();
  if (!options) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<mrt::MrtUpdateLog>> started =
      mrt::MrtUpdateLog::Start(std::move(*options));
  if (!started.ok()) return started.status();
  update_log_ = std::move(*started);
  bgp_->peers().AddTap(update_log_.get());
  return absl::OkStatus();
}

absl::Status MrtOutputs::SetPeriodicDump(std::optional<PeriodicDumpOptions> options) {
  if (options) {
    if (options->interval < absl::Minutes(1)) {
      return absl::InvalidArgumentError("the table dump interval must be at least 1 minute");
    }
    absl::StatusOr<std::string> name = mrt::FormatMrtPath(options->pattern, absl::Now());
    if (!name.ok()) return name.status();
  }
  periodic_ = std::move(options);
  timer_.cancel();
  if (periodic_) ArmPeriodic();
  return absl::OkStatus();
}

void MrtOutputs::ArmPeriodic() {
  const absl::Time next = mrt::PeriodStart(absl::Now(), periodic_->interval) + periodic_->interval;
  timer_.expires_at(std::chrono::system_clock::from_time_t(0) +
                    std::chrono::microseconds(absl::ToUnixMicros(next)));
  timer_.async_wait(
      [this, alive = std::weak_ptr<bool>(alive_), next](const boost::system::error_code& ec) {
        if (ec || alive.expired()) return;
        RunPeriodic(next);
        ArmPeriodic();
      });
}

void MrtOutputs::RunPeriodic(absl::Time start) {
  if (periodic_running_) {
    SLUICE_LOG(kWarning) << "MRT table dump: the previous dump is still being written; skipping "
                         << absl::FormatTime(start, absl::UTCTimeZone());
    return;
  }
  absl::StatusOr<std::string> path = mrt::FormatMrtPath(periodic_->pattern, start);
  if (!path.ok()) {
    last_periodic_error_ = std::string(path.status().message());
    return;
  }
  periodic_running_ = true;
  DumpTable(*path, std::nullopt, [this](absl::StatusOr<DumpDone> r) {
    periodic_running_ = false;
    if (r.ok()) {
      last_periodic_ = r->result.path;
      last_periodic_error_.clear();
      SLUICE_LOG(kInfo) << "MRT table dump " << r->result.path << ": " << r->result.prefixes
                        << " prefixes in " << absl::FormatDuration(r->elapsed);
    } else {
      last_periodic_error_ = std::string(r.status().message());
      SLUICE_LOG(kWarning) << "MRT table dump: " << r.status().message();
    }
  });
}

mrt::PeerIndexTable MrtOutputs::MakePeerIndex(std::optional<net::IPAddress> only) const {
  mrt::PeerIndexTable t;
  t.collector_id = bgp_->local().bgp_id;
  t.view_name = only ? "adj-rib-in" : "loc-rib";
  if (!only)
    t.peers.push_back(
        mrt::MrtPeer{bgp_->local().bgp_id, net::IPAddress(net::IPv4Address()), bgp_->local().as});
  for (const PeerView& v : bgp_->ListPeers()) {
    if (only && v.session.address != *only) continue;
    t.peers.push_back(
        mrt::MrtPeer{v.session.remote_bgp_id, v.session.address, v.session.remote_as});
  }
  return t;
}

void MrtOutputs::DumpTable(const std::string& path, std::optional<net::IPAddress> adj_rib_in_peer,
                           std::function<void(absl::StatusOr<DumpDone>)> done) {
  if (path.empty() || path[0] != '/') {
    done(absl::InvalidArgumentError(
        absl::StrCat("the dump's path must be absolute: \"", path, "\"")));
    return;
  }
  if (adj_rib_in_peer && !bgp_->GetPeer(*adj_rib_in_peer).ok()) {
    done(absl::NotFoundError(absl::StrCat("no peer ", adj_rib_in_peer->ToString())));
    return;
  }
  auto job = std::make_shared<Job>(io_);
  job->path = path;
  job->peer = adj_rib_in_peer;
  job->start = absl::Now();
  job->done = std::move(done);
  absl::StatusOr<std::unique_ptr<mrt::MrtTableDump>> dump =
      mrt::MrtTableDump::Begin(path, MakePeerIndex(adj_rib_in_peer), job->start);
  if (!dump.ok()) {
    job->done(dump.status());
    return;
  }
  job->dump = std::move(*dump);
  jobs_.insert(job);
  Step(job);
}

void MrtOutputs::Step(const std::shared_ptr<Job>& job) {
  if (job->dump->pending_pages() >= kMaxPendingPages) {
    // The writer is behind: read again shortly, leaving the loop to the sessions.
    job->timer.expires_after(std::chrono::milliseconds(2));
    job->timer.async_wait(
        [this, job, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& ec) {
          if (!ec && !alive.expired()) Step(job);
        });
    return;
  }
  if (job->family == job->families.size()) return FinishDump(job);
  RouteQuery q;
  q.view = job->peer ? RibView::kAdjRibIn : RibView::kLocRib;
  q.family = job->families[job->family];
  q.peer = job->peer;
  q.after = job->cursor;
  q.max = kPageRoutes;
  // The read's time on the loop: all of it with the serial pipeline (the page comes back inside
  // the call), the asking and the merge with shards (which read on their threads meanwhile).
  const absl::Time read_start = absl::Now();
  bgp_->ReadRoutesAsync(q, [this, job, alive = std::weak_ptr<bool>(alive_)](
                               absl::StatusOr<std::vector<BgpRoute>> page) {
    if (!alive.expired()) OnPage(job, std::move(page));
  });
  job->on_loop += absl::Now() - read_start;
}

void MrtOutputs::OnPage(const std::shared_ptr<Job>& job,
                        absl::StatusOr<std::vector<BgpRoute>> page) {
  if (!page.ok() &&
      (absl::IsFailedPrecondition(page.status()) || absl::IsNotFound(page.status()))) {
    page = std::vector<BgpRoute>();  // the family is not enabled, or the peer does not run it
  }
  if (!page.ok()) return Finished(job, page.status());
  if (page->empty()) {
    ++job->family;
    job->cursor.reset();
  } else {
    job->cursor = page->back().net;
    job->dump->AddPage(std::move(*page));
  }
  boost::asio::post(io_, [this, job, alive = std::weak_ptr<bool>(alive_)] {
    if (!alive.expired()) Step(job);
  });
}

void MrtOutputs::FinishDump(const std::shared_ptr<Job>& job) {
  // The callback holds the job weakly: the dump (which holds the callback) belongs to the job.
  job->dump->Finish([this, weak = std::weak_ptr<Job>(job), alive = std::weak_ptr<bool>(alive_)](
                        absl::Status s, mrt::TableDumpResult r) {
    // On the dump's thread: back to the loop.
    boost::asio::post(io_, [this, weak, alive, s, r = std::move(r)]() mutable {
      std::shared_ptr<Job> job = weak.lock();
      if (alive.expired() || !job) return;
      if (!s.ok()) {
        Finished(job, s);
        return;
      }
      Finished(job, DumpDone{std::move(r), absl::Now() - job->start, job->on_loop});
    });
  });
}

void MrtOutputs::Finished(const std::shared_ptr<Job>& job, absl::StatusOr<DumpDone> result) {
  std::function<void(absl::StatusOr<DumpDone>)> done = std::move(job->done);
  jobs_.erase(job);  // the caller's reference is the last: the dump's thread is joined after
  if (done) done(std::move(result));
}

}  // namespace sluice::bgp::process
