// sluice-replay's event loop: sessions, progress, JSON events and signals (see replay_run.h).

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bgp/replay/replay_run.h"

namespace sluice::bgp::replay {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

ReplayLoop::ReplayLoop(asio::io_context& io, const Options& o, Sessions& sessions,
                       uint64_t expected_total)
    : io_(io),
      o_(o),
      sessions_(sessions),
      expected_total_(expected_total),
      open_sessions_(sessions.size()),
      progress_(io),
      signals_(io, SIGINT, SIGTERM),
      withdraw_signal_(io),
      extra_signal_(io),
      drop_signal_(io),
      extra_timer_(io),
      bar_(stderr) {
  if (o.withdraw_on_signal) withdraw_signal_.add(SIGUSR1);
  if (o.drop_on_signal) drop_signal_.add(SIGHUP);
  if (o.extra > 0 && o.extra_every <= 0) extra_signal_.add(SIGUSR2);
}

void ReplayLoop::Run() {
  for (auto& s : sessions_) WireSession(*s);
  AwaitStopSignal();
  if (o_.drop_on_signal) AwaitDropSignal();
  if (o_.extra > 0 && o_.extra_every <= 0) AwaitExtraSignal();
  if (o_.withdraw_on_signal) AwaitWithdrawSignal();
  if (o_.connect) {
    for (auto& s : sessions_) s->Connect();
  } else {
    Listen();
  }
  Tick();
  io_.run();
  bar_.Finish();
}

// Progress each second: the bar (unless --quiet) and, with --json --receive-only, an event.
void ReplayLoop::Tick() {
  progress_.expires_after(std::chrono::seconds(1));
  progress_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    uint64_t total = 0;
    int established = 0;
    for (const auto& s : sessions_) {
      total += s->progress();
      established += s->stats().state == "Established";
    }
    if (o_.json && o_.receive_only) PrintJsonProgress(established);
    if (!o_.quiet) {
      const std::string sessions_up =
          absl::StrFormat("%d of %zu sessions", established, sessions_.size());
      base::Progress p;
      p.label = "sluice-replay";
      p.done = total;
      p.total = expected_total_;
      p.rate_per_s = double(total - last_progress_);
      p.note = sessions_up;
      bar_.Update(base::FormatProgress(p),
                  absl::StrFormat("sluice-replay: %llu prefixes sent (%llu/s), %s established",
                                  (unsigned long long)total,
                                  (unsigned long long)(total - last_progress_), sessions_up));
    }
    last_progress_ = total;
    Tick();
  });
}

void ReplayLoop::PrintJsonProgress(int established) {
  uint64_t held = 0;
  double changed = -1;
  for (const auto& s : sessions_) {
    held += s->stats().prefixes_held;
    changed = std::max(changed, s->stats().held_changed_mono);
  }
  std::printf(
      "{\"event\":\"progress\",\"held\":%llu,\"held_changed_mono\":%.6f,"
      "\"established\":%d,\"mono\":%.6f}\n",
      (unsigned long long)held, changed, established, MonotonicSeconds());
  std::fflush(stdout);
}

// --extra: the next held-back route on each SIGUSR2, or every --extra-every seconds.
void ReplayLoop::AnnounceExtra() {
  for (auto& s : sessions_) {
    const double mono = MonotonicSeconds();  // before the write starts
    if (!s->AnnounceNext()) continue;
    if (o_.json) {
      std::printf("{\"event\":\"extra\",\"peer\":\"%s\",\"left\":%zu,\"mono\":%.6f}\n",
                  JsonEscape(s->options().name).c_str(), s->extra_left(), mono);
      std::fflush(stdout);
    }
  }
}

void ReplayLoop::AwaitExtraSignal() {
  extra_signal_.async_wait([this](const boost::system::error_code& ec, int) {
    if (ec) return;
    AnnounceExtra();
    AwaitExtraSignal();
  });
}

void ReplayLoop::ExtraTick() {
  extra_timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(o_.extra_every)));
  extra_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    AnnounceExtra();
    bool left = false;
    for (auto& s : sessions_) left |= s->extra_left() > 0 && !s->done();
    if (left) ExtraTick();
  });
}

void ReplayLoop::WireSession(ReplaySession& session) {
  session.on_stream = [this](ReplaySession* s, const char* milestone) { OnStream(s, milestone); };
  session.on_held_change = [this](ReplaySession*) { OnHeldChange(); };
  session.on_sent = [this](ReplaySession* s) { OnSent(s); };
  session.on_done = [this](ReplaySession*) { OnDone(); };
}

