// interfaces { interface NAME { address A/LEN; ... mtu N; mac M; disable; description "..."; } }
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "rtrmgr/config/config_builder.h"
#include "rtrmgr/config/config_reader.h"

namespace sluice::rtrmgr {
namespace {

constexpr uint32_t kMinMtu = 68;        // RFC 791
constexpr uint32_t kMinMtuIPv6 = 1280;  // RFC 8200 §5
constexpr uint32_t kMaxMtu = 65536;

// "A/LEN" with LEN 1..32 or 1..128 for the address's family.
std::optional<InterfaceAddressConfig> ReadInterfaceAddress(const ConfigValue& v, Diagnostics* d) {
  const size_t slash = v.text.find('/');
  if (v.kind != ConfigValue::Kind::kWord || slash == std::string::npos) {
    d->Add(v.loc, absl::StrFormat("expected an interface address ADDRESS/LENGTH "
                                  "(10.0.0.1/24, 2001:db8::1/64), found %s",
                                  v.Describe()));
    return std::nullopt;
  }
  ConfigValue address = v;
  address.text = v.text.substr(0, slash);
  auto a = ReadAddress(address, nullptr, "interface address", d);
  if (!a) return std::nullopt;
  int length = -1;
  const std::string len_text = v.text.substr(slash + 1);
  if (!absl::SimpleAtoi(len_text, &length) || len_text.empty() || len_text[0] == '+' ||
      len_text[0] == '-' || length < 1 || length > a->bits()) {
    d->Add(v.loc, absl::StrFormat("prefix length '%s' of %s is out of range 1..%d", len_text,
                                  v.text, a->bits()));
    return std::nullopt;
  }
  if (IsMulticast(*a)) {
    d->Add(v.loc, absl::StrFormat("interface address %s is a multicast address", address.text));
    return std::nullopt;
  }
  return InterfaceAddressConfig{*a, length, Where{v.loc}};
}

std::optional<std::array<uint8_t, 6>> ReadMac(const ConfigValue& v, Diagnostics* d) {
  std::array<uint8_t, 6> mac{};
  bool ok = v.kind == ConfigValue::Kind::kWord && v.text.size() == 17;
  for (size_t i = 0; ok && i < 6; ++i) {
    const std::string octet = v.text.substr(3 * i, 2);
    int value = 0;
    ok = (i == 5 || v.text[3 * i + 2] == ':') && absl::ascii_isxdigit(octet[0]) &&
         absl::ascii_isxdigit(octet[1]) && absl::SimpleHexAtoi(octet, &value);
    mac[i] = static_cast<uint8_t>(value);
  }
  if (!ok) {
    d->Add(v.loc, absl::StrFormat("expected a MAC address (six hex octets: 02:00:5e:10:00:01), "
                                  "found %s",
                                  v.Describe()));
    return std::nullopt;
  }
  return mac;
}

}  // namespace

void BuildInterfaces(const ConfigNode& node, Config* config, Diagnostics* diags) {
  if (!ExpectBlock(node, 0, "interfaces { interface NAME { ... } }", diags)) return;
  // Every address of every interface, to refuse one address on two interfaces.
  std::map<net::IPAddress, std::pair<std::string, Location>> addresses;
  BlockReader(std::string("interfaces"), diags)
      .Many("interface",
            [&](const ConfigNode& n) {
              if (!ExpectBlock(n, 1, "interface NAME { address A/LEN; ... }", diags)) return;
              auto name = ReadName(n.args[0], "_.-", 15, true, "an interface name", diags);
              if (!name) return;
              if (*name == kLoopbackInterface) {
                diags->Add(n.args[0].loc,
                           "interface 'lo' is built into the dummy FEA (127.0.0.1/8, ::1/128); "
                           "configure another interface");
                return;
              }
              if (auto it = config->interfaces.find(*name); it != config->interfaces.end()) {
                diags->Add(n.args[0].loc, absl::StrFormat("interface '%s' is already defined at %s",
                                                          *name, it->second.where.loc.ToString()));
                return;
              }
              InterfaceConfig ifc;
              ifc.name = *name;
              ifc.where.loc = n.loc;
              const ConfigNode* mtu_node = nullptr;
              BlockReader(absl::StrFormat("interface %s", *name), diags)
                  .Many("address",
                        [&](const ConfigNode& s) {
                          const ConfigValue* v = ExpectOne(s, "address ADDRESS/LENGTH;", diags);
                          if (!v) return;
                          auto a = ReadInterfaceAddress(*v, diags);
                          if (!a) return;
                          auto [it, fresh] =
                              addresses.emplace(a->address, std::make_pair(*name, v->loc));
                          if (!fresh) {
                            diags->Add(v->loc, absl::StrFormat(
                                                   "address %s is already on interface %s at %s",
                                                   a->address.ToString(), it->second.first,
                                                   it->second.second.ToString()));
                            return;
                          }
                          ifc.addresses.push_back(*a);
                        })
                  .Once("mtu",
                        [&](const ConfigNode& s) {
                          const ConfigValue* v = ExpectOne(s, "mtu OCTETS;", diags);
                          if (!v) return;
                          if (auto mtu = ReadNumber(*v, kMinMtu, kMaxMtu, "mtu", diags)) {
                            ifc.mtu = static_cast<uint32_t>(*mtu);
                            mtu_node = &s;
                          }
                        })
                  .Once("mac",
                        [&](const ConfigNode& s) {
                          const ConfigValue* v = ExpectOne(s, "mac XX:XX:XX:XX:XX:XX;", diags);
                          if (v) ifc.mac = ReadMac(*v, diags);
                        })
                  .Once("disable",
                        [&](const ConfigNode& s) {
                          if (ExpectArgs(s, 0, "disable;", diags)) ifc.enabled = false;
                        })
                  .Once("description",
                        [&](const ConfigNode& s) {
                          const ConfigValue* v = ExpectOne(s, "description \"TEXT\";", diags);
                          if (!v) return;
                          if (auto t = ReadText(*v, 256, "description", diags))
                            ifc.description = *t;
                        })
                  .Read(n.children);
              if (mtu_node != nullptr && ifc.mtu < kMinMtuIPv6) {
                for (const InterfaceAddressConfig& a : ifc.addresses) {
                  if (!a.address.is_v6()) continue;
                  diags->Add(mtu_node->args[0].loc,
                             absl::StrFormat("mtu %d is below IPv6's minimum of %d and interface "
                                             "%s has IPv6 address %s",
                                             ifc.mtu, kMinMtuIPv6, ifc.name, a.ToString()));
                  break;
                }
              }
              config->interfaces.emplace(ifc.name, std::move(ifc));
            })
      .Read(node.children);
}

}  // namespace sluice::rtrmgr
