// protocols { bgp { network PREFIX [{ next-hop A; origin igp | egp | incomplete; med N;
//                                    local-pref N; community [ C .. ]; large-community [ L .. ];
//                                  }] } }: routes this router originates into BGP.
#include "absl/strings/str_format.h"
#include "policy/community.h"
#include "rtrmgr/config/config_builder.h"
#include "rtrmgr/config/config_reader.h"

namespace sluice::rtrmgr {
namespace {

// community [ 65000:100 no-export ]; kept in policy::CommunityToString's spelling.
void ReadCommunities(const ConfigNode& s, bool large, std::vector<std::string>* out,
                     Diagnostics* diags) {
  const std::string usage =
      absl::StrFormat("%s [ %s ... ];", s.keyword, large ? "GLOBAL:LOCAL1:LOCAL2" : "HIGH:LOW");
  if (!ExpectArgs(s, 1, usage, diags)) return;
  for (const ConfigValue* v : Members(s.args[0])) {
    std::string text;
    if (large) {
      auto c = policy::ParseLargeCommunity(v->text);
      if (!c.ok()) {
        diags->Add(v->loc, std::string(c.status().message()));
        continue;
      }
      text = policy::LargeCommunityToString(*c);
    } else {
      auto c = policy::ParseCommunity(v->text);
      if (!c.ok()) {
        diags->Add(v->loc, std::string(c.status().message()));
        continue;
      }
      text = policy::CommunityToString(*c);
    }
    if (std::find(out->begin(), out->end(), text) != out->end()) {
      diags->Add(v->loc, absl::StrFormat("%s %s is listed twice", s.keyword, text));
      continue;
    }
    out->push_back(text);
  }
}

}  // namespace

void BuildNetwork(const ConfigNode& n, BgpConfig* bgp, Diagnostics* diags) {
  constexpr std::string_view kUsage =
      "network PREFIX; or network PREFIX { next-hop A; med N; local-pref N; ... }";
  if (n.args.size() != 1) {
    if (n.has_block) {
      ExpectBlock(n, 1, kUsage, diags);
    } else {
      ExpectArgs(n, 1, kUsage, diags);
    }
    return;
  }
  auto prefix = ReadPrefix(n.args[0], "network", diags);
  if (!prefix) return;
  if (auto it = bgp->networks.find(*prefix); it != bgp->networks.end()) {
    diags->Add(n.args[0].loc, absl::StrFormat("network %s is already given at %s",
                                              prefix->ToString(), it->second.where.loc.ToString()));
    return;
  }
  BgpNetwork net;
  net.prefix = *prefix;
  net.where.loc = n.loc;
  const net::Family family = prefix->family();
  BlockReader(absl::StrFormat("network %s", prefix->ToString()), diags)
      .Once("next-hop",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "next-hop ADDRESS;", diags);
              if (v) net.next_hop = ReadAddress(*v, &family, "next-hop", diags);
            })
      .Once("origin",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "origin igp | egp | incomplete;", diags);
              if (!v) return;
              if (v->text == "igp") {
                net.origin = BgpOrigin::kIgp;
              } else if (v->text == "egp") {
                net.origin = BgpOrigin::kEgp;
              } else if (v->text == "incomplete") {
                net.origin = BgpOrigin::kIncomplete;
              } else {
                diags->Add(v->loc, absl::StrFormat("expected 'igp', 'egp' or 'incomplete', "
                                                   "found %s",
                                                   v->Describe()));
              }
            })
      .Once("med",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "med N;", diags);
              auto m = v ? ReadNumber(*v, 0, 0xffffffff, "med", diags) : std::nullopt;
              if (m) net.med = static_cast<uint32_t>(*m);
            })
      .Once("local-pref",
            [&](const ConfigNode& s) {
              const ConfigValue* v = ExpectOne(s, "local-pref N;", diags);
              auto m = v ? ReadNumber(*v, 0, 0xffffffff, "local-pref", diags) : std::nullopt;
              if (m) net.local_pref = static_cast<uint32_t>(*m);
            })
      .Once("community",
            [&](const ConfigNode& s) { ReadCommunities(s, false, &net.communities, diags); })
      .Once("large-community",
            [&](const ConfigNode& s) { ReadCommunities(s, true, &net.large_communities, diags); })
      .Read(n.children);
  bgp->networks.emplace(net.prefix, std::move(net));
}

}  // namespace sluice::rtrmgr
