// The `sluice` verbs and their --json documents against real processes: sluice-rtrmgr with its
// processes (dummy FEA), a static route and a BGP peer played by sluice-replay from 127.0.0.2.
// Every `show` command's document is checked against the shape docs/json.md gives for it; the
// route lookup, the soft and hard clears, and a CLI disable that outlives a reload are checked
// as an operator would see them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "net/ip_address.h"
#include "net/prefix.h"
#include "nlohmann/json.hpp"
#include "tests/system/rtrmgr_processes.h"

namespace sluice::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Config(int port, const std::string& description, const std::string& metric) {
  return absl::StrCat(R"(
interfaces {
    interface eth0 { address 10.1.0.1/24; }
}
fea { backend dummy; }
protocols {
    static {
        route 10.0.0.0/8 { next-hop 10.1.0.254; metric )",
                      metric, R"(; }
    }
    rpki { cache 127.0.0.1 { port 1; preference 1; } }
    bgp {
        local-as 4200000001;
        bgp-id 10.255.0.1;
        listen 127.0.0.1 port )",
                      port, R"(;
        peer 127.0.0.2 {
            as 4200000002; local-ip 127.0.0.1; passive; description ")",
                      description, R"(";
        }
    }
}
)");
}

// The router, and sluice-replay as the peer 127.0.0.2 with 20 routes, Established.
class Topology {
 public:
  bool Start() {
    port_ = FreeTcpPort();
    conf_ = r_.WriteConfig("router.conf", Config(port_, "upstream", "7"));
    if (!r_.Start(conf_)) return false;
    replay_ = ChildProcess::Start(
        {BuildPath("bgp/replay/sluice-replay"), "--connect", absl::StrCat("127.0.0.1:", port_),
         "--local-address", "127.0.0.2", "--local-as", "4200000002", "--prepend-own-as",
         "--next-hop", "10.1.0.2", "--synthetic", "20", "--reconnect", "--linger", "--quiet"});
    return replay_ && Established();
  }
  bool Established() {
    return Eventually([&] { return Peer()["state"] == "Established"; });
  }
  // `sluice show bgp neighbor 127.0.0.2 --json`'s peer; null when the command fails.
  json Peer() {
    CommandResult c = r_.Sluice({"show", "bgp", "neighbor", "127.0.0.2", "--json"});
    if (c.exit_code != 0) return nullptr;
    json j = json::parse(c.out, nullptr, false);
    return j.is_object() && j.contains("peer") ? j["peer"] : json(nullptr);
  }
  // Rewrites the configuration file and sends SIGHUP; true once it runs.
  bool Reload(const std::string& description, const std::string& metric) {
    r_.WriteConfig("router.conf", Config(port_, description, metric));
    r_.process()->Signal(SIGHUP);
    return Eventually([&] {
      return r_.Sluice({"show", "configuration"}).out.find("metric " + metric) != std::string::npos;
    });
  }
  RtrmgrProcess& r() { return r_; }
  std::string Logs() { return r_.Logs("rtrmgr") + r_.Logs("bgp"); }

 private:
  RtrmgrProcess r_;
  int port_ = 0;
  std::string conf_;
  std::unique_ptr<ChildProcess> replay_;
};

// ---- docs/json.md: each command's template, and the named types --------------------------------

struct Shapes {
  std::vector<std::pair<std::string, json>> commands;  // "show bgp peers --json", template
  std::map<std::string, json> types;
};

Shapes ReadShapes() {
  std::ifstream in(std::string(SLUICE_SOURCE_DIR) + "/docs/json.md");
  std::stringstream text;
  text << in.rdbuf();
  Shapes out;
  const std::regex heading(R"(^### (type )?`(?:sluice )?([^`]+)`)");
  std::string current;
  bool is_type = false, in_block = false;
  std::string block;
  for (const std::string& line : std::vector<std::string>(absl::StrSplit(text.str(), '\n'))) {
    std::smatch m;
    if (!in_block && std::regex_search(line, m, heading)) {
      current = m[2];
      is_type = m[1].matched;
    } else if (line == "```json" && !current.empty()) {
      in_block = true;
      block.clear();
    } else if (in_block && line == "```") {
      in_block = false;
      json t = json::parse(block, nullptr, false);
      if (is_type) {
        out.types[current] = t;
      } else {
        out.commands.emplace_back(current, t);
      }
      current.clear();
    } else if (in_block) {
      block += line + "\n";
    }
  }
  return out;
}

bool IsAddress(const json& v) {
  return v.is_string() && net::IPAddress::Parse(v.get<std::string>()).ok();
}
bool IsPrefix(const json& v) {
  return v.is_string() && net::Prefix::Parse(v.get<std::string>()).ok();
}

// Appends to `errors` where `v` does not match `t` (docs/json.md § How the shapes below read).
void Match(const json& v, const json& t, const Shapes& shapes, const std::string& path,
           std::vector<std::string>* errors);

