// protocols { bgp { mrt { table-dump "PATTERN" { interval 2h; }
//                         updates "PATTERN" { rotate 15m; } } } }
// sluice-bgp's MRT (RFC 6396) files; the blocks after the patterns are optional.
#include <ctime>

#include "absl/strings/str_format.h"
#include "rtrmgr/config/config_builder.h"
#include "rtrmgr/config/config_reader.h"

namespace sluice::rtrmgr {
namespace {

// "PATTERN" of `table-dump PATTERN [{ ... }]`: an absolute path that strftime(3) fills in.
std::optional<std::string> ReadPattern(const ConfigNode& n, std::string_view usage,
                                       Diagnostics* diags) {
  if (n.args.size() != 1) {
    diags->Add(n.loc, absl::StrFormat("expected '%s'", usage));
    return std::nullopt;
  }
  auto pattern = ReadText(n.args[0], 1024, n.keyword, diags);
  if (!pattern) return std::nullopt;
  if (pattern->empty() || (*pattern)[0] != '/') {
    diags->Add(n.args[0].loc,
               absl::StrFormat("%s: \"%s\" is not an absolute path", n.keyword, *pattern));
    return std::nullopt;
  }
  const time_t now = time(nullptr);
  struct tm tm {};
  gmtime_r(&now, &tm);
  char out[4096];
  if (strftime(out, sizeof out, pattern->c_str(), &tm) == 0) {
    diags->Add(n.args[0].loc,
               absl::StrFormat("%s: \"%s\" expands to nothing or too much", n.keyword, *pattern));
    return std::nullopt;
  }
  return pattern;
}

// The block after a pattern, with its one duration statement.
void ReadPeriod(const ConfigNode& n, const char* keyword, uint32_t min_s, uint32_t max_s,
                uint32_t* seconds, Diagnostics* diags) {
  if (!n.has_block) return;
  BlockReader(n.keyword, diags)
      .Once(keyword,
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, absl::StrFormat("%s DURATION;", keyword), diags);
              if (!v) return;
              if (auto t = ReadDuration(*v, min_s, max_s, keyword, diags)) *seconds = *t;
            })
      .Read(n.children);
}

}  // namespace

void BuildBgpMrt(const ConfigNode& n, BgpMrtConfig* mrt, Diagnostics* diags) {
  if (!ExpectBlock(n, 0,
                   "mrt { table-dump \"/var/lib/sluice/rib.%Y%m%d.%H%M\" { interval 2h; } "
                   "updates \"/var/lib/sluice/updates.%Y%m%d.%H%M\" { rotate 15m; } }",
                   diags)) {
    return;
  }
  mrt->where.loc = n.loc;
  BlockReader("mrt", diags)
      .Once("table-dump",
            [&](const ConfigNode& s) {
              auto p = ReadPattern(s, "table-dump \"PATTERN\" { interval DURATION; }", diags);
              if (p) mrt->table_dump = *p;
              ReadPeriod(s, "interval", 60, 7 * 86400, &mrt->table_dump_interval_s, diags);
            })
      .Once("updates",
            [&](const ConfigNode& s) {
              auto p = ReadPattern(s, "updates \"PATTERN\" { rotate DURATION; }", diags);
              if (p) mrt->updates = *p;
              ReadPeriod(s, "rotate", 1, 86400, &mrt->updates_rotate_s, diags);
            })
      .Read(n.children);
}

}  // namespace sluice::rtrmgr
