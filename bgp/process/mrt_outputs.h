#pragma once
// MrtOutputs: sluice-bgp's MRT (RFC 6396) files, wired to a BgpProcess:
//   - the update log (bgp/mrt/mrt_update_log.h), a MessageTap on the process's PeerManager;
//   - periodic TABLE_DUMP_V2 dumps of the Loc-RIB every `interval`, at multiples of it since
//     the epoch, named from the pattern with the dump's start time;
//   - dumps on demand (DumpTable): the Loc-RIB, or one peer's Adj-RIB-In.
// A dump reads the routes on the event loop a page at a time (BgpProcess::ReadRoutesAsync, which
// with shard threads asks every shard for the page and merges the answers), handing each page to
// the dump's own thread (bgp/mrt/mrt_table_dump.h) that encodes and writes it; reading pauses
// while four pages wait. The dump is therefore not one instant's table: a route changing during
// the dump appears as it was when its page was read.
//
// The PEER_INDEX_TABLE lists this router first (its BGP Identifier, address 0.0.0.0 and AS, for
// the routes it originates), then every configured peer. Single-threaded: every call on the
// event loop.

#include <boost/asio/io_context.hpp>
#include <boost/asio/system_timer.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bgp/mrt/mrt_table_dump.h"
#include "bgp/mrt/mrt_update_log.h"
#include "bgp/process/bgp_process.h"

namespace sluice::bgp::process {

struct PeriodicDumpOptions {
  std::string pattern;                       // strftime, UTC (bgp/mrt/mrt_path.h)
  absl::Duration interval = absl::Hours(2);  // at least 1 minute
};

struct DumpDone {
  mrt::TableDumpResult result;
  absl::Duration elapsed;  // from the call to the file complete
  absl::Duration
      on_loop;  // of it, the event loop busy reading routes (with shards: asking, merging)
};

class MrtOutputs {
 public:
  MrtOutputs(boost::asio::io_context& io, BgpProcess* bgp);
  ~MrtOutputs();  // the update log stops (what is queued is written); dumps are abandoned

  // The update log on (replacing one running) or off (nullopt). Errors: InvalidArgument for a
  // bad pattern or rotation period.
  absl::Status SetUpdateLog(std::optional<mrt::UpdateLogOptions> options);
  // Periodic Loc-RIB dumps on or off (nullopt). Errors: InvalidArgument for a bad pattern or an
  // interval under 1 minute.
  absl::Status SetPeriodicDump(std::optional<PeriodicDumpOptions> options);

  // Writes the Loc-RIB (or `adj_rib_in_peer`'s Adj-RIB-In) to `path`; `done` runs on the loop
  // once the file is complete, or failed. Errors (to `done`): InvalidArgument for a relative
  // path; NotFound for an unknown peer; Internal saying why the file cannot be written.
  void DumpTable(const std::string& path, std::optional<net::IPAddress> adj_rib_in_peer,
                 std::function<void(absl::StatusOr<DumpDone>)> done);

  const mrt::MrtUpdateLog* update_log() const { return update_log_.get(); }
  const std::optional<PeriodicDumpOptions>& periodic() const { return periodic_; }
  const std::string& last_periodic_dump() const { return last_periodic_; }
  const std::string& last_periodic_error() const { return last_periodic_error_; }

 private:
  struct Job;
  void Step(const std::shared_ptr<Job>& job);
  void OnPage(const std::shared_ptr<Job>& job, absl::StatusOr<std::vector<BgpRoute>> page);
  void FinishDump(const std::shared_ptr<Job>& job);
  void Finished(const std::shared_ptr<Job>& job, absl::StatusOr<DumpDone> result);
  void ArmPeriodic();
  void RunPeriodic(absl::Time start);
  mrt::PeerIndexTable MakePeerIndex(std::optional<net::IPAddress> only) const;

  boost::asio::io_context& io_;
  BgpProcess* bgp_;
  std::unique_ptr<mrt::MrtUpdateLog> update_log_;
  std::optional<PeriodicDumpOptions> periodic_;
  boost::asio::system_timer timer_;
  bool periodic_running_ = false;
  std::string last_periodic_, last_periodic_error_;
  std::set<std::shared_ptr<Job>> jobs_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice::bgp::process
