#include "bgp/replay/replay_options.h"

#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "base/program_options.h"
#include "bgp/wire/constants.h"
#include "bgp/wire/open_message.h"

namespace sluice::bgp::replay {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

constexpr char kDescription[] =
    "sluice-replay: a BGP speaker that replays routes to a BGP peer.\n\n"
    "  sluice-replay (--connect ADDR[:PORT] | --listen ADDR[:PORT]) --local-as AS\n"
    "                (--mrt FILE | --synthetic N | --receive-only) [options]\n"
    "  sluice-replay --list-peers --mrt FILE\n\n"
    "Replays the routes of a peer of an MRT capture (or of every peer, each its own session) to "
    "a BGP peer, as fast as TCP allows or at the capture's pace. Messages are encoded before the "
    "session starts. Progress (prefixes/s) goes to stderr, the summary to stdout.";

// ADDR:PORT for IPv4, [ADDR]:PORT for IPv6, or a bare address (port 179).
absl::StatusOr<tcp::endpoint> ParseEndpoint(const std::string& text) {
  std::string host = text;
  uint32_t port = kBgpPort;
  const size_t colon = text.rfind(':');
  // A bare IPv6 address has several colons.
  if (!text.empty() && text[0] == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos) return absl::InvalidArgumentError("bad address " + text);
    host = text.substr(1, close - 1);
    if (close + 1 < text.size() && text[close + 1] == ':') {
      if (!absl::SimpleAtoi(text.substr(close + 2), &port) || port > 65535) {
        return absl::InvalidArgumentError("bad port in " + text);
      }
    }
  } else if (colon != std::string::npos && text.find(':') == colon) {
    host = text.substr(0, colon);
    if (!absl::SimpleAtoi(text.substr(colon + 1), &port) || port > 65535) {
      return absl::InvalidArgumentError("bad port in " + text);
    }
  }
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(host, ec);
  if (ec) return absl::InvalidArgumentError("bad address " + text);
  return tcp::endpoint(addr, uint16_t(port));
}

// An option whose value is an endpoint (--connect, --listen).
CLI::Option* AddEndpoint(CLI::App& app, const std::string& name, std::optional<tcp::endpoint>* out,
                         const std::string& description) {
  return base::AddParsedOption(
      app, name,
      [out](const std::string& v) {
        absl::StatusOr<tcp::endpoint> endpoint = ParseEndpoint(v);
        if (!endpoint.ok()) return endpoint.status();
        *out = *endpoint;
        return absl::OkStatus();
      },
      description);
}

// An option whose value T::Parse (an address type of net/ip_address.h) accepts.
template <typename T, typename Out>
CLI::Option* AddAddress(CLI::App& app, const std::string& name, Out* out,
                        const std::string& description) {
  return base::AddParsedOption(
      app, name,
      [out](const std::string& v) {
        absl::StatusOr<T> address = T::Parse(v);
        if (!address.ok()) return address.status();
        *out = *address;
        return absl::OkStatus();
      },
      description);
}

void AddSessionOptions(CLI::App& app, Options* o) {
  AddEndpoint(app, "--connect", &o->connect, "ADDR[:PORT]: open the session to ADDR (port 179)");
  AddEndpoint(app, "--listen", &o->listen, "ADDR[:PORT]: wait for the peer(s) to connect instead");
  base::AddParsedOption(
      app, "--local-as",
      [o](const std::string& v) {
        uint32_t as = 0;
        if (v == "capture") {
          o->local_as_capture = true;
        } else if (absl::SimpleAtoi(v, &as)) {
          o->local_as = as;
        } else {
          return absl::InvalidArgumentError(v + ": want an AS number or capture");
        }
        return absl::OkStatus();
      },
      "AS|capture: our AS; capture: each capture peer's own AS (with --all-peers)");
  app.add_option("--peer-as", o->peer_as, "the peer's AS (checked against its OPEN; 0: any)");
  AddAddress<net::IPv4Address>(app, "--router-id", &o->router_id,
                               "BGP identifier (default: the local address, else 10.255.0.N)");
  base::AddParsedOption(
      app, "--local-address",
      [o](const std::string& v) {
        boost::system::error_code ec;
        o->local_address = asio::ip::make_address(v, ec);
        if (ec) return absl::InvalidArgumentError("bad address " + v);
        return absl::OkStatus();
      },
      "ADDR: source address to bind; with --all-peers the first of consecutive addresses "
      "(default 127.0.0.2 with --all-peers)");
  app.add_option("--hold-time", o->hold_time, "hold time offered (seconds; 0 or at least 3)");
  app.add_flag("--extended-messages", o->extended_messages, "offer RFC 8654 extended messages");
  for (const char* name : {"--connect", "--listen", "--local-as", "--peer-as", "--router-id",
                           "--local-address", "--hold-time", "--extended-messages"}) {
    app.get_option(name)->group("Session");
  }
}

