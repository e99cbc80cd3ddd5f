// sluice-replay: a BGP speaker that replays the routes of an MRT capture (or a synthetic table)
// to a peer — see --help (bgp/replay/replay_options.h) and bgp/replay/replay_session.h.
//
// main() wires: options → capture (replay_feed) → per-peer pre-encoded streams (feed_encoder)
// → sessions on one Asio event loop (replay_session) → progress on stderr, summary on stdout.

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bgp/replay/asio.h"
#include "bgp/replay/feed_encoder.h"
#include "bgp/replay/replay_feed.h"
#include "bgp/replay/replay_options.h"
#include "bgp/replay/replay_run.h"
#include "bgp/replay/replay_session.h"
#include "net/log.h"
#include "net/progress.h"
#include "net/version.h"

namespace sluice::bgp::replay {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "sluice-replay: %s\n", message.c_str());
  std::exit(2);
}

// The address this host would use to reach `remote` (a UDP "connect" sends nothing).
std::optional<asio::ip::address> SourceAddressFor(asio::io_context& io,
                                                  const tcp::endpoint& remote) {
  boost::system::error_code ec;
  asio::ip::udp::socket s(io);
  s.connect(asio::ip::udp::endpoint(remote.address(), remote.port()), ec);
  if (ec) return std::nullopt;
  auto local = s.local_endpoint(ec);
  if (ec) return std::nullopt;
  return local.address();
}

asio::ip::address Offset(const asio::ip::address& base, size_t n) {
  if (base.is_v4()) return asio::ip::address_v4(base.to_v4().to_uint() + uint32_t(n));
  auto bytes = base.to_v6().to_bytes();
  uint32_t carry = uint32_t(n);
  for (int i = 15; i >= 0 && carry; --i) {
    carry += bytes[i];
    bytes[i] = uint8_t(carry);
    carry >>= 8;
  }
  return asio::ip::address_v6(bytes);
}

// The local address of the first session: --local-address; else with --all-peers towards a
// loopback peer 127.0.0.2 (or ::1); else the address listened on.
std::optional<asio::ip::address> BaseAddress(const Options& o, const tcp::endpoint& remote) {
  if (o.local_address) return o.local_address;
  if (o.all_peers && remote.address().is_loopback()) {
    return remote.address().is_v4() ? asio::ip::address(asio::ip::make_address_v4("127.0.0.2"))
                                    : asio::ip::address(asio::ip::address_v6::loopback());
  }
  if (o.listen && !o.listen->address().is_unspecified()) return o.listen->address();
  return std::nullopt;
}

// The source address of a session, when known: the one it binds, else (listening) the address
// listened on, else (with --next-hop-self) the one this host would use to reach the peer.
std::optional<asio::ip::address> SessionSource(asio::io_context& io, const Options& o,
                                               const SessionOptions& so,
                                               const std::optional<asio::ip::address>& base,
                                               const tcp::endpoint& remote) {
  if (so.local) return so.local;
  if (o.listen && base) return base;
  if (o.connect && o.next_hop_self) return SourceAddressFor(io, remote);
  return std::nullopt;
}