bool MatchesName(const json& v, const std::string& name, const Shapes& shapes) {
  if (name == "string") return v.is_string();
  if (name == "number") return v.is_number();
  if (name == "boolean") return v.is_boolean();
  if (name == "null") return v.is_null();
  if (name == "address") return IsAddress(v);
  if (name == "prefix") return IsPrefix(v);
  auto type = shapes.types.find(name);
  if (type == shapes.types.end()) return false;
  std::vector<std::string> errors;
  Match(v, type->second, shapes, "", &errors);
  return errors.empty();
}

void Match(const json& v, const json& t, const Shapes& shapes, const std::string& path,
           std::vector<std::string>* errors) {
  if (t.is_string()) {
    const std::string names = t;
    for (const std::string& name : std::vector<std::string>(absl::StrSplit(names, '|'))) {
      if (MatchesName(v, name, shapes)) return;
    }
    errors->push_back(absl::StrCat(path, ": want ", names, ", have ", v.dump()));
  } else if (t.is_array()) {
    if (!v.is_array()) {
      errors->push_back(absl::StrCat(path, ": want a list, have ", v.dump()));
      return;
    }
    for (size_t i = 0; i < v.size(); ++i) {
      Match(v[i], t[0], shapes, absl::StrCat(path, "[", i, "]"), errors);
    }
  } else if (t.is_object()) {
    if (!v.is_object()) {
      errors->push_back(absl::StrCat(path, ": want an object, have ", v.dump()));
      return;
    }
    if (t.contains("*")) {
      for (const auto& [key, value] : v.items())
        Match(value, t["*"], shapes, path + "." + key, errors);
      return;
    }
    for (const auto& [key, value] : t.items()) {
      if (!v.contains(key)) {
        errors->push_back(absl::StrCat(path, ": no key ", key));
      } else {
        Match(v[key], value, shapes, path + "." + key, errors);
      }
    }
    for (const auto& [key, value] : v.items()) {
      if (!t.contains(key)) errors->push_back(absl::StrCat(path, ": key ", key, " not documented"));
    }
  }
}

