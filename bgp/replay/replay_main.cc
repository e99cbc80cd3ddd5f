// sluice-replay: a BGP speaker that replays the routes of an MRT capture (or a synthetic table)
// to a peer — see Usage() below and bgp/replay/replay_session.h.
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
#include "bgp/replay/replay_session.h"
#include "net/log.h"
#include "net/version.h"

namespace sluice::bgp::replay {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

const char kUsage[] =
    R"(usage: sluice-replay (--connect ADDR[:PORT] | --listen ADDR[:PORT]) --local-as AS
                     (--mrt FILE | --synthetic N) [options]

Replays the routes of a peer of an MRT capture (or of every peer, each its own session) to a BGP
peer, as fast as TCP allows or at the capture's pace. Messages are encoded before the session
starts. Progress (prefixes/s) goes to stderr, the summary to stdout.

Session:
  --connect ADDR[:PORT]   open the session to ADDR (port 179 by default)
  --listen ADDR[:PORT]    wait for the peer(s) to connect instead
  --local-as AS|capture   our AS; "capture": each capture peer's own AS (with --all-peers)
  --peer-as AS            the peer's AS (checked against its OPEN; default: any)
  --router-id ID          BGP identifier (default: the local address, else 10.255.0.N)
  --local-address ADDR    source address to bind; with --all-peers the first of consecutive
                          addresses (default 127.0.0.2 with --all-peers)
  --hold-time SECONDS     hold time offered (default 90)
  --extended-messages     offer RFC 8654 extended messages
Routes:
  --mrt FILE              an MRT capture (.gz, .bz2 or plain): BGP4MP updates or a RIB dump
  --synthetic N           an Internet-like table of N IPv4 prefixes instead (--seed S)
  --receive-only          send no routes (only End-of-RIB): count what the peer sends, e.g.
                          as the downstream peer of a convergence run (with --wait-eor)
  --list-peers            list the capture's peers and exit
  --peer-index N          replay the N-th peer of the capture (as --list-peers numbers them)
  --peer ADDR             replay the capture peer with this address
  --all-peers             replay every peer of the capture, each in its own session
                          (default: the peer with the most announcements)
  --ipv4-only             offer IPv4 unicast only; with --all-peers and --list-peers, only the
                          capture peers with IPv4 routes
  --mode messages|table   the captured UPDATEs in order (default for update captures), or the
                          final table packed by attribute set (RIB dumps always)
  --pace [FACTOR]         send at the capture's pace (times FACTOR); messages mode
  --next-hop-self         NEXT_HOP = our local address (IPv6: the session's, or ::ffff:a.b.c.d)
  --next-hop ADDR         NEXT_HOP = ADDR;  --next-hop6 ADDR for IPv6 routes
  --prepend-own-as        prepend our AS to every AS_PATH (needed for eBGP with iBGP-style
                          captures such as PCH); towards eBGP peers LOCAL_PREF, ORIGINATOR_ID and
                          CLUSTER_LIST are always removed
  --withdraw-after SECONDS  after the table, wait, then withdraw every route
  --flap-every SECONDS    flap every route once per SECONDS: withdrawn half a period after the
                          table, announced again half a period later (route flap damping
                          tests); not with --pace
  --flaps N               stop flapping after N cycles, routes announced (default: never)
  --withdraw-on-signal    withdraw every route when SIGUSR1 arrives (after the table)
  --extra N               hold N routes back from the table (spread over it; table mode: a
                          synthetic table gets N more routes): after the table, each SIGUSR2
                          announces the next one, one route per UPDATE, in the same session
  --extra-every SECONDS   with --extra: announce the next one every SECONDS instead
  --path-variant K        with --prepend-own-as: prepend our AS (hash(prefix) + K) % 4 more
                          times, so 4 upstreams with K = 0..3 offer 4 distinct AS paths per
                          prefix, each upstream the best for about a quarter of the prefixes
Restarts:
  --graceful-restart [SECONDS]  advertise graceful restart (RFC 4724, restart time SECONDS,
                          default 120, at most 4095; N bit; F bit for the families we send).
                          With --receive-only, act as a helper: when the session drops without
                          a Hard Reset, keep the peer's routes (stale) and wait for it to come
                          back; its End-of-RIB per family (or its restart time) removes those
                          not announced again. The summary counts them ("stale swept")
  --reconnect             when the connection drops or the peer closes it, open it again
                          (back-off 0.2 s doubling to 2 s; listening: take the next connection)
                          and send the table again, ending with End-of-RIB; with
                          --graceful-restart our OPENs after the first set the R bit
  --drop-on-signal        on SIGHUP close the connection without a NOTIFICATION, as a crash
                          would (with --reconnect the session then opens again)
  --after-reconnect-drop K  after a reconnect leave out the first K routes of the table (a
                          graceful restart helper must sweep them); --mode table
  --after-reconnect-add N   hold N routes back from the first table and send them, with the
                          rest, after a reconnect (a synthetic table gets N more routes)
Monitor (with --receive-only):
  --expect N              with --json: print {"event":"held_all"} when we hold N prefixes, and
                          {"event":"held_none"} when we hold none again afterwards; with --json
                          a "progress" line every second gives the prefixes held
End:
  --wait-eor              stay until the peer's End-of-RIB has arrived
  --linger [SECONDS]      stay up after sending (until SIGINT/SIGTERM without SECONDS)
  --json                  summary (and a "sent" event per session) as JSON lines on stdout
  --quiet                 no progress lines
  --version               print the version and exit
)";

struct Options {
  std::optional<tcp::endpoint> connect, listen;
  std::optional<uint32_t> local_as;
  bool local_as_capture = false;
  uint32_t peer_as = 0;
  std::optional<net::IPv4Address> router_id;
  std::optional<asio::ip::address> local_address;
  uint16_t hold_time = 90;
  bool extended_messages = false;
  std::string mrt;
  uint64_t synthetic = 0, seed = 1;
  bool receive_only = false;
  bool list_peers = false, all_peers = false;
  std::optional<size_t> peer_index;
  std::optional<net::IPAddress> peer_address;
  std::string mode;
  std::optional<double> pace;
  bool next_hop_self = false;
  std::optional<net::IPv4Address> next_hop;
  std::optional<net::IPv6Address> next_hop6;
  bool prepend_own_as = false;
  double withdraw_after = -1;
  double flap_every = 0;
  uint64_t flaps = 0;
  bool withdraw_on_signal = false;
  uint64_t extra = 0;
  double extra_every = 0;
  int path_variant = -1;
  bool ipv4_only = false;
  uint64_t expect = 0;
  bool wait_eor = false;
  double linger = 0;
  bool json = false, quiet = false;
  std::optional<uint16_t> graceful_restart;
  bool reconnect = false, drop_on_signal = false;
  uint64_t after_reconnect_drop = 0, after_reconnect_add = 0;
};

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "sluice-replay: %s\n", message.c_str());
  std::exit(2);
}

