// sluice-replay: a BGP speaker that replays the routes of an MRT capture (or a synthetic table)
// to a peer — see --help (bgp/replay/replay_options.h) and bgp/replay/replay_session.h.
//
// main() wires: options → capture (replay_feed) → per-peer pre-encoded streams (feed_encoder)
// → sessions on one Asio event loop (replay_session) → progress on stderr, summary on stdout.
// The steps are in bgp/replay/replay_run.h.

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bgp/replay/asio.h"
#include "bgp/replay/replay_feed.h"
#include "bgp/replay/replay_options.h"
#include "bgp/replay/replay_run.h"
#include "net/log.h"
#include "net/progress.h"

namespace sluice::bgp::replay {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

int Run(const Options& o) {
  AttributeStore store;  // outlives the feeds and the sessions below
  const Capture capture = LoadSource(o, &store);
  if (o.list_peers) {
    ListPeers(o, capture);
    return 0;
  }
  const std::vector<const PeerFeed*> chosen = ChoosePeers(o, capture);
  asio::io_context io;
  uint64_t expected_total = 0;  // prefixes every session sends, for the progress bar
  Sessions sessions = BuildSessions(io, o, chosen, &store, &expected_total);

  // Progress, signals, the end.
  const auto started = std::chrono::steady_clock::now();
  size_t open_sessions = sessions.size();
  asio::steady_timer progress(io);
  asio::signal_set signals(io, SIGINT, SIGTERM);
  asio::signal_set withdraw_signal(io);
  if (o.withdraw_on_signal) withdraw_signal.add(SIGUSR1);
  asio::signal_set extra_signal(io);
  asio::signal_set drop_signal(io);
  if (o.drop_on_signal) drop_signal.add(SIGHUP);
  asio::steady_timer extra_timer(io);
  if (o.extra > 0 && o.extra_every <= 0) extra_signal.add(SIGUSR2);
  std::optional<tcp::acceptor> acceptor;
  uint64_t last_progress = 0;
  net::ProgressLine bar(stderr);  // one line redrawn on a terminal; a line a second otherwise
  std::function<void()> tick = [&] {
    progress.expires_after(std::chrono::seconds(1));
    progress.async_wait([&](const boost::system::error_code& ec) {
      if (ec) return;
      uint64_t total = 0;
      int established = 0;
      for (const auto& s : sessions) {
        total += s->progress();
        established += s->stats().state == "Established";
      }
      if (o.json && o.receive_only) {
        uint64_t held = 0;
        double changed = -1;
        for (const auto& s : sessions) {
          held += s->stats().prefixes_held;
          changed = std::max(changed, s->stats().held_changed_mono);
        }
        std::printf(
            "{\"event\":\"progress\",\"held\":%llu,\"held_changed_mono\":%.6f,"
            "\"established\":%d,\"mono\":%.6f}\n",
            (unsigned long long)held, changed, established, MonotonicSeconds());
        std::fflush(stdout);
      }
      if (!o.quiet) {
        const std::string sessions_up =
            absl::StrFormat("%d of %zu sessions", established, sessions.size());
        net::Progress p;
        p.label = "sluice-replay";
        p.done = total;
        p.total = expected_total;
        p.rate_per_s = double(total - last_progress);
        p.note = sessions_up;
        bar.Update(net::FormatProgress(p),
                   absl::StrFormat("sluice-replay: %llu prefixes sent (%llu/s), %s established",
                                   (unsigned long long)total,
                                   (unsigned long long)(total - last_progress), sessions_up));
      }
      last_progress = total;
      tick();
    });
  };
  // --extra: the next held-back route on each SIGUSR2, or every --extra-every seconds.
  auto announce_extra = [&] {
    for (auto& s : sessions) {
      const double mono = MonotonicSeconds();  // before the write starts
      if (!s->AnnounceNext()) continue;
      if (o.json) {
        std::printf("{\"event\":\"extra\",\"peer\":\"%s\",\"left\":%zu,\"mono\":%.6f}\n",
                    JsonEscape(s->options().name).c_str(), s->extra_left(), mono);
        std::fflush(stdout);
      }
    }
  };
  std::function<void()> await_extra_signal = [&] {
    extra_signal.async_wait([&](const boost::system::error_code& ec, int) {
      if (ec) return;
      announce_extra();
      await_extra_signal();
    });
  };
  std::function<void()> extra_tick = [&] {
    extra_timer.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(o.extra_every)));
    extra_timer.async_wait([&](const boost::system::error_code& ec) {
      if (ec) return;
      announce_extra();
      bool left = false;
      for (auto& s : sessions) left |= s->extra_left() > 0 && !s->done();
      if (left) extra_tick();
    });
  };
  bool held_all = false, held_none = false;
  for (auto& s : sessions) {
    s->on_stream = [&](ReplaySession* s, const char* milestone) {
      if (o.extra_every > 0 && std::string_view(milestone) == "table_sent" && s->extra_left() > 0) {
        extra_tick();
      }
      if (!o.json) return;
      std::printf("{\"event\":\"%s\",\"peer\":\"%s\",\"mono\":%.6f}\n", milestone,
                  JsonEscape(s->options().name).c_str(), MonotonicSeconds());
      std::fflush(stdout);
    };
    s->on_held_change = [&](ReplaySession*) {
      if (!o.json || o.expect == 0) return;
      uint64_t held = 0;
      for (const auto& x : sessions) held += x->stats().prefixes_held;
      if (!held_all && held == o.expect) {
        held_all = true;
        std::printf("{\"event\":\"held_all\",\"prefixes\":%llu,\"mono\":%.6f}\n",
                    (unsigned long long)held, MonotonicSeconds());
        std::fflush(stdout);
      } else if (held_all && !held_none && held == 0) {
        held_none = true;
        std::printf("{\"event\":\"held_none\",\"mono\":%.6f}\n", MonotonicSeconds());
        std::fflush(stdout);
      }
    };
    s->on_sent = [&](ReplaySession* s) {
      if (o.json) {
        std::printf(
            "{\"event\":\"sent\",\"peer\":\"%s\",\"prefixes\":%llu,\"withdrawals\":%llu,"
            "\"seconds\":%.6f}\n",
            JsonEscape(s->options().name).c_str(), (unsigned long long)s->stats().prefixes_sent,
            (unsigned long long)s->stats().withdrawals_sent, s->stats().table_seconds);
        std::fflush(stdout);
      } else if (!o.quiet) {
        bar.Finish();
        std::fprintf(stderr, "sluice-replay: %s: %llu prefixes sent in %.3f s\n",
                     s->options().name.c_str(), (unsigned long long)s->stats().prefixes_sent,
                     s->stats().table_seconds);
      }
    };
    s->on_done = [&](ReplaySession*) {
      if (--open_sessions == 0) {
        progress.cancel();
        signals.cancel();
        withdraw_signal.cancel();
        extra_signal.cancel();
        extra_timer.cancel();
        drop_signal.cancel();
        if (acceptor) acceptor->close();
      }
    };
  }
  signals.async_wait([&](const boost::system::error_code& ec, int) {
    if (ec) return;
    for (auto& s : sessions) s->Stop("stopped by signal");
    if (acceptor) acceptor->close();
    withdraw_signal.cancel();
    extra_signal.cancel();
    extra_timer.cancel();
    drop_signal.cancel();
  });
  std::function<void()> await_drop_signal = [&] {
    drop_signal.async_wait([&](const boost::system::error_code& ec, int) {
      if (ec) return;
      for (auto& s : sessions) s->DropConnection();
      await_drop_signal();
    });
  };
  if (o.drop_on_signal) await_drop_signal();
  if (o.extra > 0 && o.extra_every <= 0) await_extra_signal();
  std::function<void()> await_withdraw_signal = [&] {
    withdraw_signal.async_wait([&](const boost::system::error_code& ec, int) {
      if (ec) return;
      for (auto& s : sessions) s->WithdrawNow();
      await_withdraw_signal();
    });
  };
  if (o.withdraw_on_signal) await_withdraw_signal();
  // Each connection goes to the first session waiting for one (its first, or after a drop);
  // with none waiting it is closed.
  std::function<void()> accept = [&] {
    acceptor->async_accept([&](const boost::system::error_code& ec, tcp::socket socket) {
      if (ec) return;
      for (auto& s : sessions) {
        if (s->waiting_for_connection()) {
          s->Accept(std::move(socket));
          break;
        }
      }
      accept();
    });
  };
  if (o.connect) {
    for (auto& s : sessions) s->Connect();
  } else {
    acceptor.emplace(io);
    boost::system::error_code ec;
    acceptor->open(o.listen->protocol(), ec);
    acceptor->set_option(asio::socket_base::reuse_address(true), ec);
    acceptor->bind(*o.listen, ec);
    if (ec)
      Die(absl::StrCat("cannot listen on ", o.listen->address().to_string(), ": ", ec.message()));
    acceptor->listen();
    accept();
  }
  tick();
  io.run();
  bar.Finish();

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return PrintSummary(o, sessions, seconds) ? 0 : 1;
}

}  // namespace
}  // namespace sluice::bgp::replay

int main(int argc, char** argv) {
  sluice::net::SetLogTag("replay");
  std::signal(SIGPIPE, SIG_IGN);
  sluice::bgp::replay::Options options;
  if (std::optional<int> exit = sluice::bgp::replay::ParseOptions(argc, argv, &options)) {
    return *exit;
  }
  return sluice::bgp::replay::Run(options);
}
