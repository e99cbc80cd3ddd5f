// rpki_vrp_gen: a VRP file for stayrtr made up for the routes of one peer of an MRT capture
// (vrp_generator.h), or N VRPs of such a file changed.
//
//   rpki_vrp_gen --mrt PCH.mrt.gz --out vrps.json [--seed S]
//   rpki_vrp_gen --mrt RIS.mrt.gz --family ipv6 --out vrps6.json
//   rpki_vrp_gen --mrt PCH.mrt.gz --rewrite 10000 --in vrps.json --out vrps2.json
//
// Prints the routes and VRPs per kind, and the routes' RFC 6811 states against the file written.
// Exit status: 0; 1 when a file cannot be read or written; 2 a bad command line.

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "base/program_options.h"
#include "bench/rpki/vrp_generator.h"

namespace sluice::bench::rpki {
namespace {

struct Args {
  std::string mrt, in, out, family = "ipv4";
  int peer_index = -1;
  uint64_t seed = 1;
  uint32_t sender_as = 4200000001u;
  size_t rewrite = 0;
};

int Run(const Args& a) {
  bgp::AttributeStore store;
  auto capture = bgp::replay::LoadCapture(a.mrt, &store);
  if (!capture.ok()) {
    std::fprintf(stderr, "rpki_vrp_gen: %s\n", std::string(capture.status().message()).c_str());
    return 1;
  }
  const net::Family family = a.family == "ipv6" ? net::Family::kIPv6 : net::Family::kIPv4;
  size_t count = 0;
  size_t index = BusiestPeer(*capture, family, &count);
  if (a.peer_index >= 0) index = size_t(a.peer_index);
  const bgp::replay::PeerFeed* peer =
      index < capture->peers.size() ? &capture->peers[index] : nullptr;
  const std::vector<RouteOrigin> routes =
      peer != nullptr ? RouteOrigins(*peer, family, a.sender_as) : std::vector<RouteOrigin>{};
  if (routes.empty()) {
    std::fprintf(stderr, "rpki_vrp_gen: no %s routes from that peer\n", a.family.c_str());
    return 1;
  }
  std::printf("peer %zu, %s: %zu %s routes\n", index, peer->Name().c_str(), routes.size(),
              a.family.c_str());
  std::vector<Vrp> vrps;
  if (a.rewrite > 0) {
    std::ifstream in(a.in);
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = ParseVrpJson(text.str());
    if (!in || !parsed.ok()) {
      std::fprintf(stderr, "rpki_vrp_gen: %s: %s\n", a.in.c_str(),
                   in ? std::string(parsed.status().message()).c_str() : "cannot read");
      return 1;
    }
    vrps = std::move(*parsed);
    const RewriteCounts c = RewriteVrps(&vrps, routes, a.rewrite, a.seed);
    std::printf(
        "rewrote %zu of %zu VRPs: %zu now name their route's origin, %zu no longer do, "
        "%zu cover no route exactly\n",
        c.made_valid + c.made_invalid + c.other, vrps.size(), c.made_valid, c.made_invalid,
        c.other);
  } else {
    GeneratedVrps g = GenerateVrps(routes, VrpShares{}, a.seed);
    std::printf("%-14s %8s %8s\n", "kind", "routes", "VRPs");
    for (size_t k = 0; k < kVrpKinds; ++k) {
      std::printf("%-14s %8zu %8zu\n", VrpKindName(VrpKind(k)), g.routes[k], g.vrps_made[k]);
    }
    std::printf("%zu VRPs (%zu made twice, written once)\n", g.vrps.size(), g.duplicates);
    vrps = std::move(g.vrps);
  }
  const OracleStates s = Validate(vrps, routes);
  std::printf("RFC 6811 states: %zu valid, %zu invalid, %zu not-found\n", s.valid, s.invalid,
              s.not_found);
  std::ofstream out(a.out);
  out << VrpJson(vrps);
  out.close();
  if (!out) {
    std::fprintf(stderr, "rpki_vrp_gen: cannot write %s\n", a.out.c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace sluice::bench::rpki

int main(int argc, char** argv) {
  sluice::bench::rpki::Args a;
  sluice::base::ProgramOptions options(
      "rpki_vrp_gen",
      "rpki_vrp_gen: a stayrtr VRP file made up for the routes of one peer of an MRT capture "
      "(exact, wrong-origin, too-specific, covering and AS 0 VRPs, the rest uncovered), or N "
      "VRPs of such a file changed (--rewrite N --in FILE)");
  CLI::App& app = options.app();
  app.add_option("--mrt", a.mrt, "the MRT capture (.gz, .bz2 or plain)")->required();
  app.add_option("--out", a.out, "the VRP file to write (JSON)")->required();
  app.add_option("--family", a.family, "ipv4 or ipv6 routes")
      ->check(CLI::IsMember({"ipv4", "ipv6"}));
  app.add_option("--peer-index", a.peer_index,
                 "the capture peer (sluice-replay --list-peers numbers; default: the one with "
                 "the most routes of the family)");
  app.add_option("--seed", a.seed, "the random seed (the same seed, the same file)");
  app.add_option("--sender-as", a.sender_as,
                 "the AS the replaying speaker prepends (the origin of empty AS_PATHs)");
  app.add_option("--rewrite", a.rewrite, "N: change the AS of N VRPs of --in");
  app.add_option("--in", a.in, "the VRP file to rewrite");
  if (std::optional<int> exit = options.Parse(argc, argv)) return *exit;
  if (a.rewrite > 0 && a.in.empty()) return options.Fail("--rewrite needs --in");
  return sluice::bench::rpki::Run(a);
}
