// sluice-mrtdump: prints an MRT file (plain, gzip or bzip2) in the one-line form of `bgpdump -m`,
// or a summary of what is in it.
//
//   sluice-mrtdump FILE             lines as bgpdump -m prints them
//   sluice-mrtdump --summary FILE   record counts, UPDATE error counts, truncation
//   sluice-mrtdump --version        the version
//
// Exit status: 0, also after a truncated file (the error is printed); 1 a file that cannot be
// opened; 2 a bad command line.

#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "base/program_options.h"
#include "bgp/mrt/bgpdump_format.h"
#include "bgp/mrt/mrt_reader.h"

int main(int argc, char** argv) {
  using namespace sluice::bgp;
  bool summary = false;
  std::string path;
  sluice::base::ProgramOptions options(
      "sluice-mrtdump",
      "sluice-mrtdump: prints an MRT file (plain, gzip or bzip2) in the one-line form of "
      "`bgpdump -m`, or a summary of what is in it");
  options.app().add_flag("--summary", summary,
                         "record counts, UPDATE error counts, truncation instead of the lines");
  options.app().add_option("FILE", path, "the MRT file");
  if (std::optional<int> exit = options.Parse(argc, argv)) return *exit;
  if (path.empty()) return options.Fail("FILE is required");
  auto reader = mrt::MrtReader::Open(path);
  if (!reader.ok()) {
    std::fprintf(stderr, "sluice-mrtdump: %s\n", std::string(reader.status().message()).c_str());
    return 1;
  }
  AttributeStore store;
  {
    mrt::BgpdumpFormatter formatter(&store);
    mrt::MrtRecord record;
    std::string out;
    std::map<std::pair<int, int>, uint64_t> types;
    uint64_t lines = 0;
    while ((*reader)->Next(&record)) {
      out.clear();
      formatter.Format(record, &out);
      ++types[{record.type, record.subtype}];
      if (summary) {
        for (char c : out) lines += c == '\n';
      } else {
        std::fwrite(out.data(), 1, out.size(), stdout);
      }
    }
    if (summary) {
      std::printf("records %llu, lines %llu\n", (unsigned long long)(*reader)->records(),
                  (unsigned long long)lines);
      for (const auto& [t, n] : types)
        std::printf("  type %d/%d: %llu\n", t.first, t.second, (unsigned long long)n);
      const auto& s = formatter.stats();
      std::printf("updates %llu, with RFC 7606 errors %llu, undecodable records %llu %s\n",
                  (unsigned long long)s.updates, (unsigned long long)s.update_errors,
                  (unsigned long long)s.decode_errors, s.first_error.c_str());
      std::printf("distinct attribute sets %zu\n", store.size());
    }
  }
  if (!(*reader)->error().empty()) {
    std::fprintf(stderr, "sluice-mrtdump: %s%s\n", (*reader)->truncated() ? "truncated: " : "",
                 (*reader)->error().c_str());
  }
  return 0;
}
