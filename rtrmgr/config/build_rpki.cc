// protocols { rpki { cache ADDRESS { port N; preference N; refresh S; retry S; expire S; } ... } }
// The intervals' bounds are RFC 8210 §6's.
#include "absl/strings/str_format.h"
#include "rtrmgr/config/config_builder.h"
#include "rtrmgr/config/config_reader.h"

namespace sluice::rtrmgr {

namespace {

constexpr const char* kCacheUsage =
    "cache ADDRESS { port N; preference N; refresh S; retry S; expire S; }";

// Reads `keyword DURATION;` within min_s..max_s into *out, and remembers where it was written.
BlockReader::Handler Interval(const char* keyword, uint32_t min_s, uint32_t max_s, uint32_t* out,
                              const ConfigNode** where, Diagnostics* diags) {
  return [=](const ConfigNode& s) {
    const ConfigValue* v = ExpectOne(s, absl::StrFormat("%s SECONDS;", keyword), diags);
    if (!v) return;
    if (auto t = ReadDuration(*v, min_s, max_s, keyword, diags)) {
      *out = *t;
      *where = &s;
    }
  };
}

void BuildCache(const ConfigNode& n, RpkiConfig* rpki, Diagnostics* diags) {
  if (n.has_block ? !ExpectBlock(n, 1, kCacheUsage, diags)
                  : !ExpectArgs(n, 1, kCacheUsage, diags)) {
    return;
  }
  auto address = ReadAddress(n.args[0], nullptr, "cache address", diags);
  if (!address) return;
  const size_t errors_before = diags->count();
  RpkiCache cache;
  cache.address = *address;
  cache.where.loc = n.loc;
  const ConfigNode* port_node = nullptr;
  const ConfigNode* refresh = nullptr;
  const ConfigNode* retry = nullptr;
  const ConfigNode* expire = nullptr;
  BlockReader(absl::StrFormat("cache %s", address->ToString()), diags)
      .Once("port",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "port N;", diags);
              if (!v) return;
              if (auto p = ReadNumber(*v, 1, 65535, "port", diags)) {
                cache.port = static_cast<uint32_t>(*p);
                port_node = &s;
              }
            })
      .Once("preference",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "preference N;", diags);
              if (!v) return;
              if (auto p = ReadNumber(*v, 0, 255, "preference", diags)) {
                cache.preference = static_cast<uint32_t>(*p);
              }
            })
      .Once("refresh", Interval("refresh", 1, 86400, &cache.refresh, &refresh, diags))
      .Once("retry", Interval("retry", 1, 7200, &cache.retry, &retry, diags))
      .Once("expire", Interval("expire", 600, 172800, &cache.expire, &expire, diags))
      .Read(n.children);
  // RFC 8210 §6: the expire interval must be larger than the refresh and retry intervals (the
  // defaults, 3600 and 600, for those not given).
  if (expire != nullptr) {
    const uint32_t refresh_s = cache.refresh != 0 ? cache.refresh : 3600;
    const uint32_t retry_s = cache.retry != 0 ? cache.retry : 600;
    if (cache.expire <= refresh_s || cache.expire <= retry_s) {
      diags->Add(expire->args[0].loc,
                 absl::StrFormat("expire %u must be more than refresh (%u) and retry (%u) "
                                 "(RFC 8210 section 6)",
                                 cache.expire, refresh_s, retry_s));
    }
  } else if (refresh != nullptr && cache.refresh >= 7200) {
    diags->Add(refresh->args[0].loc,
               absl::StrFormat("refresh %u must be less than expire (7200 by default; set "
                               "expire too)",
                               cache.refresh));
  }
  // A cache with a bad value is not kept: no second error about it (a duplicate on the default
  // port).
  if (diags->count() != errors_before) return;
  const auto key = std::make_pair(cache.address, cache.port);
  if (auto it = rpki->caches.find(key); it != rpki->caches.end()) {
    diags->Add(port_node != nullptr ? port_node->loc : n.args[0].loc,
               absl::StrFormat("cache %s is already defined at %s", cache.ToString(),
                               it->second.where.loc.ToString()));
    return;
  }
  rpki->caches.emplace(key, std::move(cache));
}

}  // namespace

void BuildRpki(const ConfigNode& node, RpkiConfig* rpki, Diagnostics* diags) {
  if (!ExpectBlock(node, 0, "rpki { cache ADDRESS { port N; preference N; } ... }", diags)) return;
  rpki->enabled = true;
  rpki->where.loc = node.loc;
  BlockReader("rpki", diags)
      .Many("cache", [&](const ConfigNode& n) { BuildCache(n, rpki, diags); })
      .Read(node.children);
}

}  // namespace sluice::rtrmgr
