#pragma once
// The steps of one sluice-replay run (local to bgp/replay; main() in replay_main.cc calls them):
// load the capture, choose its peers, build one session per peer (replay_setup.cc), drive them
// on one Asio event loop with progress and signals (replay_loop.cc), then print the summary
// (replay_report.cc). Option errors found here exit 2 through Die.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/progress.h"
#include "bgp/replay/asio.h"
#include "bgp/replay/replay_feed.h"
#include "bgp/replay/replay_options.h"
#include "bgp/replay/replay_session.h"

namespace sluice::bgp::replay {

using Sessions = std::vector<std::unique_ptr<ReplaySession>>;

// Prints "sluice-replay: MESSAGE" on stderr and exits 2.
[[noreturn]] void Die(const std::string& message);

// The feeds to replay: one empty peer with --receive-only, a synthetic table with --synthetic,
// else the MRT capture --mrt (a truncated one is replayed as far as it was read, with a note on
// stderr unless --quiet). Routes' attributes are interned in *store.
Capture LoadSource(const Options& o, AttributeStore* store);

// --list-peers: one line per capture peer on stdout (with --ipv4-only, those with IPv4 routes).
void ListPeers(const Options& o, const Capture& capture);

// The capture peers to replay: --all-peers, --peer-index, --peer-address, else the one with the
// most announcements. Exits 2 when none matches.
std::vector<const PeerFeed*> ChoosePeers(const Options& o, const Capture& capture);

// One session per chosen peer on `io`, its streams encoded from the feed as the options say.
// *expected_total: the prefixes all of them send (for the progress bar). Exits 2 on options the
// feed cannot satisfy. `store` and the feeds must outlive the sessions.
Sessions BuildSessions(boost::asio::io_context& io, const Options& o,
                       const std::vector<const PeerFeed*>& chosen, AttributeStore* store,
                       uint64_t* expected_total);

// `s` with '"', '\\' and control characters escaped for a JSON string.
std::string JsonEscape(const std::string& s);

// Prints the summary of the sessions on stdout (a JSON line with --json, else a line or three
// per session); true when every session ended without error (or by signal) and sent its table.
bool PrintSummary(const Options& o, const Sessions& sessions, double seconds);

// Drives the sessions until every one is over: connects them (or listens and hands each accepted
// connection to a session waiting for one), draws progress on stderr each second, prints JSON
// events on stdout with --json, and acts on signals: SIGINT/SIGTERM stop, SIGUSR1 withdraws
// (--withdraw-on-signal), SIGUSR2 announces the next --extra route, SIGHUP drops connections
// (--drop-on-signal). Exits 2 when it cannot listen.
class ReplayLoop {
 public:
  ReplayLoop(boost::asio::io_context& io, const Options& o, Sessions& sessions,
             uint64_t expected_total);
  // Returns when the event loop has no more work (every session is done).
  void Run();

 private:
  void Tick();
  void PrintJsonProgress(int established);
  void AnnounceExtra();
  void AwaitExtraSignal();
  void ExtraTick();
  void WireSession(ReplaySession& session);
  void OnStream(ReplaySession* s, const char* milestone);
  void OnHeldChange();
  void OnSent(ReplaySession* s);
  void OnDone();
  void AwaitStopSignal();
  void AwaitDropSignal();
  void AwaitWithdrawSignal();
  void Listen();
  void Accept();

  boost::asio::io_context& io_;
  const Options& o_;
  Sessions& sessions_;
  const uint64_t expected_total_;  // prefixes every session sends, for the progress bar
  size_t open_sessions_;
  boost::asio::steady_timer progress_;
  boost::asio::signal_set signals_;
  boost::asio::signal_set withdraw_signal_;
  boost::asio::signal_set extra_signal_;
  boost::asio::signal_set drop_signal_;
  boost::asio::steady_timer extra_timer_;
  std::optional<boost::asio::ip::tcp::acceptor> acceptor_;
  uint64_t last_progress_ = 0;
  base::ProgressLine bar_;  // one line redrawn on a terminal; a line a second otherwise
  bool held_all_ = false, held_none_ = false;
};

}  // namespace sluice::bgp::replay