void AddRouteOptions(CLI::App& app, Options* o) {
  const std::string g = "Routes";
  app.add_option("--mrt", o->mrt,
                 "an MRT capture (.gz, .bz2 or plain): BGP4MP updates or a RIB "
                 "dump")
      ->group(g);
  app.add_option("--synthetic", o->synthetic,
                 "an Internet-like table of N IPv4 prefixes instead (--seed S)")
      ->group(g);
  app.add_option("--seed", o->seed, "the synthetic table's random seed")->group(g);
  app.add_flag("--receive-only", o->receive_only,
               "send no routes (only End-of-RIB): count what the peer sends, e.g. as the "
               "downstream peer of a convergence run (with --wait-eor)")
      ->group(g);
  app.add_flag("--list-peers", o->list_peers, "list the capture's peers and exit")->group(g);
  app.add_option_function<size_t>(
         "--peer-index", [o](const size_t& n) { o->peer_index = n; },
         "replay the N-th peer of the capture (as --list-peers numbers them)")
      ->group(g);
  AddAddress<net::IPAddress>(app, "--peer", &o->peer_address,
                             "replay the capture peer with this address")
      ->group(g);
  app.add_flag("--all-peers", o->all_peers,
               "replay every peer of the capture, each in its own session (default: the peer "
               "with the most announcements)")
      ->group(g);
  app.add_flag("--ipv4-only", o->ipv4_only,
               "offer IPv4 unicast only; with --all-peers and --list-peers, only the capture "
               "peers with IPv4 routes")
      ->group(g);
  app.add_option("--mode", o->mode,
                 "messages: the captured UPDATEs in order (default for update captures); table: "
                 "the final table packed by attribute set (RIB dumps always)")
      ->check(CLI::IsMember({"messages", "table"}))
      ->group(g);
  app.add_option_function<double>(
         "--pace", [o](const double& f) { o->pace = f; },
         "[FACTOR]: send at the capture's pace (times FACTOR, default 1); messages mode")
      ->expected(0, 1)
      ->default_str("1")
      ->check(CLI::PositiveNumber)
      ->group(g);
  app.add_flag("--next-hop-self", o->next_hop_self,
               "NEXT_HOP = our local address (IPv6: the session's, or ::ffff:a.b.c.d)")
      ->group(g);
  AddAddress<net::IPv4Address>(app, "--next-hop", &o->next_hop, "NEXT_HOP = ADDR")->group(g);
  AddAddress<net::IPv6Address>(app, "--next-hop6", &o->next_hop6, "NEXT_HOP = ADDR for IPv6 routes")
      ->group(g);
  app.add_flag("--prepend-own-as", o->prepend_own_as,
               "prepend our AS to every AS_PATH (needed for eBGP with iBGP-style captures such "
               "as PCH); towards eBGP peers LOCAL_PREF, ORIGINATOR_ID and CLUSTER_LIST are "
               "always removed")
      ->group(g);
}

void AddChangeOptions(CLI::App& app, Options* o) {
  const std::string g = "Routes";
  app.add_option("--withdraw-after", o->withdraw_after,
                 "SECONDS: after the table, wait, then withdraw every route")
      ->default_str("")
      ->group(g);
  app.add_option("--flap-every", o->flap_every,
                 "SECONDS: flap every route once per SECONDS, withdrawn half a period after the "
                 "table, announced again half a period later; not with --pace")
      ->check(CLI::PositiveNumber)
      ->group(g);
  app.add_option("--flaps", o->flaps, "stop flapping after N cycles, routes announced (0: never)")
      ->group(g);
  app.add_flag("--withdraw-on-signal", o->withdraw_on_signal,
               "withdraw every route when SIGUSR1 arrives (after the table)")
      ->group(g);
  app.add_option("--extra", o->extra,
                 "hold N routes back from the table (table mode; a synthetic table gets N more "
                 "routes): after the table, each SIGUSR2 announces the next one, one route per "
                 "UPDATE")
      ->group(g);
  app.add_option("--extra-every", o->extra_every,
                 "SECONDS: with --extra, announce the next one every SECONDS instead")
      ->check(CLI::PositiveNumber)
      ->group(g);
  app.add_option_function<uint16_t>(
         "--path-variant", [o](const uint16_t& k) { o->path_variant = k; },
         "K: with --prepend-own-as, prepend our AS (hash(prefix) + K) % 4 more times, so 4 "
         "upstreams with K = 0..3 offer 4 distinct AS paths per prefix")
      ->group(g);
}