tcp::endpoint ParseEndpoint(const std::string& text) {
  std::string host = text;
  uint32_t port = kBgpPort;
  const size_t colon = text.rfind(':');
  // ADDR:PORT for IPv4, [ADDR]:PORT for IPv6; a bare IPv6 address has several colons.
  if (!text.empty() && text[0] == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos) Die("bad address " + text);
    host = text.substr(1, close - 1);
    if (close + 1 < text.size() && text[close + 1] == ':') {
      if (!absl::SimpleAtoi(text.substr(close + 2), &port)) Die("bad port in " + text);
    }
  } else if (colon != std::string::npos && text.find(':') == colon) {
    host = text.substr(0, colon);
    if (!absl::SimpleAtoi(text.substr(colon + 1), &port) || port > 65535)
      Die("bad port in " + text);
  }
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(host, ec);
  if (ec) Die("bad address " + text);
  return tcp::endpoint(addr, uint16_t(port));
}

template <typename T>
T ParseNumber(const std::string& text, const char* what) {
  if constexpr (std::is_floating_point_v<T>) {
    double v;
    if (!absl::SimpleAtod(text, &v)) Die(absl::StrCat("bad ", what, ": ", text));
    return T(v);
  } else {
    uint64_t v;
    if (!absl::SimpleAtoi(text, &v) || v > std::numeric_limits<T>::max()) {
      Die(absl::StrCat("bad ", what, ": ", text));
    }
    return T(v);
  }
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i], value;
    const size_t eq = a.find('=');
    bool has_inline = false;
    if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
      has_inline = true;
    }
    auto next = [&]() -> std::string {
      if (has_inline) return value;
      if (i + 1 >= args.size()) Die(a + " needs a value");
      return args[++i];
    };
    // An optional value: inline, or the next argument when it does not start with "--".
    auto optional_next = [&]() -> std::optional<std::string> {
      if (has_inline) return value;
      if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) return args[++i];
      return std::nullopt;
    };
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (a == "--version") {
      net::PrintVersion("sluice-replay");
      std::exit(0);
    } else if (a == "--connect") {
      o.connect = ParseEndpoint(next());
    } else if (a == "--listen") {
      o.listen = ParseEndpoint(next());
    } else if (a == "--local-as") {
      const std::string v = next();
      if (v == "capture") {
        o.local_as_capture = true;
      } else {
        o.local_as = ParseNumber<uint32_t>(v, "AS");
      }
    } else if (a == "--peer-as") {
      o.peer_as = ParseNumber<uint32_t>(next(), "AS");
    } else if (a == "--router-id") {
      auto id = net::IPv4Address::Parse(next());
      if (!id.ok()) Die(std::string(id.status().message()));
      o.router_id = *id;
    } else if (a == "--local-address") {
      boost::system::error_code ec;
      o.local_address = asio::ip::make_address(next(), ec);
      if (ec) Die("bad --local-address");
    } else if (a == "--hold-time") {
      o.hold_time = ParseNumber<uint16_t>(next(), "hold time");
      if (o.hold_time == 1 || o.hold_time == 2) Die("hold time must be 0 or at least 3 seconds");
    } else if (a == "--extended-messages") {
      o.extended_messages = true;
    } else if (a == "--mrt") {
      o.mrt = next();
    } else if (a == "--synthetic") {
      o.synthetic = ParseNumber<uint64_t>(next(), "prefix count");
    } else if (a == "--receive-only") {
      o.receive_only = true;
    } else if (a == "--seed") {
      o.seed = ParseNumber<uint64_t>(next(), "seed");
    } else if (a == "--list-peers") {
      o.list_peers = true;
    } else if (a == "--peer-index") {
      o.peer_index = ParseNumber<size_t>(next(), "peer index");
    } else if (a == "--peer") {
      auto p = net::IPAddress::Parse(next());
      if (!p.ok()) Die(std::string(p.status().message()));
      o.peer_address = *p;
    } else if (a == "--all-peers") {
      o.all_peers = true;
    } else if (a == "--mode") {
      o.mode = next();
      if (o.mode != "messages" && o.mode != "table") Die("--mode is messages or table");
    } else if (a == "--pace") {
      auto v = optional_next();
      o.pace = v ? ParseNumber<double>(*v, "pace factor") : 1.0;
      if (*o.pace <= 0) Die("--pace factor must be positive");
    } else if (a == "--next-hop-self") {
      o.next_hop_self = true;
    } else if (a == "--next-hop") {
      auto nh = net::IPv4Address::Parse(next());
      if (!nh.ok()) Die(std::string(nh.status().message()));
      o.next_hop = *nh;
    } else if (a == "--next-hop6") {
      auto nh = net::IPv6Address::Parse(next());
      if (!nh.ok()) Die(std::string(nh.status().message()));
      o.next_hop6 = *nh;
    } else if (a == "--prepend-own-as") {
      o.prepend_own_as = true;
    } else if (a == "--withdraw-after") {
      o.withdraw_after = ParseNumber<double>(next(), "seconds");
    } else if (a == "--flap-every") {
      o.flap_every = ParseNumber<double>(next(), "seconds");
      if (o.flap_every <= 0) Die("--flap-every wants a positive number of seconds");
    } else if (a == "--flaps") {
      o.flaps = ParseNumber<uint64_t>(next(), "flaps");
    } else if (a == "--ipv4-only") {
      o.ipv4_only = true;
    } else if (a == "--withdraw-on-signal") {
      o.withdraw_on_signal = true;
    } else if (a == "--extra") {
      o.extra = ParseNumber<uint64_t>(next(), "route count");
    } else if (a == "--extra-every") {
      o.extra_every = ParseNumber<double>(next(), "seconds");
      if (o.extra_every <= 0) Die("--extra-every wants a positive number of seconds");
    } else if (a == "--path-variant") {
      o.path_variant = ParseNumber<uint16_t>(next(), "path variant");
    } else if (a == "--expect") {
      o.expect = ParseNumber<uint64_t>(next(), "prefix count");
    } else if (a == "--wait-eor") {
      o.wait_eor = true;
    } else if (a == "--linger") {
      auto v = optional_next();
      o.linger = v ? ParseNumber<double>(*v, "seconds") : -1;
    } else if (a == "--graceful-restart") {
      auto v = optional_next();
      o.graceful_restart = v ? ParseNumber<uint16_t>(*v, "restart time") : 120;
      if (*o.graceful_restart > kGrMaxRestartTime) Die("--graceful-restart: at most 4095 seconds");
    } else if (a == "--reconnect") {
      o.reconnect = true;
    } else if (a == "--drop-on-signal") {
      o.drop_on_signal = true;
    } else if (a == "--after-reconnect-drop") {
      o.after_reconnect_drop = ParseNumber<uint64_t>(next(), "route count");
    } else if (a == "--after-reconnect-add") {
      o.after_reconnect_add = ParseNumber<uint64_t>(next(), "route count");
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--quiet") {
      o.quiet = true;
    } else {
      Die("unknown option " + a + " (see --help)");
    }
  }
  if (!o.list_peers) {
    if (!o.connect == !o.listen) Die("give exactly one of --connect and --listen (see --help)");
    if (!o.local_as && !o.local_as_capture) Die("--local-as is required");
  }
  if (int(!o.mrt.empty()) + int(o.synthetic > 0) + int(o.receive_only) != 1) {
    Die("give exactly one of --mrt, --synthetic and --receive-only");
  }
  if (o.next_hop_self && o.next_hop) Die("--next-hop-self and --next-hop exclude each other");
  if (o.flap_every > 0 && o.pace) Die("--flap-every cannot be used with --pace");
  if (o.path_variant >= 0 && !o.prepend_own_as) Die("--path-variant needs --prepend-own-as");
  if (o.expect > 0 && !o.receive_only) Die("--expect is for --receive-only monitors");
  if (o.extra_every > 0 && o.extra == 0) Die("--extra-every needs --extra");
  if (o.extra > 0 && (o.receive_only || o.all_peers)) Die("--extra is for one sending session");
  if ((o.after_reconnect_drop > 0 || o.after_reconnect_add > 0) && !o.reconnect) {
    Die("--after-reconnect-drop and --after-reconnect-add need --reconnect");
  }
  if (o.withdraw_on_signal && o.withdraw_after < 0) o.withdraw_after = 1e7;  // only the signal
  return o;
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

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppendFormat(&out, "\\u%04x", c);
    } else {
      out += c;
    }
  }
  return out;
}

