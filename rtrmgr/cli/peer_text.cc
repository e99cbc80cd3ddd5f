// The text of `sluice show bgp peers` and `show bgp neighbor`: a peer's problems, its graceful
// restart, uptime, and the detail block.

#include "rtrmgr/cli/peer_text.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/json_view.h"
#include "rtrmgr/cli/show.h"

namespace sluice::rtrmgr::cli {

// The line under a peer's row about what its input cost: RFC 7606 outcomes and session resets by
// cause ("" when there is nothing to say).
std::string InputProblems(const bgp::v1::PeerInfo& p) {
  std::vector<std::string> parts;
  if (p.updates_treat_as_withdraw() + p.updates_attribute_discard() + p.afi_safi_disables() > 0) {
    std::string s = absl::StrFormat(
        "rfc7606 treat-as-withdraw %u, attribute-discard %u, "
        "afi-safi-disable %u",
        p.updates_treat_as_withdraw(), p.updates_attribute_discard(), p.afi_safi_disables());
    if (p.disabled_families_size() > 0) {
      absl::StrAppend(&s, " (disabled now: ", absl::StrJoin(p.disabled_families(), " "), ")");
    }
    parts.push_back(s);
  }
  if (!p.session_resets().empty()) {
    std::map<std::string, uint64_t> sorted(p.session_resets().begin(), p.session_resets().end());
    parts.push_back("session resets " + absl::StrJoin(sorted, ", ", absl::PairFormatter(" ")));
  }
  return absl::StrJoin(parts, "; ");
}

namespace {

// One side's Graceful Restart capability: "restart-time 120 R N F(ipv4 ipv6)"; "none".
std::string GracefulText(bool has, const bgp::v1::GracefulRestartInfo& g) {
  if (!has) return "none";
  std::string s = absl::StrCat("restart-time ", g.restart_time());
  if (g.restart_state()) s += " R";
  if (g.notification()) s += " N";
  if (g.forwarding_preserved_size() > 0) {
    absl::StrAppend(&s, " F(", absl::StrJoin(g.forwarding_preserved(), " "), ")");
  }
  return s;
}

}  // namespace

// Graceful restart (RFC 4724, RFC 8538): what each side offered on the current or last session,
// and the stale routes kept while the peer restarts.
std::string GracefulRestartLine(const bgp::v1::PeerInfo& p) {
  if (!p.graceful_restart_configured()) return "graceful restart disabled";
  std::string s = absl::StrCat(
      "graceful restart: sent ",
      GracefulText(p.has_graceful_restart_sent(), p.graceful_restart_sent()), "; received ",
      GracefulText(p.has_graceful_restart_received(), p.graceful_restart_received()));
  if (!p.graceful_helper().empty()) {
    uint64_t stale = 0;
    for (const bgp::v1::PeerFamily& f : p.family_counts()) stale += f.stale();
    absl::StrAppendFormat(
        &s, "; stale, %u routes, %.0f s left (%s)", stale, p.graceful_seconds_left(),
        p.graceful_helper() == "restart" ? "peer restarting" : "waiting for End-of-RIB");
  }
  return s;
}

// "1d02h03m" past a day, else "02:03:04"; "never" when 0.
std::string Uptime(double seconds) {
  if (seconds <= 0) return "never";
  const uint64_t s = static_cast<uint64_t>(seconds);
  if (s >= 86400) return absl::StrFormat("%ud%02uh%02um", s / 86400, s / 3600 % 24, s / 60 % 60);
  return absl::StrFormat("%02u:%02u:%02u", s / 3600, s / 60 % 60, s % 60);
}
void PrintNeighbor(const bgp::v1::PeerInfo& p, std::ostream& out) {
  out << "BGP neighbor " << Text(p.address()) << ", remote AS " << p.remote_as() << ", "
      << (p.internal() ? "internal" : "external") << " link"
      << (p.description().empty() ? "" : ", \"" + p.description() + "\"") << "\n";
  out << "  state " << PeerStateText(p) << ", up " << Uptime(p.uptime_s()) << ", "
      << p.established_transitions() << " times established\n";
  out << absl::StrFormat("  local %s port %u, remote port %u, remote router ID %s\n",
                         Text(p.local_address()), p.local_port(), p.remote_port(),
                         ipc::FromProto(p.remote_bgp_id()).ToString());
  out << absl::StrFormat("  hold time %u s (configured %u), keepalive %u s\n", p.hold_time(),
                         p.hold_time_configured(), p.keepalive_time());
  out << "  families " << absl::StrJoin(p.families(), " ") << "; capabilities"
      << (p.four_octet_as() ? " four-octet-as" : "") << (p.route_refresh() ? " route-refresh" : "")
      << "\n";
  out << absl::StrFormat(
      "  messages in %u out %u; updates %u/%u; keepalives %u/%u; notifications %u/%u; "
      "route-refresh %u/%u\n",
      p.messages_in(), p.messages_out(), p.updates_in(), p.updates_out(), p.keepalives_in(),
      p.keepalives_out(), p.notifications_in(), p.notifications_out(), p.route_refreshes_in(),
      p.route_refreshes_out());
  for (const bgp::v1::PeerFamily& f : p.family_counts()) {
    out << absl::StrFormat("  %s %s: received %u, accepted %u, advertised %u%s\n", f.family(),
                           f.up() ? "up" : "down", f.received(), f.accepted(), f.advertised(),
                           f.stale() > 0 ? absl::StrCat(", stale ", f.stale()) : "");
  }
  if (!p.last_error().empty()) out << "  last error: " << p.last_error() << "\n";
  if (std::string problems = InputProblems(p); !problems.empty()) {
    out << "  " << problems << "\n";
  }
  out << "  " << GracefulRestartLine(p) << "\n";
}

}  // namespace sluice::rtrmgr::cli
