// libFuzzer target: policy text and .pol files from anywhere must give a result or an error,
// never a crash — parse, compile every statement and the chain of all of them (as a
// policy_backend configure call does), and run them on routes: the .pol file's own test routes
// and a few fixed ones. The compiler's two code shapes (fused TEST superinstructions or plain
// LOAD/MATCH/JUMP) must give the same verdict and the same route.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "policy/compiler.h"
#include "policy/filter.h"
#include "policy/parser.h"
#include "policy/pol_file.h"
#include "policy/simple_route.h"
#include "policy/vm.h"

namespace sluice::policy {
namespace {

std::vector<SimpleRoute> FixedRoutes() {
  std::vector<SimpleRoute> routes(2);
  routes[0].network = *net::Prefix::Parse("10.1.0.0/16");
  routes[0].as_path = *AsPath::Parse("65001 3356 {1 2}");
  routes[0].communities = {0xFFFFFF01u, (65000u << 16) | 1};
  routes[0].med = 5;
  routes[0].nexthop = *net::IPAddress::Parse("192.0.2.1");
  routes[1].network = *net::Prefix::Parse("2001:db8::/48");
  routes[1].local_as = 65000;
  routes[1].protocol = "static";
  return routes;
}

// Compiles `spec` both ways and checks they agree on every route.
void CompileAndRun(const PolicyConfig& config, const FilterSpec& spec,
                   const std::vector<SimpleRoute>& routes) {
  CompileOptions fused, plain;
  plain.fuse_tests = false;
  auto a = CompileProgram(config, spec, fused);
  auto b = CompileProgram(config, spec, plain);
  if (a.ok() != b.ok()) {
    std::fprintf(stderr, "fused and plain compiles disagree: %s / %s\n",
                 a.status().ToString().c_str(), b.status().ToString().c_str());
    std::abort();
  }
  if (!a.ok()) return;
  for (const SimpleRoute& route : routes) {
    SimpleRouteVarRW rw_a(route), rw_b(route);
    const Result ra = RunProgram(**a, rw_a);
    const Result rb = RunProgram(**b, rw_b);
    if (ra.verdict != rb.verdict || ra.modified != rb.modified || !(rw_a.route() == rw_b.route())) {
      std::fprintf(stderr, "fused and plain programs disagree on\n%s\n", route.ToString().c_str());
      std::abort();
    }
  }
}

}  // namespace
}  // namespace sluice::policy

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::policy;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<SimpleRoute> routes = FixedRoutes();
  if (auto file = ParsePolFile(text, "fuzz.pol"); file.ok()) {
    for (const PolTest& t : file->tests) {
      RunPolTest(*file, t);
      routes.push_back(t.route);
      CompileAndRun(file->config, t.spec, {t.route});
    }
  }
  size_t end = 0;
  (void)ParsePolicy(text, SourceLocation{"fuzz", 1, 1}, &end);
  auto config = ParsePolicy(text, SourceLocation{"fuzz", 1, 1});
  if (!config.ok()) return 0;
  FilterSpec chain;
  chain.default_verdict = size % 2 ? Verdict::kAccept : Verdict::kReject;
  for (const PolicyStatement& st : config->statements) {
    FilterSpec spec;
    spec.policies = {st.name};
    CompileAndRun(*config, spec, routes);
    chain.policies.push_back(st.name);
  }
  CompileAndRun(*config, chain, routes);
  // The whole text as a policy_backend call compiles it, for the RIB's variables only.
  CompileOptions rib;
  rib.readable = VarSet().Add(VarId::kNetwork).Add(VarId::kNexthop).Add(VarId::kTag);
  rib.writable = VarSet().Add(VarId::kTag);
  if (auto filter = Filter::FromText(text, SourceLocation{"fuzz", 1, 1}, chain, rib); filter.ok()) {
    for (const SimpleRoute& route : routes) {
      SimpleRouteVarRW rw(route);
      (void)(*filter)->Run(rw);
    }
  }
  return 0;
}
