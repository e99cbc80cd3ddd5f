// core_to_core: what handing data from one CPU to another costs on this machine. Two threads,
// pinned to CPU A and CPU B, pass a token back and forth through one cache line; a round trip is
// two transfers of that line between the CPUs' caches. The shard stage hands every route to a
// shard and its outputs back to the event loop, so the process CPU it adds over the serial
// pipeline grows with this (bench/scaling/README.md).
//
//   core_to_core [--cpus 0,1,...] [--trips N]
//
// Prints, for the first CPU against each other one, the median over 5 runs of N round trips, and
// what reading a batch written on the first CPU costs on the other one and on the first.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/program_options.h"

namespace {

bool Pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

// Nanoseconds per round trip of `trips` between CPUs a and b; nullopt when either is not ours.
std::optional<double> RoundTrip(int a, int b, int64_t trips) {
  alignas(64) std::atomic<int64_t> token{0};
  std::atomic<bool> pinned{true};
  std::thread echo([&] {
    if (!Pin(b)) pinned = false;
    for (int64_t i = 0; i < trips; ++i) {
      while (token.load(std::memory_order_acquire) != 2 * i + 1) {
        if (!pinned) return;
      }
      token.store(2 * i + 2, std::memory_order_release);
    }
  });
  cpu_set_t saved;
  sched_getaffinity(0, sizeof(saved), &saved);
  if (!Pin(a)) pinned = false;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < trips && pinned; ++i) {
    token.store(2 * i + 1, std::memory_order_release);
    while (token.load(std::memory_order_acquire) != 2 * i + 2 && pinned) {
    }
  }
  const auto end = std::chrono::steady_clock::now();
  echo.join();
  sched_setaffinity(0, sizeof(saved), &saved);
  if (!pinned) return std::nullopt;
  return std::chrono::duration<double, std::nano>(end - start).count() / trips;
}

// Nanoseconds per cache line for CPU `reader` to read 256 KiB that CPU `writer` has just
// written (a hand-over batch's way; hardware prefetching helps a stream, unlike the round trip),
// median of 9 passes; nullopt when either CPU is not ours.
std::optional<double> StreamRead(int writer, int reader) {
  constexpr size_t kBytes = size_t{256} << 10;
  constexpr size_t kWords = kBytes / sizeof(uint64_t);
  std::vector<uint64_t> buffer(kWords);
  std::vector<double> passes;
  for (int pass = 0; pass < 9; ++pass) {
    bool ok = true;
    std::thread([&] {
      ok = Pin(writer);
      for (size_t i = 0; i < kWords; ++i) buffer[i] = i * pass;
    }).join();
    uint64_t sum = 0;
    auto start = std::chrono::steady_clock::now();
    std::thread([&] {
      ok = ok && Pin(reader);
      start = std::chrono::steady_clock::now();
      for (size_t i = 0; i < kWords; ++i) sum += buffer[i];
    }).join();
    const auto end = std::chrono::steady_clock::now();
    if (!ok) return std::nullopt;
    if (sum == 1) std::cout << "";  // keeps the reads
    passes.push_back(std::chrono::duration<double, std::nano>(end - start).count() / (kBytes / 64));
  }
  std::sort(passes.begin(), passes.end());
  return passes[passes.size() / 2];
}

std::vector<int> OurCpus() {
  cpu_set_t set;
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> cpus;
  int64_t trips = 200000;
  sluice::base::ProgramOptions options(
      "core_to_core",
      "core_to_core: the round trip of one cache line between the first CPU and each other one "
      "(two pinned threads passing a token), median of 5 runs, in nanoseconds");
  CLI::App& app = options.app();
  sluice::base::AddParsedOption(
      app, "--cpus",
      [&cpus](const std::string& value) {
        cpus.clear();
        for (absl::string_view field : absl::StrSplit(value, ',', absl::SkipEmpty())) {
          int cpu = 0;
          if (!absl::SimpleAtoi(field, &cpu) || cpu < 0 || cpu >= CPU_SETSIZE) {
            return absl::InvalidArgumentError(absl::StrCat("not a CPU number: ", field));
          }
          cpus.push_back(cpu);
        }
        if (cpus.size() < 2) return absl::InvalidArgumentError("name two CPUs or more");
        return absl::OkStatus();
      },
      "the CPUs, comma-separated; the first is measured against each other one (default: the "
      "ones we may run on, up to 16)")
      ->type_name("0,1,...");
  app.add_option("--trips", trips, "N: round trips per run")
      ->check(CLI::Range(int64_t{1000}, int64_t{100000000}));
  if (std::optional<int> exit = options.Parse(argc, argv)) return *exit;
  if (cpus.empty()) {
    cpus = OurCpus();
    if (cpus.size() > 16) cpus.resize(16);
  }
  if (cpus.size() < 2) {
    std::cout << "core_to_core: one CPU only; nothing to measure\n";
    return 0;
  }
  for (size_t i = 1; i < cpus.size(); ++i) {
    std::vector<double> runs;
    for (int r = 0; r < 5; ++r) {
      std::optional<double> ns = RoundTrip(cpus[0], cpus[i], trips);
      if (!ns) {
        std::cerr << "core_to_core: cannot run on CPU " << cpus[0] << " and " << cpus[i] << "\n";
        return 1;
      }
      runs.push_back(*ns);
    }
    std::sort(runs.begin(), runs.end());
    const std::optional<double> local = StreamRead(cpus[0], cpus[0]);
    const std::optional<double> remote = StreamRead(cpus[0], cpus[i]);
    if (!local || !remote) return 1;
    std::cout << absl::StrFormat(
        "CPU %d <-> CPU %d: a cache line's round trip %.0f ns; 256 KiB written on CPU %d read "
        "at %.1f ns a line on CPU %d, %.1f ns on CPU %d\n",
        cpus[0], cpus[i], runs[runs.size() / 2], cpus[0], *remote, cpus[i], *local, cpus[0]);
  }
  return 0;
}