void AddRestartOptions(CLI::App& app, Options* o) {
  const std::string g = "Restarts";
  app.add_option_function<uint16_t>(
         "--graceful-restart", [o](const uint16_t& t) { o->graceful_restart = t; },
         "[SECONDS]: advertise graceful restart (RFC 4724, restart time SECONDS, default 120; "
         "N bit; F bit for the families we send). With --receive-only, act as a helper: keep "
         "the peer's routes (stale) when the session drops without a Hard Reset")
      ->expected(0, 1)
      ->default_str("120")
      ->check(CLI::Range(0, int{kGrMaxRestartTime}))
      ->group(g);
  app.add_flag("--reconnect", o->reconnect,
               "when the connection drops or the peer closes it, open it again (back-off 0.2 s "
               "doubling to 2 s; listening: take the next connection) and send the table again, "
               "ending with End-of-RIB; with --graceful-restart our OPENs after the first set "
               "the R bit")
      ->group(g);
  app.add_flag("--drop-on-signal", o->drop_on_signal,
               "on SIGHUP close the connection without a NOTIFICATION, as a crash would")
      ->group(g);
  app.add_option("--after-reconnect-drop", o->after_reconnect_drop,
                 "K: after a reconnect leave out the first K routes of the table; --mode table")
      ->group(g);
  app.add_option("--after-reconnect-add", o->after_reconnect_add,
                 "N: hold N routes back from the first table and send them, with the rest, "
                 "after a reconnect")
      ->group(g);
}

void AddEndOptions(CLI::App& app, Options* o) {
  app.add_option("--expect", o->expect,
                 "N: with --receive-only and --json, print {\"event\":\"held_all\"} when we hold "
                 "N prefixes and {\"event\":\"held_none\"} when we hold none again afterwards")
      ->group("Monitor");
  const std::string g = "End";
  app.add_flag("--wait-eor", o->wait_eor, "stay until the peer's End-of-RIB has arrived")->group(g);
  app.add_option("--linger", o->linger,
                 "[SECONDS]: stay up after sending (until SIGINT/SIGTERM without SECONDS)")
      ->expected(0, 1)
      ->default_str("-1")
      ->group(g);
  app.add_flag("--json", o->json,
               "summary (and a \"sent\" event per session) as JSON lines on stdout")
      ->group(g);
  app.add_flag("--quiet", o->quiet, "no progress lines")->group(g);
}

// The checks across options; an empty string when they hold.
std::string CheckCombination(const Options& o) {
  if (!o.list_peers) {
    if (!o.connect == !o.listen) return "give exactly one of --connect and --listen";
    if (!o.local_as && !o.local_as_capture) return "--local-as is required";
  }
  if (int(!o.mrt.empty()) + int(o.synthetic > 0) + int(o.receive_only) != 1) {
    return "give exactly one of --mrt, --synthetic and --receive-only";
  }
  if (o.hold_time == 1 || o.hold_time == 2) return "--hold-time: 0 or at least 3 seconds";
  if (o.next_hop_self && o.next_hop) return "--next-hop-self and --next-hop exclude each other";
  if (o.flap_every > 0 && o.pace) return "--flap-every cannot be used with --pace";
  if (o.path_variant >= 0 && !o.prepend_own_as) return "--path-variant needs --prepend-own-as";
  if (o.expect > 0 && !o.receive_only) return "--expect is for --receive-only monitors";
  if (o.extra_every > 0 && o.extra == 0) return "--extra-every needs --extra";
  if (o.extra > 0 && (o.receive_only || o.all_peers)) return "--extra is for one sending session";
  if ((o.after_reconnect_drop > 0 || o.after_reconnect_add > 0) && !o.reconnect) {
    return "--after-reconnect-drop and --after-reconnect-add need --reconnect";
  }
  return "";
}

}  // namespace

std::optional<int> ParseOptions(int argc, char** argv, Options* o) {
  base::ProgramOptions options("sluice-replay", kDescription);
  CLI::App& app = options.app();
  AddSessionOptions(app, o);
  AddRouteOptions(app, o);
  AddChangeOptions(app, o);
  AddRestartOptions(app, o);
  AddEndOptions(app, o);
  if (std::optional<int> exit = options.Parse(argc, argv)) return exit;
  if (std::string error = CheckCombination(*o); !error.empty()) return options.Fail(error);
  if (o->withdraw_on_signal && o->withdraw_after < 0) o->withdraw_after = 1e7;  // only the signal
  return std::nullopt;
}

}  // namespace sluice::bgp::replay
