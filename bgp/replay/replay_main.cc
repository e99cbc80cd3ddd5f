// sluice-replay: a BGP speaker that replays the routes of an MRT capture (or a synthetic table)
// to a peer — see --help (bgp/replay/replay_options.h) and bgp/replay/replay_session.h.
//
// main() wires: options → capture (replay_feed) → per-peer pre-encoded streams (feed_encoder)
// → sessions on one Asio event loop (replay_session) → progress on stderr, summary on stdout.
// The steps are in bgp/replay/replay_run.h.

#include <chrono>
#include <csignal>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/log.h"
#include "bgp/replay/asio.h"
#include "bgp/replay/replay_feed.h"
#include "bgp/replay/replay_options.h"
#include "bgp/replay/replay_run.h"

namespace sluice::bgp::replay {
namespace {

int Run(const Options& o) {
  AttributeStore store;  // outlives the feeds and the sessions below
  const Capture capture = LoadSource(o, &store);
  if (o.list_peers) {
    ListPeers(o, capture);
    return 0;
  }
  const std::vector<const PeerFeed*> chosen = ChoosePeers(o, capture);
  boost::asio::io_context io;
  uint64_t expected_total = 0;  // prefixes every session sends, for the progress bar
  Sessions sessions = BuildSessions(io, o, chosen, &store, &expected_total);
  const auto started = std::chrono::steady_clock::now();
  ReplayLoop loop(io, o, sessions, expected_total);
  loop.Run();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return PrintSummary(o, sessions, seconds) ? 0 : 1;
}

}  // namespace
}  // namespace sluice::bgp::replay

int main(int argc, char** argv) {
  sluice::base::SetLogTag("replay");
  std::signal(SIGPIPE, SIG_IGN);
  sluice::bgp::replay::Options options;
  if (std::optional<int> exit = sluice::bgp::replay::ParseOptions(argc, argv, &options)) {
    return *exit;
  }
  return sluice::bgp::replay::Run(options);
}
