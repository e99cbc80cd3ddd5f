// libFuzzer target: policy text and .pol files from anywhere must give a result or an error,
// never a crash — parse, compile every statement, and run it on a few routes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "policy/compiler.h"
#include "policy/parser.h"
#include "policy/pol_file.h"
#include "policy/simple_route.h"
#include "policy/vm.h"

using namespace sluice::policy;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto file = ParsePolFile(text, "fuzz.pol"); file.ok()) {
    for (const PolTest& t : file->tests) RunPolTest(*file, t);
  }
  size_t end = 0;
  (void)ParsePolicy(text, SourceLocation{"fuzz", 1, 1}, &end);
  auto config = ParsePolicy(text, SourceLocation{"fuzz", 1, 1});
  if (!config.ok()) return 0;
  SimpleRoute routes[2];
  routes[0].network = *sluice::net::Prefix::Parse("10.1.0.0/16");
  routes[0].as_path = *AsPath::Parse("65001 3356 {1 2}");
  routes[0].communities = {0xFFFFFF01u, (65000u << 16) | 1};
  routes[0].med = 5;
  routes[1].network = *sluice::net::Prefix::Parse("2001:db8::/48");
  routes[1].local_as = 65000;
  for (const PolicyStatement& st : config->statements) {
    FilterSpec spec;
    spec.policies = {st.name};
    auto program = CompileProgram(*config, spec);
    if (!program.ok()) continue;
    for (const SimpleRoute& r : routes) {
      SimpleRouteVarRW rw(r);
      RunProgram(**program, rw);
    }
  }
  return 0;
}
