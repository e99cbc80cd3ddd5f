// protocols { bgp { bmp { station ADDRESS { port N; buffer-size MIB;
//     route-monitoring [ pre-policy post-policy loc-rib ]; } ... } } }: the BMP monitoring
// stations (RFC 7854) sluice-bgp connects to. `port` is required (RFC 7854 assigns none);
// `buffer-size` is in MiB (default 64): past it a slow station is dropped and re-synchronised
// when it connects again; `route-monitoring` selects the RIBs sent (default all three).
#include "absl/strings/str_format.h"
#include "rtrmgr/config/config_builder.h"
#include "rtrmgr/config/config_reader.h"

namespace sluice::rtrmgr {

namespace {

constexpr const char* kStationUsage =
    "station ADDRESS { port N; buffer-size MIB; route-monitoring [ pre-policy post-policy "
    "loc-rib ]; }";

// route-monitoring [ pre-policy post-policy loc-rib ]; at least one, none twice.
void ReadRouteMonitoring(const ConfigNode& s, BmpStation* station, Diagnostics* diags) {
  if (!ExpectArgs(s, 1, "route-monitoring [ pre-policy post-policy loc-rib ];", diags)) return;
  bool pre = false, post = false, loc = false, bad = false;
  for (const ConfigValue* v : Members(s.args[0])) {
    bool* which = IsWord(*v, "pre-policy")    ? &pre
                  : IsWord(*v, "post-policy") ? &post
                  : IsWord(*v, "loc-rib")     ? &loc
                                              : nullptr;
    if (which == nullptr) {
      diags->Add(v->loc,
                 absl::StrFormat("expected 'pre-policy', 'post-policy' or 'loc-rib', found %s",
                                 v->Describe()));
    } else if (*which) {
      diags->Add(v->loc, absl::StrFormat("route-monitoring %s is listed twice", v->text));
    } else {
      *which = true;
      continue;
    }
    bad = true;
  }
  if (bad) return;
  if (!pre && !post && !loc) {
    diags->Add(s.args[0].loc,
               "route-monitoring needs at least one of pre-policy, post-policy, loc-rib");
    return;
  }
  station->pre_policy = pre;
  station->post_policy = post;
  station->loc_rib = loc;
}

void BuildStation(const ConfigNode& n, BgpConfig* bgp, Diagnostics* diags) {
  if (!ExpectBlock(n, 1, kStationUsage, diags)) return;
  auto address = ReadAddress(n.args[0], nullptr, "station address", diags);
  if (!address) return;
  const size_t errors_before = diags->count();
  BmpStation station;
  station.address = *address;
  station.where.loc = n.loc;
  BlockReader(absl::StrFormat("station %s", address->ToString()), diags)
      .Once("port",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "port N;", diags);
              if (!v) return;
              if (auto p = ReadNumber(*v, 1, 65535, "port", diags)) {
                station.port = static_cast<uint16_t>(*p);
              }
            })
      .Once("buffer-size",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "buffer-size MIB;", diags);
              if (!v) return;
              if (auto m = ReadNumber(*v, 1, 4096, "buffer-size (MiB)", diags)) {
                station.buffer_mib = static_cast<uint32_t>(*m);
              }
            })
      .Once("route-monitoring",
            [&](const ConfigNode& s) { ReadRouteMonitoring(s, &station, diags); })
      .Read(n.children);
  if (diags->count() != errors_before) return;
  if (station.port == 0) {
    diags->Add(n.loc, absl::StrFormat("station %s needs 'port N;'", address->ToString()));
    return;
  }
  const auto key = std::make_pair(station.address, station.port);
  if (auto it = bgp->bmp_stations.find(key); it != bgp->bmp_stations.end()) {
    diags->Add(n.loc, absl::StrFormat("station %s is already defined at %s", station.ToString(),
                                      it->second.where.loc.ToString()));
    return;
  }
  bgp->bmp_stations.emplace(key, std::move(station));
}

}  // namespace

void BuildBmp(const ConfigNode& node, BgpConfig* bgp, Diagnostics* diags) {
  if (!ExpectBlock(node, 0, "bmp { station ADDRESS { port N; } ... }", diags)) return;
  BlockReader("bmp", diags)
      .Many("station", [&](const ConfigNode& n) { BuildStation(n, bgp, diags); })
      .Read(node.children);
}

}  // namespace sluice::rtrmgr
