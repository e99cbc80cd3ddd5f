#include "bench_routes.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace sluice::policy::bench {

bool ParseBgpdumpLine(const std::string& line, SimpleRoute* out) {
  std::vector<std::string> f = absl::StrSplit(line, '|');
  if (f.size() < 12 || f[2] != "A") return false;
  auto prefix = net::Prefix::Parse(f[5]);
  auto path = AsPath::Parse(f[6]);
  auto nexthop = net::IPAddress::Parse(f[8]);
  auto peer = net::IPAddress::Parse(f[3]);
  if (!prefix.ok() || !path.ok() || !nexthop.ok() || !peer.ok()) return false;
  SimpleRoute r;
  r.protocol = "bgp";
  r.network = *prefix;
  r.as_path = *path;
  r.nexthop = *nexthop;
  r.neighbor = *peer;
  r.origin = f[7] == "IGP" ? 0 : f[7] == "EGP" ? 1 : 2;
  uint32_t v;
  if (absl::SimpleAtoi(f[9], &v)) r.local_pref = v;
  if (absl::SimpleAtoi(f[10], &v)) r.med = v;
  for (absl::string_view c : absl::StrSplit(f[11], ' ', absl::SkipEmpty())) {
    auto parsed = ParseCommunity(std::string(c));
    if (parsed.ok()) r.communities.push_back(*parsed);
  }
  *out = std::move(r);
  return true;
}

namespace {

std::vector<SimpleRoute> Synthetic(size_t n) {
  std::vector<SimpleRoute> routes;
  uint32_t seed = 1;
  auto next = [&] { return (seed = seed * 1664525 + 1013904223); };
  for (size_t i = 0; i < n; ++i) {
    SimpleRoute r;
    const int len = 16 + static_cast<int>(next() % 9);
    r.network = net::Prefix(net::IPv4Address(next()), len);
    std::string path = "3856";
    for (uint32_t k = 0, hops = 1 + next() % 5; k < hops; ++k) {
      path += " " + std::to_string(1 + next() % 65000);
    }
    r.as_path = *AsPath::Parse(path);
    r.origin = next() % 3;
    r.local_pref = 100;
    r.med = 0;
    r.nexthop = net::IPAddress(net::IPv4Address(0xC0000201));
    r.neighbor = net::IPAddress(net::IPv4Address(0xC0000202));
    r.communities = {(3856u << 16) | (52400 + next() % 4 * 500)};
    routes.push_back(std::move(r));
  }
  return routes;
}

}  // namespace

BenchRoutes LoadBenchRoutes() {
  BenchRoutes out;
  const char* data = std::getenv("SLUICE_DATA_DIR");
  const std::string mrt =
      data ? std::string(data) + "/mrt/pch-2015-10-23-fulltable-updates.mrt.gz" : "";
  const std::string cache = std::string(SLUICE_BENCH_CACHE_DIR) + "/pch-bgpdump.txt";
  if (!mrt.empty() && std::filesystem::exists(mrt) && !std::filesystem::exists(cache)) {
    const std::string cmd = "bgpdump -m '" + mrt + "' > '" + cache + ".tmp' 2>/dev/null && mv '" +
                            cache + ".tmp' '" + cache + "'";
    std::cerr << "policy_bench: caching routes: " << cmd << "\n";
    if (std::system(cmd.c_str()) != 0) std::filesystem::remove(cache + ".tmp");
  }
  if (!mrt.empty() && std::filesystem::exists(cache)) {
    std::ifstream in(cache);
    std::string line;
    SimpleRoute r;
    while (std::getline(in, line)) {
      if (ParseBgpdumpLine(line, &r)) out.routes.push_back(std::move(r));
    }
    out.source = "PCH 2015-10-23 full table via bgpdump (" + std::to_string(out.routes.size()) +
                 " announcements)";
  }
  if (out.routes.empty()) {
    std::cerr << "policy_bench: SLUICE_DATA_DIR unset, or no PCH capture or bgpdump: using "
                 "500,000 synthetic routes\n";
    out.routes = Synthetic(500000);
    out.source = "synthetic (500000 routes)";
  }
  return out;
}

}  // namespace sluice::policy::bench
