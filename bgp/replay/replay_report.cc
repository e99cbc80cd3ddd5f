// sluice-replay's summary on stdout: one JSON line with --json, else a line or three per session
// (see replay_run.h).

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bgp/replay/replay_run.h"

namespace sluice::bgp::replay {
namespace {

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

// The plain-text summary of one session: what it sent, what it received, its connections.
void PrintSessionText(const Options& o, const ReplaySession& s) {
  const SessionStats& st = s.stats();
  std::printf(
      "%s: %s; %llu prefixes and %llu withdrawals in %llu UPDATEs; table in %.3f s (%.0f "
      "prefixes/s)%s%s\n",
      s.options().name.c_str(), st.error.empty() ? "ok" : st.error.c_str(),
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
        (unsigned long long)st.updates_received, st.first_update_received, st.last_update_received);
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

}  // namespace

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

bool PrintSummary(const Options& o, const Sessions& sessions, double seconds) {
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
    for (const auto& s : sessions) PrintSessionText(o, *s);
  }
  return ok;
}

}  // namespace sluice::bgp::replay
