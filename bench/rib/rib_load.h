#pragma once
// What the RIB benchmarks share: the PCH table's prefixes, a protocol loading them into
// sluice-rib over rib/1.0, an FEA's FIB size, and a process's RSS and CPU from /proc.

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "ipc/xrl_router.h"
#include "net/ip_address.h"
#include "net/prefix.h"

namespace sluice::bench {

// The distinct prefixes announced in $SLUICE_DATA_DIR/mrt/pch-2015-10-23-fulltable-updates.mrt.gz,
// in order of first announcement, through the project's MRT decoder (its bgpdump-format lines:
// field 6 of "A" lines); without it, a synthetic table of the same size. `source` says which.
std::vector<net::Prefix> PchPrefixes(std::string* source);

// VmRSS of `pid` in octets; 0 when unknown.
int64_t RssBytes(pid_t pid);
// User plus system CPU seconds `pid` has used so far (/proc/PID/stat fields 14 and 15).
double CpuSeconds(pid_t pid);

struct LoadOptions {
  std::string protocol = "ebgp";
  net::IPAddress nexthop;  // every route's
  size_t batch = 1000;     // routes per call
  size_t in_flight = 8;    // calls in flight
  bool unpacked = false;   // rib/1.0/add_routes instead of add_routes_packed
};
// Sends `prefixes` to the RIB through `router` (on `io`, run by this call) as `options.protocol`
// routes, in batches with several in flight (add_routes_packed: one batch per run of one
// family). False, with the error on stderr, when a call fails or it takes over 10 minutes.
bool LoadRoutes(boost::asio::io_context& io, ipc::XrlRouter& router,
                const std::vector<net::Prefix>& prefixes, const LoadOptions& options);

// "Fib: N routes" from FEA `fea`'s profile/1.0/describe_plumbing; -1 on failure.
int64_t FibSize(boost::asio::io_context& io, ipc::XrlRouter& router, const std::string& fea);

// Runs `io` until `done()` or `ms` have passed; done().
template <typename P>
bool RunUntil(boost::asio::io_context& io, P done, int ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    io.run_one_for(std::chrono::milliseconds(5));
  }
  return done();
}

}  // namespace sluice::bench
