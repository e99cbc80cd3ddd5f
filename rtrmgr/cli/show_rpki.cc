// sluice show rpki [ vrps [ PREFIX ] ]: sluice-rpki's caches, sessions and VRP counts
// (rpki/1.0 get_status), and its VRP union, or the VRPs covering a prefix (list_vrps, every
// page).

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ipc/methods/rpki.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/json_view.h"
#include "rtrmgr/cli/queries.h"
#include "rtrmgr/cli/show.h"

namespace sluice::rtrmgr::cli {
namespace {

constexpr char kRpkiTarget[] = "rpki";

Json CacheJson(const rpki::v1::CacheStatus& c) {
  return Json{
      {"address", AddressJson(c.address())},
      {"port", c.port()},
      {"preference", c.preference()},
      {"state", c.state()},
      {"connected", c.connected()},
      {"version", c.version()},
      {"session_id", c.has_session() ? Json(c.session_id()) : Json(nullptr)},
      {"serial", c.has_session() ? Json(c.serial()) : Json(nullptr)},
      {"refresh_s", c.refresh()},
      {"retry_s", c.retry()},
      {"expire_s", c.expire()},
      {"since_sync_s", c.seconds_since_sync() < 0 ? Json(nullptr) : Json(c.seconds_since_sync())},
      {"vrps", c.vrps()},
      {"connects", c.connects()},
      {"expiries", c.expiries()},
      {"last_error", c.last_error()}};
}

void PrintCaches(const rpki::v1::GetStatusReply& s, std::ostream& out) {
  out << absl::StrFormat("%-24s %5s %4s %-12s %3s %10s %10s %8s  %s\n", "cache", "port", "pref",
                         "state", "ver", "session", "serial", "vrps", "last error");
  for (const rpki::v1::CacheStatus& c : s.caches()) {
    out << absl::StrFormat("%-24s %5u %4u %-12s %3s %10s %10s %8u  %s\n", Text(c.address()),
                           c.port(), c.preference(), c.state(),
                           c.connected() ? absl::StrCat(c.version()) : "-",
                           c.has_session() ? absl::StrCat(c.session_id()) : "-",
                           c.has_session() ? absl::StrCat(c.serial()) : "-", c.vrps(),
                           c.last_error().empty() ? "-" : c.last_error());
  }
}

// The failure, or that there is no sluice-rpki (the configuration has no rpki block).
int RpkiFail(Context& c, const std::string& what, const absl::Status& s) {
  if (absl::IsNotFound(s) && s.message().find("no such target") != std::string_view::npos) {
    *c.err << "sluice show " << what
           << ": sluice-rpki is not running (the configuration has no rpki block)\n";
    return kFailed;
  }
  return Fail(c, what, s);
}

}  // namespace

int ShowRpki(Context& c, bool json) {
  SyncClient client(c.finder_address, c.timeout_ms);
  auto s = client.Call(kRpkiTarget, ipc::methods::rpki::kGetStatus, rpki::v1::GetStatusRequest());
  if (!s.ok()) return RpkiFail(c, "rpki", s.status());
  const uint64_t total = s->vrps_ipv4() + s->vrps_ipv6();
  if (json) {
    Json caches = Json::array();
    for (const rpki::v1::CacheStatus& cache : s->caches()) caches.push_back(CacheJson(cache));
    *c.out << Print(Json{
                  {"caches", caches},
                  {"vrps", {{"ipv4", s->vrps_ipv4()}, {"ipv6", s->vrps_ipv6()}, {"total", total}}},
                  {"subscribers", s->subscribers()},
                  {"subscriber_redumps", s->subscriber_redumps()}})
           << "\n";
    return kOk;
  }
  PrintCaches(*s, *c.out);
  *c.out << "VRPs: " << total << " (IPv4 " << s->vrps_ipv4() << ", IPv6 " << s->vrps_ipv6() << ")\n"
         << "subscribers: " << s->subscribers() << " (whole set sent again "
         << s->subscriber_redumps() << " times after a failed call)\n";
  return kOk;
}

int ShowRpkiVrps(const Args& args, Context& c, bool json) {
  constexpr char kForm[] = "show rpki vrps [ PREFIX ] [ --json ]";
  if (args.size() > 1) return UsageError(c, kForm);
  rpki::v1::ListVrpsRequest q;
  if (args.size() == 1) {
    auto p = net::Prefix::Parse(args[0]);
    if (!p.ok()) {
      *c.err << "sluice show rpki vrps: " << p.status().message() << "\n";
      return kUsage;
    }
    ipc::ToProto(*p, q.mutable_covering());
  }
  q.set_max_vrps(10000);
  SyncClient client(c.finder_address, c.timeout_ms);
  if (!json) *c.out << absl::StrFormat("%-43s %6s  %s\n", "prefix", "maxlen", "origin");
  Json vrps = Json::array();
  uint64_t n = 0;
  while (true) {
    auto r = client.Call(kRpkiTarget, ipc::methods::rpki::kListVrps, q);
    if (!r.ok()) return RpkiFail(c, "rpki vrps", r.status());
    for (const rpki::v1::Vrp& v : r->vrps()) {
      ++n;
      if (json) {
        vrps.push_back(Json{
            {"prefix", PrefixJson(v.prefix())}, {"max_length", v.max_length()}, {"asn", v.asn()}});
      } else {
        *c.out << absl::StrFormat("%-43s %6u  AS%u\n", Text(v.prefix()), v.max_length(), v.asn());
      }
    }
    if (!r->more() || r->vrps().empty()) break;
    *q.mutable_start_after() = *r->vrps().rbegin();
  }
  if (json) {
    *c.out << Print(Json{{"covering", q.has_covering() ? PrefixJson(q.covering()) : Json(nullptr)},
                         {"vrps", vrps}})
           << "\n";
  } else {
    *c.out << n << " VRPs\n";
  }
  return kOk;
}

}  // namespace sluice::rtrmgr::cli
