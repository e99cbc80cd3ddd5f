#include "bench/net/bench_prefixes.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <unordered_set>

#include "absl/hash/hash.h"

namespace sluice::bench {
namespace {

namespace fs = std::filesystem;
using net::Prefix;

bool ReadCache(const fs::path& path, std::vector<Prefix>* out) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    auto p = Prefix::Parse(line);
    if (!p.ok()) {
      std::fprintf(stderr, "bench: bad line in cache %s: %s\n", path.c_str(), line.c_str());
      return false;
    }
    out->push_back(*p);
  }
  return !out->empty();
}

// Runs `bgpdump -m capture` and keeps field 6 of each `A` line, first occurrence only.
bool ExtractWithBgpdump(const fs::path& capture, std::vector<Prefix>* out) {
  const std::string command = "bgpdump -m '" + capture.string() + "' 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return false;
  std::unordered_set<Prefix, absl::Hash<Prefix>> seen;
  char* line = nullptr;
  size_t cap = 0;
  while (getline(&line, &cap, pipe) > 0) {
    std::string_view text(line);
    // BGP4MP_ET|time|A|peer address|peer AS|prefix|...
    size_t start = 0;
    std::string_view fields[6];
    int n = 0;
    while (n < 6) {
      const size_t bar = text.find('|', start);
      if (bar == std::string_view::npos) break;
      fields[n++] = text.substr(start, bar - start);
      start = bar + 1;
    }
    if (n < 6 || fields[2] != "A") continue;
    auto p = Prefix::Parse(fields[5]);
    if (p.ok() && seen.insert(*p).second) out->push_back(*p);
  }
  std::free(line);
  const int status = pclose(pipe);
  return status == 0 && !out->empty();
}

void WriteCache(const fs::path& path, const std::vector<Prefix>& prefixes) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp);
    for (const Prefix& p : prefixes) out << p.ToString() << '\n';
    if (!out) return;
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
}

}  // namespace

BenchPrefixes LoadCapturePrefixes(std::string_view capture, const std::string& cache_dir,
                                  size_t synthetic_count) {
  BenchPrefixes result;
  const char* data_dir = std::getenv("SLUICE_DATA_DIR");
  std::string why;
  if (data_dir == nullptr) {
    why = "SLUICE_DATA_DIR is unset";
  } else {
    const fs::path path = fs::path(data_dir) / "mrt" / std::string(capture);
    const fs::path cache = fs::path(cache_dir) / (std::string(capture) + ".prefixes.txt");
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      why = path.string() + " does not exist";
    } else if (fs::exists(cache, ec) &&
               fs::last_write_time(cache, ec) >= fs::last_write_time(path, ec) &&
               ReadCache(cache, &result.prefixes)) {
      result.source = path.string() + " (cached in " + cache.string() + ")";
      return result;
    } else {
      result.prefixes.clear();
      std::fprintf(stderr, "bench: extracting prefixes from %s with bgpdump -m ...\n",
                   path.c_str());
      if (ExtractWithBgpdump(path, &result.prefixes)) {
        WriteCache(cache, result.prefixes);
        result.source = path.string() + " (bgpdump -m)";
        return result;
      }
      why = "bgpdump -m " + path.string() + " failed (is Debian's bgpdump installed?)";
    }
  }
  std::fprintf(stderr, "bench: %s; using a synthetic Internet-like table of %zu prefixes\n",
               why.c_str(), synthetic_count);
  result.prefixes = SyntheticIPv4Table(synthetic_count);
  result.source = "synthetic (" + why + ")";
  return result;
}

std::vector<Prefix> SyntheticIPv4Table(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  // Prefix lengths of a 2015 IPv4 table, in per mille.
  static constexpr struct {
    int length;
    int weight;
  } kLengths[] = {{8, 1},    {9, 1},   {10, 1},  {11, 2},  {12, 4},  {13, 7},  {14, 12}, {15, 20},
                  {16, 23},  {17, 13}, {18, 22}, {19, 40}, {20, 45}, {21, 50}, {22, 90}, {23, 85},
                  {24, 540}, {25, 2},  {26, 2},  {27, 1},  {28, 1},  {29, 1},  {30, 1},  {32, 6}};
  std::vector<int> table;
  for (const auto& l : kLengths) table.insert(table.end(), l.weight, l.length);
  // Allocations: a few thousand /16s in unicast space, where most prefixes cluster.
  std::vector<uint32_t> blocks(6000);
  for (uint32_t& b : blocks) {
    uint32_t first;
    do {
      first = 1 + static_cast<uint32_t>(rng() % 223);
    } while (first == 10 || first == 127);
    b = (first << 24) | (static_cast<uint32_t>(rng() & 0xff) << 16);
  }
  std::unordered_set<Prefix, absl::Hash<Prefix>> seen;
  std::vector<Prefix> out;
  out.reserve(count);
  const Prefix default_route;
  seen.insert(default_route);
  out.push_back(default_route);
  while (out.size() < count) {
    const int length = table[rng() % table.size()];
    uint32_t address = static_cast<uint32_t>(rng());
    if (rng() % 10 != 0) address = blocks[rng() % blocks.size()] | (address & 0xffff);
    const Prefix p(net::IPv4Address(address), length);
    if (seen.insert(p).second) out.push_back(p);
  }
  return out;
}

}  // namespace sluice::bench