int Run(const Options& o) {
  AttributeStore store;  // outlives the feeds and the sessions below
  Capture capture;
  if (o.receive_only) {
    capture.peers.emplace_back();
    capture.peers.back().address = net::IPAddress(net::IPv4Address());
  } else if (o.synthetic > 0) {
    capture.peers.push_back(
        SyntheticTable(o.synthetic + o.extra + o.after_reconnect_add, o.seed, &store));
  } else {
    auto loaded = LoadCapture(o.mrt, &store);
    if (!loaded.ok()) Die(std::string(loaded.status().message()));
    capture = std::move(*loaded);
    if (capture.truncated && !o.quiet) {
      std::fprintf(stderr, "sluice-replay: %s: %s; replaying what was read\n", o.mrt.c_str(),
                   capture.note.c_str());
    }
  }
  auto has_ipv4 = [](const PeerFeed& p) {
    for (const Route& r : p.table) {
      if (r.nlri.prefix.is_v4()) return true;
    }
    for (const FeedUpdate& u : p.updates) {
      for (const Nlri& n : u.announced) {
        if (n.prefix.is_v4()) return true;
      }
    }
    return false;
  };
  if (o.list_peers) {
    for (size_t i = 0; i < capture.peers.size(); ++i) {
      const PeerFeed& p = capture.peers[i];
      if (o.ipv4_only && !has_ipv4(p)) continue;
      std::printf("%3zu  %-40s %9llu announcements%s\n", i, p.Name().c_str(),
                  (unsigned long long)p.announced_prefixes,
                  p.updates.empty() && p.table.empty() ? " (session state changes only)"
                  : p.updates.empty()
                      ? " (RIB)"
                      : absl::StrFormat(" in %d UPDATEs", p.updates.size()).c_str());
    }
    return 0;
  }

  // Which peers.
  std::vector<const PeerFeed*> chosen;
  if (o.all_peers) {
    for (const PeerFeed& p : capture.peers) {
      if (!o.ipv4_only || has_ipv4(p)) chosen.push_back(&p);
    }
    if (chosen.empty()) Die("no capture peer with IPv4 routes");
  } else if (o.peer_index) {
    if (*o.peer_index >= capture.peers.size()) {
      Die(absl::StrFormat("--peer-index %d: the capture has %d peers", *o.peer_index,
                          capture.peers.size()));
    }
    chosen.push_back(&capture.peers[*o.peer_index]);
  } else if (o.peer_address) {
    for (const PeerFeed& p : capture.peers) {
      if (p.address == *o.peer_address) chosen.push_back(&p);
    }
    if (chosen.empty()) Die("no peer " + o.peer_address->ToString() + " in the capture");
    chosen.resize(1);
  } else {
    const PeerFeed* best = &capture.peers[0];
    for (const PeerFeed& p : capture.peers) {
      if (p.announced_prefixes > best->announced_prefixes) best = &p;
    }
    chosen.push_back(best);
  }

  asio::io_context io;
  const tcp::endpoint remote = o.connect ? *o.connect : *o.listen;
  const std::optional<asio::ip::address> base = BaseAddress(o, remote);

  std::vector<std::unique_ptr<ReplaySession>> sessions;
  uint64_t expected_total = 0;  // prefixes every session sends, for the progress bar
  for (size_t i = 0; i < chosen.size(); ++i) {
    const PeerFeed& feed = *chosen[i];
    SessionOptions so;
    so.name = feed.Name();
    so.remote = remote;
    if (base && o.connect) so.local = o.all_peers ? Offset(*base, i) : *base;
    so.local_as = o.local_as_capture ? feed.as : *o.local_as;
    so.peer_as = o.peer_as;
    const std::optional<asio::ip::address> local = SessionSource(io, o, so, base, remote);
    if (o.router_id) {
      so.router_id =
          o.all_peers ? net::IPv4Address(o.router_id->value() + uint32_t(i)) : *o.router_id;
    } else if (local && local->is_v4()) {
      so.router_id = net::IPv4Address(local->to_v4().to_uint());
    } else {
      so.router_id = net::IPv4Address(0x0aff0001 + uint32_t(i));  // 10.255.0.N
    }
    so.hold_time = o.hold_time;
    so.extended_messages = o.extended_messages;
    so.pace = o.pace;
    so.withdraw_after = o.withdraw_after;
    so.flap_every = o.flap_every;
    so.flaps = o.flaps;
    so.wait_eor = o.wait_eor;
    so.linger = o.linger;
    so.track_held = o.receive_only;
    so.graceful_restart = o.graceful_restart;
    so.reconnect = o.reconnect;
    // Families: those the feed has routes of (unicast).
    bool v4 = false, v6 = false;
    auto note = [&](const Nlri& n) { (n.prefix.is_v4() ? v4 : v6) = true; };
    for (const Route& r : feed.table) note(r.nlri);
    for (const FeedUpdate& u : feed.updates) {
      for (const Nlri& n : u.announced) note(n);
      for (const Nlri& n : u.withdrawn) note(n);
    }
    if (v4 || !v6 || o.ipv4_only) so.families.Add(kIPv4Unicast);
    if (v6 && !o.ipv4_only) so.families.Add(kIPv6Unicast);

    RewriteOptions rw;
    rw.local_as = so.local_as;
    rw.external = o.peer_as == 0 ? true : o.peer_as != so.local_as;
    rw.prepend_own_as = o.prepend_own_as;
    rw.path_variant = o.path_variant;
    rw.next_hop4 = o.next_hop;
    rw.next_hop6 = o.next_hop6;
    if (o.next_hop_self) {
      if (!local)
        Die("--next-hop-self: cannot tell the local address; give --local-address or --next-hop");
      if (local->is_v4()) {
        rw.next_hop4 = net::IPv4Address(local->to_v4().to_uint());
        if (!rw.next_hop6) {
          rw.next_hop6 = net::IPv6Address(0, 0xffff00000000ull | local->to_v4().to_uint());
        }
      } else {
        const auto b = local->to_v6().to_bytes();
        rw.next_hop6 = net::IPv6Address::FromBytes(b.data());
      }
    }
    const std::string mode =
        !o.mode.empty() ? o.mode : (feed.updates.empty() ? "table" : "messages");
    if (mode == "messages" && feed.updates.empty()) Die("--mode messages needs an UPDATE capture");
    if (o.pace && mode != "messages") Die("--pace replays captured UPDATEs: use --mode messages");
    // --extra: routes spread evenly over the table, held back from it.
    auto routes = std::make_shared<std::vector<Route>>(feed.Table());
    auto extra = std::make_shared<std::vector<Route>>();
    if (o.extra > 0) {
      if (mode != "table") Die("--extra holds routes back from a table: use --mode table");
      if (o.extra >= routes->size()) {
        Die(absl::StrFormat("--extra %d: the table has only %d routes", o.extra, routes->size()));
      }
      std::vector<Route> kept;
      const double step = double(routes->size()) / double(o.extra);
      size_t next_extra = 0;
      for (size_t r = 0; r < routes->size(); ++r) {
        if (extra->size() < o.extra && r == next_extra) {
          extra->push_back((*routes)[r]);
          next_extra = size_t(step * double(extra->size()) + step / 2);
        } else {
          kept.push_back((*routes)[r]);
        }
      }
      *routes = std::move(kept);
    }
    expected_total += mode == "messages" ? feed.announced_prefixes : routes->size();
    // --after-reconnect-drop/-add: the table sent after a reconnect.
    std::shared_ptr<std::vector<Route>> again;
    if (o.after_reconnect_drop > 0 || o.after_reconnect_add > 0) {
      if (mode != "table") Die("--after-reconnect-drop/-add change a table: use --mode table");
      if (o.after_reconnect_add + o.after_reconnect_drop > routes->size()) {
        Die(absl::StrFormat("--after-reconnect-drop/-add: the table has only %d routes",
                            routes->size()));
      }
      const auto added = routes->end() - ptrdiff_t(o.after_reconnect_add);
      again = std::make_shared<std::vector<Route>>(
          routes->begin() + ptrdiff_t(o.after_reconnect_drop), routes->end());
      routes->erase(added, routes->end());
    }
    auto encode = [&feed, rw, mode, &store, routes](const SessionParams& params,
                                                    EncodedStream* table, EncodedStream* withdraw) {
      FeedEncoder encoder(params, rw, &store);
      if (mode == "messages") {
        encoder.EncodeMessages(feed, table);
      } else {
        encoder.EncodeTable(*routes, table);
      }
      encoder.EncodeEndOfRib(table);
      encoder.EncodeWithdrawAll(*routes, withdraw);
    };
    sessions.push_back(std::make_unique<ReplaySession>(io, so, encode));
    if (again) {
      sessions.back()->SetReconnectEncoder([rw, &store, again](const SessionParams& params,
                                                               EncodedStream* table,
                                                               EncodedStream* withdraw) {
        FeedEncoder encoder(params, rw, &store);
        encoder.EncodeTable(*again, table);
        encoder.EncodeEndOfRib(table);
        encoder.EncodeWithdrawAll(*again, withdraw);
      });
    }
    if (!extra->empty()) {
      sessions.back()->SetExtra([rw, &store, extra](const SessionParams& params) {
        std::vector<std::vector<uint8_t>> messages;
        FeedEncoder encoder(params, rw, &store);
        for (const Route& r : *extra) {
          EncodedStream one;
          encoder.EncodeTable({r}, &one);
          if (!one.bytes.empty()) messages.push_back(std::move(one.bytes));
        }
        return messages;
      });
    }
  }

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
