// Policy evaluations per second: a realistic 10-term import policy — a
// bogon prefix-list, a 1,000-entry customer prefix-list, community lists, AS-path regular
// expressions and length, origin, and attribute changes — run on every route of the PCH full
// table, one thread. Target: at least 5,000,000 evaluations per second.
//
//   SLUICE_DATA_DIR=/path/to/data build/bench/policy/policy_bench
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// The other benchmarks take the policy apart: matching only, the prefix-list lookup, and the
// AS-path regular expression against std::regex on the textual path.
#include <cstring>
#include <iostream>
#include <map>
#include <regex>

#include "absl/strings/str_cat.h"
#include "bench_routes.h"
#include "benchmark/benchmark.h"
#include "bgp/stages/bgp_var_rw.h"
#include "bgp/wire/attribute_store.h"
#include "policy/as_path_regex.h"
#include "policy/filter.h"
#include "policy/parser.h"

namespace sluice::policy::bench {
namespace {

const BenchRoutes& Routes() {
  static const BenchRoutes* routes = new BenchRoutes(LoadBenchRoutes());
  return *routes;
}

// Every (n/1000)th IPv4 prefix of the table (/12 or longer), as "P orlonger".
std::string CustomerPrefixes() {
  const auto& routes = Routes().routes;
  std::string out;
  const size_t step = std::max<size_t>(1, routes.size() / 1000);
  int count = 0;
  for (size_t i = 0; i < routes.size() && count < 1000; i += step) {
    if (!routes[i].network.is_v4() || routes[i].network.length() < 12) continue;
    absl::StrAppend(&out, "    ", routes[i].network.ToString(), " orlonger;\n");
    ++count;
  }
  return out;
}

std::string PolicyText() {
  return absl::StrCat(R"(
  prefix-list bogons {
    0.0.0.0/8 orlonger; 10.0.0.0/8 orlonger; 100.64.0.0/10 orlonger; 127.0.0.0/8 orlonger;
    169.254.0.0/16 orlonger; 172.16.0.0/12 orlonger; 192.0.2.0/24 orlonger;
    192.168.0.0/16 orlonger; 198.18.0.0/15 orlonger; 198.51.100.0/24 orlonger;
    203.0.113.0/24 orlonger; 224.0.0.0/4 orlonger; 240.0.0.0/4 orlonger;
    0.0.0.0/0 prefix-length 25-32;
  }
  prefix-list customers {
)",
                      CustomerPrefixes(), R"(
  }
  community-list rtbh { 65535:666; blackhole; }
  community-list regional { 3856:52400; 3856:53900; }
  as-path-list private-asn { ".* [64512-65534 4200000000-4294967294] .*"; }
  as-path-list tier1 { ".* (174|209|701|1239|1299|2914|3257|3320|3356|5511|6453|6461|6762|7018|12956) .*"; }
  policy-statement import {
    term bogons { from { prefix-list bogons; } then { reject; } }
    term default-route { from { network4 0.0.0.0/0 exact; } then { reject; } }
    term private-asn { from { as-path private-asn; } then { reject; } }
    term too-long { from { as-path-length > 50; } then { reject; } }
    term rtbh {
      from { community rtbh; }
      then { community add [ no-export ]; local-pref 50; accept; }
    }
    term customers {
      from { prefix-list customers; }
      then { local-pref 200; community add [ 65000:100 ]; accept; }
    }
    term regional { from { community regional; origin igp; } then { local-pref 120; next term; } }
    term transit { from { as-path tier1; med < 100; } then { med add 10; } }
    term incomplete { from { origin incomplete; } then { local-pref 80; } }
    term rest { then { tag 1; community delete [ 65535:* ]; accept; } }
  }
)");
}

std::shared_ptr<const Filter> MakeFilter(const std::string& text) {
  FilterSpec spec;
  spec.policies = {"import"};
  auto f = Filter::FromText(text, SourceLocation{"bench", 1, 1}, spec);
  if (!f.ok()) {
    std::cerr << f.status() << "\n";
    std::abort();
  }
  return *f;
}

void Describe(const Filter& filter) {
  static bool done = false;
  if (done) return;
  done = true;
  size_t accepted = 0, modified = 0;
  SimpleRouteVarRW rw;
  for (const SimpleRoute& r : Routes().routes) {
    rw.Reset(r);
    Result result = filter.Run(rw);
    accepted += result.accepted();
    modified += result.modified;
  }
  std::cerr << "routes: " << Routes().source << "\n"
            << "program: " << filter.program().code.size() << " instructions, "
            << filter.program().matchers.size() << " matchers\n"
            << "verdicts: " << accepted << " accepted, " << Routes().routes.size() - accepted
            << " rejected, " << modified << " modified\n";
}

void BM_TenTermPolicy(benchmark::State& state) {
  static const auto filter = MakeFilter(PolicyText());
  Describe(*filter);
  const auto& routes = Routes().routes;
  SimpleRouteVarRW rw;
  size_t i = 0, accepted = 0;
  for (auto _ : state) {
    rw.Reset(routes[i]);
    accepted += filter->Run(rw).accepted();
    if (++i == routes.size()) i = 0;
  }
  benchmark::DoNotOptimize(accepted);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TenTermPolicy);

// As BM_TenTermPolicy, through BGP's own VarRW (bgp/stages/bgp_var_rw.h) over interned path
// attributes: what an ImportFilter or ExportFilter stage runs per route in sluice-bgp (issue
// 10's filter banks), short of interning a modified route's attributes.
void BM_TenTermPolicyBgpVarRW(benchmark::State& state) {
  static const auto filter = MakeFilter(PolicyText());
  static bgp::AttributeStore* store = new bgp::AttributeStore();
  static const std::vector<bgp::BgpRoute>* routes = [] {
    auto* out = new std::vector<bgp::BgpRoute>();
    for (const SimpleRoute& r : Routes().routes) {
      bgp::PathAttributes a;
      if (r.origin) a.origin = static_cast<bgp::Origin>(*r.origin);
      if (r.as_path) a.as_path = bgp::FromPolicyWords(r.as_path->words());
      if (r.nexthop && r.nexthop->is_v4() && r.network.is_v4()) {
        a.next_hop = r.nexthop->v4();
      } else if (r.nexthop && r.nexthop->family() == r.network.family()) {
        a.mp_next_hop = bgp::MpNextHop{*r.nexthop, std::nullopt};
      }
      a.med = r.med;
      a.local_pref = r.local_pref;
      a.communities = r.communities;
      bgp::BgpRoute route;
      route.net = r.network;
      route.attrs = store->Intern(std::move(a));
      out->push_back(std::move(route));
    }
    return out;
  }();
  bgp::PolicyContext context;
  context.local_as = 65000;
  bgp::BgpVarRW rw;
  size_t i = 0, accepted = 0;
  for (auto _ : state) {
    rw.Reset((*routes)[i], context);
    accepted += filter->Run(rw).accepted();
    if (++i == routes->size()) i = 0;
  }
  benchmark::DoNotOptimize(accepted);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TenTermPolicyBgpVarRW);

// As above, with each distinct AS path given an intern id, as BGP's interned attribute sets will
// have: AS-path regular expression results are then cached per path.
void BM_TenTermPolicyInternedPaths(benchmark::State& state) {
  static const auto filter = MakeFilter(PolicyText());
  static const std::vector<SimpleRoute>* interned = [] {
    auto* routes = new std::vector<SimpleRoute>(Routes().routes);
    std::map<std::vector<uint32_t>, uint64_t> ids;
    for (SimpleRoute& r : *routes) {
      if (r.as_path) r.as_path_id = ids.emplace(r.as_path->words(), ids.size() + 1).first->second;
    }
    std::cerr << "distinct AS paths: " << ids.size() << "\n";
    return routes;
  }();
  SimpleRouteVarRW rw;
  size_t i = 0, accepted = 0;
  for (auto _ : state) {
    rw.Reset((*interned)[i]);
    accepted += filter->Run(rw).accepted();
    if (++i == interned->size()) i = 0;
  }
  benchmark::DoNotOptimize(accepted);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TenTermPolicyInternedPaths);

// The same conditions without any action but accept/reject: what matching alone costs.
void BM_TenTermPolicyMatchOnly(benchmark::State& state) {
  std::string text = PolicyText();
  for (const char* from :
       {"community add [ no-export ]; local-pref 50; ",
        "local-pref 200; community add [ 65000:100 ]; ", "local-pref 120; ", "med add 10; ",
        "local-pref 80; ", "tag 1; community delete [ 65535:* ]; "}) {
    text.replace(text.find(from), strlen(from), "");
  }
  static const auto filter = MakeFilter(text);
  const auto& routes = Routes().routes;
  SimpleRouteVarRW rw;
  size_t i = 0, accepted = 0;
  for (auto _ : state) {
    rw.Reset(routes[i]);
    accepted += filter->Run(rw).accepted();
    if (++i == routes.size()) i = 0;
  }
  benchmark::DoNotOptimize(accepted);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TenTermPolicyMatchOnly);

void BM_PrefixList1000(benchmark::State& state) {
  auto config =
      ParsePolicy(absl::StrCat("prefix-list c {", CustomerPrefixes(), "}"), SourceLocation{});
  PrefixSet set(config->sets[0].prefixes);
  const auto& routes = Routes().routes;
  size_t i = 0, hits = 0;
  for (auto _ : state) {
    hits += set.Matches(routes[i].network);
    if (++i == routes.size()) i = 0;
  }
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(state.iterations());
  state.counters["entries"] = static_cast<double>(config->sets[0].prefixes.size());
  state.counters["intervals"] = static_cast<double>(set.interval_count());
}
BENCHMARK(BM_PrefixList1000);

constexpr const char* kTier1 =
    ".* (174|209|701|1239|1299|2914|3257|3320|3356|5511|6453|6461|6762|7018|12956) .*";

void BM_AsPathRegex(benchmark::State& state) {
  auto re = AsPathRegex::Compile(kTier1);
  const auto& routes = Routes().routes;
  size_t i = 0, hits = 0;
  for (auto _ : state) {
    hits += re->Matches(routes[i].as_path->view());
    if (++i == routes.size()) i = 0;
  }
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AsPathRegex);

// The alternative: std::regex over the textual path (text made beforehand, so this is the
// matching alone).
void BM_StdRegexOnTextualPath(benchmark::State& state) {
  std::regex re(
      "^(.* )?(174|209|701|1239|1299|2914|3257|3320|3356|5511|6453|6461|6762|7018|"
      "12956)( .*)?$",
      std::regex::optimize);
  std::vector<std::string> texts;
  const auto& routes = Routes().routes;
  for (size_t k = 0; k < routes.size() && k < 20000; ++k) {
    texts.push_back(routes[k].as_path->ToString());
  }
  size_t i = 0, hits = 0;
  for (auto _ : state) {
    hits += std::regex_match(texts[i], re);
    if (++i == texts.size()) i = 0;
  }
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StdRegexOnTextualPath);

}  // namespace
}  // namespace sluice::policy::bench

BENCHMARK_MAIN();