void ReplayLoop::OnStream(ReplaySession* s, const char* milestone) {
  if (o_.extra_every > 0 && std::string_view(milestone) == "table_sent" && s->extra_left() > 0) {
    ExtraTick();
  }
  if (!o_.json) return;
  std::printf("{\"event\":\"%s\",\"peer\":\"%s\",\"mono\":%.6f}\n", milestone,
              JsonEscape(s->options().name).c_str(), MonotonicSeconds());
  std::fflush(stdout);
}

// With --json --expect: an event when the peers' UPDATEs leave us holding every expected
// prefix, and one when they then leave us holding none.
void ReplayLoop::OnHeldChange() {
  if (!o_.json || o_.expect == 0) return;
  uint64_t held = 0;
  for (const auto& x : sessions_) held += x->stats().prefixes_held;
  if (!held_all_ && held == o_.expect) {
    held_all_ = true;
    std::printf("{\"event\":\"held_all\",\"prefixes\":%llu,\"mono\":%.6f}\n",
                (unsigned long long)held, MonotonicSeconds());
    std::fflush(stdout);
  } else if (held_all_ && !held_none_ && held == 0) {
    held_none_ = true;
    std::printf("{\"event\":\"held_none\",\"mono\":%.6f}\n", MonotonicSeconds());
    std::fflush(stdout);
  }
}

void ReplayLoop::OnSent(ReplaySession* s) {
  if (o_.json) {
    std::printf(
        "{\"event\":\"sent\",\"peer\":\"%s\",\"prefixes\":%llu,\"withdrawals\":%llu,"
        "\"seconds\":%.6f}\n",
        JsonEscape(s->options().name).c_str(), (unsigned long long)s->stats().prefixes_sent,
        (unsigned long long)s->stats().withdrawals_sent, s->stats().table_seconds);
    std::fflush(stdout);
  } else if (!o_.quiet) {
    bar_.Finish();
    std::fprintf(stderr, "sluice-replay: %s: %llu prefixes sent in %.3f s\n",
                 s->options().name.c_str(), (unsigned long long)s->stats().prefixes_sent,
                 s->stats().table_seconds);
  }
}

// The last session over: nothing more to wait for, so the event loop can return.
void ReplayLoop::OnDone() {
  if (--open_sessions_ == 0) {
    progress_.cancel();
    signals_.cancel();
    withdraw_signal_.cancel();
    extra_signal_.cancel();
    extra_timer_.cancel();
    drop_signal_.cancel();
    if (acceptor_) acceptor_->close();
  }
}

// SIGINT or SIGTERM: every session stops.
void ReplayLoop::AwaitStopSignal() {
  signals_.async_wait([this](const boost::system::error_code& ec, int) {
    if (ec) return;
    for (auto& s : sessions_) s->Stop("stopped by signal");
    if (acceptor_) acceptor_->close();
    withdraw_signal_.cancel();
    extra_signal_.cancel();
    extra_timer_.cancel();
    drop_signal_.cancel();
  });
}

// --drop-on-signal: SIGHUP drops every session's connection.
void ReplayLoop::AwaitDropSignal() {
  drop_signal_.async_wait([this](const boost::system::error_code& ec, int) {
    if (ec) return;
    for (auto& s : sessions_) s->DropConnection();
    AwaitDropSignal();
  });
}

// --withdraw-on-signal: SIGUSR1 withdraws every session's routes now.
void ReplayLoop::AwaitWithdrawSignal() {
  withdraw_signal_.async_wait([this](const boost::system::error_code& ec, int) {
    if (ec) return;
    for (auto& s : sessions_) s->WithdrawNow();
    AwaitWithdrawSignal();
  });
}

void ReplayLoop::Listen() {
  acceptor_.emplace(io_);
  boost::system::error_code ec;
  acceptor_->open(o_.listen->protocol(), ec);
  acceptor_->set_option(asio::socket_base::reuse_address(true), ec);
  acceptor_->bind(*o_.listen, ec);
  if (ec)
    Die(absl::StrCat("cannot listen on ", o_.listen->address().to_string(), ": ", ec.message()));
  acceptor_->listen();
  Accept();
}

// Each connection goes to the first session waiting for one (its first, or after a drop); with
// none waiting it is closed.
void ReplayLoop::Accept() {
  acceptor_->async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
    if (ec) return;
    for (auto& s : sessions_) {
      if (s->waiting_for_connection()) {
        s->Accept(std::move(socket));
        break;
      }
    }
    Accept();
  });
}

}  // namespace sluice::bgp::replay