TEST(CliJsonSystem, EveryShowCommandPrintsTheShapeDocsJsonGives) {
  Topology t;
  ASSERT_TRUE(t.Start()) << t.Logs();
  // A second commit, so that the archive has an entry 1.
  ASSERT_TRUE(t.Reload("upstream", "8")) << t.Logs();
  ASSERT_TRUE(t.Established()) << t.Logs();

  // The scripting example: the peer's address as text and its counters as numbers.
  const CommandResult jq = RunCommand(
      {"/bin/sh", "-c",
       absl::StrCat(BuildPath("rtrmgr/cli/sluice"), " --finder ", t.r().finder(),
                    " show bgp peers --json | jq -e '.peers[0].address==\"127.0.0.2\" and "
                    "(.peers[0].messages_in|type)==\"number\"'")});
  EXPECT_EQ(jq.exit_code, 0) << jq.out << jq.err;

  const Shapes shapes = ReadShapes();
  ASSERT_GE(shapes.commands.size(), 17u);
  ASSERT_TRUE(shapes.types.count("peer"));
  for (const auto& [command, shape] : shapes.commands) {
    ASSERT_FALSE(shape.is_discarded()) << command << ": the template is not JSON";
    const std::string line = absl::StrReplaceAll(command, {{"ADDRESS", "10.1.2.3"},
                                                           {"ADDR", "127.0.0.2"},
                                                           {"PROCESS", "bgp"},
                                                           {"POINT", "bgp_route_in"},
                                                           {" N ", " 1 "}});
    std::vector<std::string> args = absl::StrSplit(line, ' ', absl::SkipEmpty());
    const CommandResult c = t.r().Sluice(args);
    ASSERT_EQ(c.exit_code, 0) << line << ": " << c.err;
    // One document, on one line.
    ASSERT_EQ(std::count(c.out.begin(), c.out.end(), '\n'), 1) << line << ": " << c.out;
    const json doc = json::parse(c.out, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << line << ": " << c.out;
    std::vector<std::string> errors;
    Match(doc, shape, shapes, "", &errors);
    EXPECT_TRUE(errors.empty()) << line << ":\n" << absl::StrJoin(errors, "\n") << "\n" << c.out;
  }

  // The documents carry what the router has, not only the right types.
  const json peers = json::parse(t.r().Sluice({"show", "bgp", "peers", "--json"}).out);
  EXPECT_EQ(peers["peers"][0]["description"], "upstream");
  EXPECT_GT(peers["peers"][0]["messages_in"].get<uint64_t>(), 0u);
  json count;
  EXPECT_TRUE(Eventually([&] {
    count = json::parse(t.r().Sluice({"show", "bgp", "routes", "count", "--json"}).out);
    return count["peers"][0]["adj_rib_in"]["ipv4"] == 20 && count["loc_rib"]["ipv4"] == 20;
  })) << count.dump();
  // sluice-rpki runs from the rpki block; sluice-bgp subscribes to it; its cache is unreachable.
  const std::string rpki = t.r().Sluice({"show", "rpki"}).out;
  EXPECT_THAT(rpki, HasSubstr("VRPs: 0 (IPv4 0, IPv6 0)")) << rpki;
  EXPECT_THAT(rpki, HasSubstr("subscribers: 1")) << rpki;
  EXPECT_THAT(rpki, HasSubstr("127.0.0.1")) << rpki;
  const json invalid =
      json::parse(t.r().Sluice({"show", "bgp", "routes", "rpki", "invalid", "--json"}).out);
  EXPECT_EQ(invalid["rpki"], "invalid");
  EXPECT_EQ(invalid["view"], "adj_rib_in");
  for (const json& route : invalid["routes"]) EXPECT_EQ(route["peer"], "127.0.0.2");
  const json diff = json::parse(t.r().Sluice({"show", "configuration", "diff", "1", "--json"}).out);
  EXPECT_THAT(diff["changes"].dump(), HasSubstr("metric 8")) << diff.dump();
  EXPECT_THAT(diff["changes"].dump(), HasSubstr("metric 7")) << diff.dump();
}

TEST(CliJsonSystem, RouteLookupClearsAndAnOperatorsDisableThroughReloads) {
  Topology t;
  ASSERT_TRUE(t.Start()) << t.Logs();

  // The covering route, in the RIB and in the FIB.
  ASSERT_TRUE(Eventually([&] {
    return t.r().Sluice({"show", "route", "for", "10.1.2.3"}).out.find("FIB: 10.0.0.0/8") !=
           std::string::npos;
  })) << t.r().Sluice({"show", "route", "for", "10.1.2.3"}).out;
  const CommandResult lookup = t.r().Sluice({"show", "route", "for", "10.1.2.3"});
  EXPECT_THAT(lookup.out, HasSubstr("10.0.0.0/8     "));
  EXPECT_THAT(lookup.out, HasSubstr("static"));
  const json none = json::parse(t.r().Sluice({"show", "route", "for", "192.0.2.1", "--json"}).out);
  EXPECT_TRUE(none["rib"].is_null()) << none.dump();

  // soft in: a ROUTE-REFRESH goes to the peer.
  const uint64_t refreshes = t.Peer()["counters"]["route_refreshes_out"];
  CommandResult soft = t.r().Sluice({"clear", "bgp", "neighbor", "127.0.0.2", "soft", "in"});
  EXPECT_EQ(soft.exit_code, 0) << soft.err;
  EXPECT_TRUE(Eventually([&] {
    return t.Peer()["counters"]["route_refreshes_out"].get<uint64_t>() > refreshes;
  })) << t.Peer().dump();
  soft = t.r().Sluice({"clear", "bgp", "neighbor", "127.0.0.2", "soft", "out"});
  EXPECT_EQ(soft.exit_code, 0) << soft.err;
  // A hard clear: the session comes back (one more transition).
  const uint64_t transitions = t.Peer()["counters"]["established_transitions"];
  EXPECT_EQ(t.r().Sluice({"clear", "bgp", "neighbor", "127.0.0.2"}).exit_code, 0);
  EXPECT_TRUE(Eventually([&] {
    return t.Peer()["counters"]["established_transitions"].get<uint64_t>() > transitions &&
           t.Peer()["state"] == "Established";
  })) << t.Peer().dump();

  // An operator's disable, and a reload that leaves the peer alone: still down, and said so.
  CommandResult disable = t.r().Sluice({"disable", "bgp", "neighbor", "127.0.0.2"});
  ASSERT_EQ(disable.exit_code, 0) << disable.err;
  ASSERT_TRUE(t.Reload("upstream", "9")) << t.Logs();
  EXPECT_FALSE(t.Peer()["enabled"]) << t.Peer().dump();
  EXPECT_THAT(t.r().Sluice({"show", "bgp", "neighbor", "127.0.0.2"}).out,
              HasSubstr("administratively down (CLI)"));
  EXPECT_THAT(t.r().Sluice({"show", "bgp", "summary"}).out,
              HasSubstr("administratively down (CLI)"));
  // A reload that changes the peer applies the file: enabled, and the session comes back.
  ASSERT_TRUE(t.Reload("upstream, renamed", "10")) << t.Logs();
  EXPECT_TRUE(t.Established()) << t.Peer().dump() << t.Logs();
  EXPECT_FALSE(t.Peer()["disabled_by_operator"]);
  EXPECT_THAT(t.r().Sluice({"show", "bgp", "neighbor", "127.0.0.2"}).out,
              Not(HasSubstr("administratively down")));

  // The verbs refuse what is not a peer.
  EXPECT_EQ(t.r().Sluice({"disable", "bgp", "neighbor", "not-an-address"}).exit_code, 2);
  EXPECT_EQ(t.r().Sluice({"enable", "bgp", "neighbor", "127.0.0.9"}).exit_code, 1);
  EXPECT_EQ(t.r().Sluice({"clear", "bgp", "neighbor", "127.0.0.2", "soft", "sideways"}).exit_code,
            2);
}

}  // namespace
}  // namespace sluice::testing
