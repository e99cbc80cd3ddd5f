#include "bench/rib/rib_load.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <regex>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "bench/net/bench_prefixes.h"
#include "bgp/mrt/bgpdump_format.h"
#include "bgp/mrt/mrt_reader.h"
#include "ipc/proto/profile.pb.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/types_convert.h"

namespace sluice::bench {
namespace {

namespace pb = rib::v1;

const ipc::Method<pb::RoutesRequest, pb::RoutesReply> kAddRoutes{"rib/1.0/add_routes"};
const ipc::Method<pb::AddRoutesPackedRequest, pb::RoutesReply> kAddRoutesPacked{
    "rib/1.0/add_routes_packed"};
const ipc::Method<profile::v1::DescribePlumbingRequest, profile::v1::DescribePlumbingReply>
    kDescribe{"profile/1.0/describe_plumbing"};

// The calls of [*next, end) as add_routes.
pb::RoutesRequest Unpacked(const std::vector<net::Prefix>& prefixes, size_t* next, size_t end,
                           const LoadOptions& options) {
  pb::RoutesRequest request;
  request.set_protocol(options.protocol);
  request.mutable_routes()->Reserve(static_cast<int>(end - *next));
  for (; *next < end; ++*next) {
    pb::RouteEntry* e = request.add_routes();
    ipc::ToProto(prefixes[*next], e->mutable_network());
    ipc::ToProto(options.nexthop, e->mutable_nexthop());
  }
  return request;
}

// [*next, end) as add_routes_packed, up to the first prefix of another family. An IPv6 prefix
// gets no nexthop (an IPv4 one) and so refuses its batch, as add_routes would.
pb::AddRoutesPackedRequest Packed(const std::vector<net::Prefix>& prefixes, size_t* next,
                                  size_t end, const LoadOptions& options) {
  pb::AddRoutesPackedRequest request;
  request.set_protocol(options.protocol);
  const net::Family family = prefixes[*next].family();
  request.set_ipv6(family == net::Family::kIPv6);
  const int n = static_cast<int>(end - *next);
  request.mutable_lengths()->Reserve(n);
  request.mutable_networks()->Reserve(n * ipc::AddressWords(family));
  request.mutable_nexthops()->Reserve(n * ipc::AddressWords(family));
  for (; *next < end && prefixes[*next].family() == family; ++*next) {
    request.add_lengths(static_cast<uint32_t>(prefixes[*next].length()));
    ipc::AppendWords(prefixes[*next].address(), request.mutable_networks());
    if (family == options.nexthop.family()) {
      ipc::AppendWords(options.nexthop, request.mutable_nexthops());
    } else {
      ipc::AppendZeroWords(family, request.mutable_nexthops());
    }
  }
  return request;
}

}  // namespace

// The distinct prefixes announced in the capture, in order of first announcement, through the
// project's MRT decoder (its bgpdump-format lines: field 6 of "A" lines).
std::vector<net::Prefix> PchPrefixes(std::string* source) {
  const char* dir = std::getenv("SLUICE_DATA_DIR");
  if (dir != nullptr) {
    std::string path = std::string(dir) + "/mrt/pch-2015-10-23-fulltable-updates.mrt.gz";
    auto reader = bgp::mrt::MrtReader::Open(path);
    if (reader.ok()) {
      bgp::AttributeStore store;
      bgp::mrt::BgpdumpFormatter formatter(&store);
      bgp::mrt::MrtRecord record;
      std::vector<net::Prefix> out;
      absl::flat_hash_set<net::Prefix> seen;
      std::string text;
      while ((*reader)->Next(&record)) {
        text.clear();
        formatter.Format(record, &text);
        size_t pos = 0;
        while (pos < text.size()) {
          size_t end = text.find('\n', pos);
          std::string_view line(text.data() + pos, end - pos);
          pos = end + 1;
          // BGP4MP_ET|time|A|peer|as|PREFIX|...
          size_t f[6];
          size_t at = 0;
          int n = 0;
          for (; n < 6; ++n) {
            at = line.find('|', n == 0 ? 0 : f[n - 1] + 1);
            if (at == std::string_view::npos) break;
            f[n] = at;
          }
          if (n < 6 || line.substr(f[1] + 1, f[2] - f[1] - 1) != "A") continue;
          auto p = net::Prefix::ParseAndMask(line.substr(f[4] + 1, f[5] - f[4] - 1));
          if (p.ok() && seen.insert(*p).second) out.push_back(*p);
        }
      }
      *source = path + " (bgp/mrt)";
      return out;
    }
    std::cerr << reader.status() << "\n";
  }
  *source = "a synthetic table (SLUICE_DATA_DIR unset or the capture missing)";
  return bench::SyntheticIPv4Table(577706);
}

int64_t RssBytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6) * 1024;
  }
  return 0;
}

double CpuSeconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t at = text.rfind(')');  // the command name may hold spaces
  if (at == std::string::npos) return 0;
  std::istringstream fields(text.substr(at + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i >= 14) ticks += std::atof(field.c_str());
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

bool LoadRoutes(boost::asio::io_context& io, ipc::XrlRouter& router,
                const std::vector<net::Prefix>& prefixes, const LoadOptions& options) {
  size_t next = 0, in_flight = 0;
  bool failed = false;
  std::function<void()> send;
  auto answered = [&](absl::StatusOr<pb::RoutesReply> reply) {
    --in_flight;
    if (!reply.ok()) {
      std::cerr << "add_routes: " << reply.status() << "\n";
      failed = true;
    }
    send();
  };
  send = [&] {
    while (!failed && in_flight < options.in_flight && next < prefixes.size()) {
      const size_t end = std::min(prefixes.size(), next + options.batch);
      ++in_flight;
      if (options.unpacked) {
        router.Call("rib", kAddRoutes, Unpacked(prefixes, &next, end, options), answered);
      } else {
        router.Call("rib", kAddRoutesPacked, Packed(prefixes, &next, end, options), answered);
      }
    }
  };
  send();
  RunUntil(
      io, [&] { return failed || (next == prefixes.size() && in_flight == 0); }, 600000);
  return !failed && next == prefixes.size() && in_flight == 0;
}

int64_t FibSize(boost::asio::io_context& io, ipc::XrlRouter& router, const std::string& fea) {
  std::optional<absl::StatusOr<profile::v1::DescribePlumbingReply>> reply;
  router.Call(fea, kDescribe, profile::v1::DescribePlumbingRequest(),
              [&](absl::StatusOr<profile::v1::DescribePlumbingReply> r) { reply = std::move(r); });
  if (!RunUntil(
          io, [&] { return reply.has_value(); }, 10000) ||
      !reply->ok())
    return -1;
  static const std::regex kFib("Fib: ([0-9]+) routes");
  std::smatch m;
  const std::string& text = (*reply)->text();
  if (!std::regex_search(text, m, kFib)) return -1;
  return std::atoll(m[1].str().c_str());
}

}  // namespace sluice::bench
