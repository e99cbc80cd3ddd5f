// protocols { bgp { bmp { station ADDRESS { port N; buffer-size MIB; } ... } } }: the BMP
// monitoring stations (RFC 7854) sluice-bgp connects to. `port` is required (RFC 7854 assigns
// none); `buffer-size` is in MiB (default 64): past it a slow station is dropped and
// re-synchronised when it connects again.
#include "absl/strings/str_format.h"
#include "rtrmgr/config/config_builder.h"
#include "rtrmgr/config/config_reader.h"

namespace sluice::rtrmgr {

namespace {

constexpr const char* kStationUsage = "station ADDRESS { port N; buffer-size MIB; }";

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
