// finder { access { default allow | deny; operator-group G; admin-group G;
//                   CLASS { resolve [ TARGET[/INTERFACE/VERSION] ... ]; } }
//          listen ADDRESS port N; tls { ca FILE; certificate FILE; key FILE; } insecure; }
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "rtrmgr/config/config_builder.h"
#include "rtrmgr/config/config_reader.h"

namespace sluice::rtrmgr {
namespace {

// A component class or instance name (as registered with the Finder).
std::optional<std::string> ReadComponentName(const ConfigValue& v, std::string_view what,
                                             Diagnostics* diags) {
  return ReadName(v, "_.-", 64, false, what, diags);
}

// "rib", "rib/rib/1.0", "*" or "*/profile/1.0".
std::optional<ResolveRule> ReadResolveRule(const ConfigValue& v, Diagnostics* diags) {
  const std::vector<std::string> parts = absl::StrSplit(v.text, '/');
  ResolveRule rule;
  rule.where.loc = v.loc;
  auto bad = [&] {
    diags->Add(v.loc, absl::StrFormat("expected TARGET or TARGET/INTERFACE/VERSION (rib, "
                                      "rib/rib/1.0, *), found %s",
                                      v.Describe()));
    return std::nullopt;
  };
  if (v.kind != ConfigValue::Kind::kWord || (parts.size() != 1 && parts.size() != 3)) return bad();
  if (parts[0] == "*") {
    rule.target = parts[0];  // "*" (copying the part avoids a GCC 12 -Wrestrict false positive)
  } else {
    ConfigValue target = v;
    target.text = parts[0];
    auto name = ReadComponentName(target, "a Finder target", diags);
    if (!name) return std::nullopt;
    rule.target = *name;
  }
  if (parts.size() == 3) {
    ConfigValue interface = v;
    interface.text = parts[1];
    auto name = ReadComponentName(interface, "an interface name", diags);
    if (!name) return std::nullopt;
    // VERSION is MAJOR.MINOR.
    const std::vector<std::string> version = absl::StrSplit(parts[2], '.');
    bool ok = version.size() == 2;
    for (const std::string& n : version) {
      ok = ok && !n.empty() && n.size() <= 5 &&
           n.find_first_not_of("0123456789") == std::string::npos;
    }
    if (!ok) {
      diags->Add(v.loc, absl::StrFormat("interface version '%s' in %s is not MAJOR.MINOR", parts[2],
                                        v.text));
      return std::nullopt;
    }
    rule.interface = absl::StrFormat("%s/%s", *name, parts[2]);
  }
  return rule;
}

// A Unix group name: letters, digits, '_', '-', '.'.
void ReadGroup(const ConfigNode& s, std::string* group, Diagnostics* diags) {
  const ConfigValue* v = ExpectOne(s, absl::StrFormat("%s GROUP;", s.keyword), diags);
  if (!v) return;
  if (auto name = ReadName(*v, "_.-", 32, false, "a group name", diags)) *group = *name;
}

// tls { ca FILE; certificate FILE; key FILE; }: all three.
void ReadTls(const ConfigNode& n, FinderConfig* finder, Diagnostics* diags) {
  constexpr std::string_view kUsage = "tls { ca FILE; certificate FILE; key FILE; }";
  if (!ExpectBlock(n, 0, kUsage, diags)) return;
  FinderTls tls;
  auto file = [&](std::string* out) {
    return [out, diags](const ConfigNode& s) {
      const ConfigValue* v = ExpectOne(s, absl::StrFormat("%s FILE;", s.keyword), diags);
      if (!v) return;
      if (auto text = ReadText(*v, 4096, "a file name", diags)) *out = *text;
    };
  };
  BlockReader("tls", diags)
      .Once("ca", file(&tls.ca))
      .Once("certificate", file(&tls.certificate))
      .Once("key", file(&tls.key))
      .Read(n.children);
  if (tls.ca.empty() || tls.certificate.empty() || tls.key.empty()) {
    diags->Add(n.loc, absl::StrFormat("tls needs ca, certificate and key: %s", kUsage));
    return;
  }
  finder->tls = std::move(tls);
}

// listen ADDRESS port N;
void ReadFinderListen(const ConfigNode& s, FinderConfig* finder, Diagnostics* diags) {
  constexpr std::string_view kUsage = "listen ADDRESS port N;";
  if (!ExpectArgs(s, 3, kUsage, diags)) return;
  auto address = ReadAddress(s.args[0], nullptr, "the Finder's listen address", diags);
  if (!address) return;
  if (s.args[1].kind != ConfigValue::Kind::kWord || s.args[1].text != "port") {
    diags->Add(s.args[1].loc,
               absl::StrFormat("expected 'port', found %s: %s", s.args[1].Describe(), kUsage));
    return;
  }
  auto port = ReadNumber(s.args[2], 1, 65535, "the Finder's port", diags);
  if (!port) return;
  finder->listen.push_back(BgpListen{*address, static_cast<uint16_t>(*port), Where{s.loc}});
}

}  // namespace

void BuildFinder(const ConfigNode& node, FinderConfig* finder, Diagnostics* diags) {
  if (!ExpectBlock(node, 0, "finder { access { CLASS { resolve [ TARGET ... ]; } } }", diags)) {
    return;
  }
  BlockReader("finder", diags)
      .Once("access",
            [&](const ConfigNode& n) {
              if (!ExpectBlock(n, 0, "access { CLASS { resolve [ TARGET ... ]; } }", diags)) {
                return;
              }
              BlockReader("access", diags)
                  .Once("default",
                        [&](const ConfigNode& s) {
                          const ConfigValue* v = ExpectOne(s, "default allow | deny;", diags);
                          if (!v) return;
                          if (v->kind == ConfigValue::Kind::kWord &&
                              (v->text == "allow" || v->text == "deny")) {
                            finder->default_allow = v->text == "allow";
                          } else {
                            diags->Add(v->loc, absl::StrFormat("expected 'allow' or 'deny', "
                                                               "found %s",
                                                               v->Describe()));
                          }
                        })
                  .Once("operator-group",
                        [&](const ConfigNode& s) { ReadGroup(s, &finder->operator_group, diags); })
                  .Once("admin-group",
                        [&](const ConfigNode& s) { ReadGroup(s, &finder->admin_group, diags); })
                  .Otherwise([&](const ConfigNode& s) {
                    // The keyword is the caller's component class.
                    ConfigValue name{ConfigValue::Kind::kWord, s.keyword, {}, s.loc};
                    auto cls = ReadComponentName(name, "a component class", diags);
                    if (!cls) return;
                    if (!ExpectBlock(s, 0, "CLASS { resolve [ TARGET ... ]; }", diags)) return;
                    if (auto it = finder->access.find(*cls); it != finder->access.end()) {
                      diags->Add(s.loc, absl::StrFormat("access of class '%s' is already "
                                                        "defined at %s",
                                                        *cls, it->second.where.loc.ToString()));
                      return;
                    }
                    FinderClassAccess access;
                    access.where.loc = s.loc;
                    BlockReader(absl::StrFormat("access %s", *cls), diags)
                        .Many("resolve",
                              [&](const ConfigNode& r) {
                                if (!ExpectArgs(r, 1, "resolve [ TARGET[/INTERFACE/VERSION] ... ];",
                                                diags)) {
                                  return;
                                }
                                for (const ConfigValue* v : Members(r.args[0])) {
                                  auto rule = ReadResolveRule(*v, diags);
                                  if (!rule) continue;
                                  bool repeated = false;
                                  for (const ResolveRule& x : access.resolve) {
                                    repeated = repeated || x == *rule;
                                  }
                                  if (repeated) {
                                    diags->Add(v->loc, absl::StrFormat("'%s' is listed twice",
                                                                       rule->ToString()));
                                    continue;
                                  }
                                  access.resolve.push_back(*rule);
                                }
                              })
                        .Read(s.children);
                    finder->access.emplace(*cls, std::move(access));
                  })
                  .Read(n.children);
            })
      .Many("listen", [&](const ConfigNode& s) { ReadFinderListen(s, finder, diags); })
      .Once("tls", [&](const ConfigNode& s) { ReadTls(s, finder, diags); })
      .Once("insecure",
            [&](const ConfigNode& s) {
              if (ExpectArgs(s, 0, "insecure;", diags)) finder->insecure = true;
            })
      .Read(node.children);
}

}  // namespace sluice::rtrmgr