std::string SessionJson(const ReplaySession& s) {
  const SessionStats& st = s.stats();
  const double rate = st.table_seconds > 0 ? double(st.prefixes_sent) / st.table_seconds : 0;
  return absl::StrFormat(
      "{\"peer\":\"%s\",\"state\":\"%s\",\"error\":\"%s\",\"messages_sent\":%d,"
      "\"prefixes_sent\":%d,\"withdrawals_sent\":%d,\"skipped\":%d,\"table_seconds\":%.6f,"
      "\"prefixes_per_second\":%.0f,\"withdraw_seconds\":%.6f,\"updates_received\":%d,"
      "\"prefixes_received\":%d,\"withdrawals_received\":%d,\"end_of_rib_received\":%s,"
      "\"first_update_received\":%.6f,\"last_update_received\":%.6f,"
      "\"notification_received\":\"%s\",\"notification_sent\":\"%s\",\"peer_open\":\"%s\","
      "\"prefixes_held\":%d,\"held_changed_mono\":%.6f,\"table_started_mono\":%.6f,"
      "\"withdraw_started_mono\":%.6f,\"connections\":%d,\"drops\":%d,\"last_drop\":\"%s\","
      "\"stale_kept\":%d,\"stale_swept\":%d,\"flushed\":%d}",
      JsonEscape(s.options().name), st.state, JsonEscape(st.error), st.messages_sent,
      st.prefixes_sent, st.withdrawals_sent, st.skipped, st.table_seconds, rate,
      st.withdraw_seconds, st.updates_received, st.prefixes_received, st.withdrawals_received,
      st.end_of_rib_received ? "true" : "false", st.first_update_received, st.last_update_received,
      st.notification_received ? JsonEscape(st.notification_received->ToString()) : "",
      st.notification_sent ? JsonEscape(st.notification_sent->ToString()) : "",
      JsonEscape(st.negotiated), st.prefixes_held, st.held_changed_mono, st.table_started_mono,
      st.withdraw_started_mono, st.connections, st.drops, JsonEscape(st.last_drop), st.stale_kept,
      st.stale_swept, st.flushed);
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
  std::optional<asio::ip::address> base = o.local_address;
  if (!base && o.all_peers && remote.address().is_loopback()) {
    base = remote.address().is_v4() ? asio::ip::address(asio::ip::make_address_v4("127.0.0.2"))
                                    : asio::ip::address(asio::ip::address_v6::loopback());
  }
  if (!base && o.listen && !o.listen->address().is_unspecified()) base = o.listen->address();

  std::vector<std::unique_ptr<ReplaySession>> sessions;
  for (size_t i = 0; i < chosen.size(); ++i) {
    const PeerFeed& feed = *chosen[i];
    SessionOptions so;
    so.name = feed.Name();
    so.remote = remote;
    if (base && o.connect) so.local = o.all_peers ? Offset(*base, i) : *base;
    so.local_as = o.local_as_capture ? feed.as : *o.local_as;
    so.peer_as = o.peer_as;
    std::optional<asio::ip::address> local = so.local;
    if (!local && o.listen) local = base;
    if (!local && o.connect && o.next_hop_self) local = SourceAddressFor(io, remote);
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
        std::fprintf(stderr,
                     "sluice-replay: %llu prefixes sent (%llu/s), %d of %zu sessions established\n",
                     (unsigned long long)total, (unsigned long long)(total - last_progress),
                     established, sessions.size());
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

  // Summary.
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  uint64_t prefixes = 0;
  bool ok = true;
  for (const auto& s : sessions) {
    prefixes += s->stats().prefixes_sent;
    const std::string& err = s->stats().error;
    if ((!err.empty() && err != "stopped by signal") || s->stats().table_seconds < 0) ok = false;
  }
  if (o.json) {
    std::string list;
    for (const auto& s : sessions) absl::StrAppend(&list, list.empty() ? "" : ",", SessionJson(*s));
    std::printf(
        "{\"event\":\"summary\",\"ok\":%s,\"sessions\":[%s],\"prefixes_sent\":%llu,\"seconds\":%."
        "3f}\n",
        ok ? "true" : "false", list.c_str(), (unsigned long long)prefixes, seconds);
  } else {
    for (const auto& s : sessions) {
      const SessionStats& st = s->stats();
      std::printf(
          "%s: %s; %llu prefixes and %llu withdrawals in %llu UPDATEs; table in %.3f s (%.0f "
          "prefixes/s)%s%s\n",
          s->options().name.c_str(), st.error.empty() ? "ok" : st.error.c_str(),
          (unsigned long long)st.prefixes_sent, (unsigned long long)st.withdrawals_sent,
          (unsigned long long)st.messages_sent, st.table_seconds,
          st.table_seconds > 0 ? double(st.prefixes_sent) / st.table_seconds : 0.0,
          st.skipped ? absl::StrFormat("; %d NLRI not sendable", st.skipped).c_str() : "",
          st.end_of_rib_received ? "; End-of-RIB received" : "");
      if (st.updates_received > 0) {
        std::printf(
            "  received %llu prefixes and %llu withdrawals in %llu UPDATEs, from %.3f s to %.3f s "
            "after Established\n",
            (unsigned long long)st.prefixes_received, (unsigned long long)st.withdrawals_received,
            (unsigned long long)st.updates_received, st.first_update_received,
            st.last_update_received);
      }
      if (st.drops > 0 || o.graceful_restart) {
        std::printf("  %llu connections, %llu drops", (unsigned long long)st.connections,
                    (unsigned long long)st.drops);
        if (o.receive_only) {
          std::printf("; %llu prefixes held; %llu kept stale, %llu stale swept, %llu flushed",
                      (unsigned long long)st.prefixes_held, (unsigned long long)st.stale_kept,
                      (unsigned long long)st.stale_swept, (unsigned long long)st.flushed);
        }
        std::printf("\n");
      }
    }
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace sluice::bgp::replay

int main(int argc, char** argv) {
  sluice::net::SetLogTag("replay");
  std::signal(SIGPIPE, SIG_IGN);
  return sluice::bgp::replay::Run(sluice::bgp::replay::ParseOptions(argc, argv));
}
