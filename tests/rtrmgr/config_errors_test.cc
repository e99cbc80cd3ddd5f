// Every kind of configuration error names the file, line and column of what is wrong and says
// what is wrong; errors are collected, not just the first; nothing is returned on an error.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rtrmgr/config/config_loader.h"

namespace sluice::rtrmgr {
namespace {

struct ErrorCase {
  const char* name;
  const char* text;
  const char* errors;  // the status message: one "t.conf:LINE:COL: ..." per line
};

// A BGP block prefix that is itself right, so each case shows one mistake.
#define BGP "protocols { bgp { local-as 1; bgp-id 1.1.1.1; "

const ErrorCase kCases[] = {
    // ---- syntax
    {"missing semicolon before brace", "fea { backend dummy }",
     "t.conf:1:21: expected ';' or '{' after 'backend dummy', found '}'"},
    {"missing semicolon between statements",
     BGP "peer 127.0.0.2 { as 2\n local-ip 127.0.0.1; } } }",
     "t.conf:2:2: expected ';' after 'as 2', found 'local-ip'"},
    {"unclosed blocks", "protocols {\n  bgp {\n    local-as 1;\n    bgp-id 1.1.1.1;\n",
     "t.conf:5:1: expected '}' closing 'bgp' opened at line 2, found end of input\n"
     "t.conf:5:1: expected '}' closing 'protocols' opened at line 1, found end of input"},
    {"unmatched brace", "fea { }\n}\n", "t.conf:2:1: unmatched '}'"},
    {"unterminated string", "fea { backend \"dummy; }",
     "t.conf:1:15: unterminated string (missing '\"')"},
    {"unterminated comment", "fea { } /* no end",
     "t.conf:1:9: unterminated comment (missing '*/')"},
    {"unclosed list", BGP "peer 127.0.0.2 { as 2; import [ a b ; } } }",
     "t.conf:1:83: expected ']' closing the list opened at line 1 column 77, found ';'"},
    {"statement without keyword", ";", "t.conf:1:1: expected a keyword, found ';'"},
    {"string as keyword", "\"fea\" { }\nfea { }", "t.conf:1:1: expected a keyword, found \"fea\""},
    // ---- unknown keywords
    {"unknown section", "protocol { }",
     "t.conf:1:1: unknown keyword 'protocol' in the configuration (expected one of: interfaces, "
     "fea, rib, protocols, policy, finder, metrics, log, user)"},
    {"unknown protocol", "protocols { ospf { } }",
     "t.conf:1:13: unknown keyword 'ospf' in protocols (expected one of: static, rpki, bgp)"},
    {"unknown peer keyword", BGP "peer 127.0.0.2 { as 2; remote-as 2; } } }",
     "t.conf:1:70: unknown keyword 'remote-as' in peer 127.0.0.2 (expected one of: as, local-ip, "
     "port, passive, md5-password, hold-time, keepalive, connect-retry, family, import, export, "
     "route-reflector-client, next-hop-self, next-hop6, max-prefix, adj-rib-in-limit, "
     "enforce-first-as, "
     "ttl-security, multihop, damping, graceful-restart, disable, description)"},
    {"graceful-restart in a peer takes only disable",
     BGP "peer 127.0.0.2 { as 2; graceful-restart 120; } } }",
     "t.conf:1:87: graceful-restart takes 'disable' in a peer (the timers are set in bgp { "
     "graceful-restart { ... } })"},
    {"restart time over 12 bits", BGP "graceful-restart { restart-time 4096; } } }",
     "t.conf:1:79: restart-time (RFC 4724: 12 bits) 4096 is out of range 0..4095"},
    // ---- peer timers, families, multihop, groups, networks, cluster-id
    {"keepalive not below the hold time",
     BGP "peer 127.0.0.2 { as 2; hold-time 9; keepalive 9; } } }",
     "t.conf:1:93: peer 127.0.0.2: keepalive 9 must be 1..8, below hold-time 9 (at t.conf:1:80) "
     "(RFC 4271 §4.4; 0 only with hold-time 0)"},
    {"keepalive over the default hold time", BGP "peer 127.0.0.2 { as 2; keepalive 90; } } }",
     "t.conf:1:80: peer 127.0.0.2: keepalive 90 must be 1..89, below hold-time 90 (the default) "
     "(RFC 4271 §4.4; 0 only with hold-time 0)"},
    {"keepalive 0 with a hold time", BGP "peer 127.0.0.2 { as 2; keepalive 0; } } }",
     "t.conf:1:80: peer 127.0.0.2: keepalive 0 must be 1..89, below hold-time 90 (the default) "
     "(RFC 4271 §4.4; 0 only with hold-time 0)"},
    {"keepalive with hold time 0", BGP "peer 127.0.0.2 { as 2; hold-time 0; keepalive 3; } } }",
     "t.conf:1:93: peer 127.0.0.2: keepalive 3 with hold-time 0 (at t.conf:1:80): with no hold "
     "time there are no keepalives, so keepalive must be 0 (RFC 4271 §4.4)"},
    {"keepalive not a number", BGP "peer 127.0.0.2 { as 2; keepalive soon; } } }",
     "t.conf:1:80: expected keepalive (a number 0..65534), found 'soon'"},
    {"connect-retry 0", BGP "peer 127.0.0.2 { as 2; connect-retry 0; } } }",
     "t.conf:1:84: connect-retry 0 is out of range 1s..1h"},
    {"unknown family", BGP "peer 127.0.0.2 { as 2; family [ ipv4-unicast l2vpn-evpn ]; } } }",
     "t.conf:1:92: expected 'ipv4-unicast' or 'ipv6-unicast', found 'l2vpn-evpn'"},
    {"family twice", BGP "peer 127.0.0.2 { as 2; family [ ipv6-unicast ipv6-unicast ]; } } }",
     "t.conf:1:92: family ipv6-unicast is listed twice"},
    {"no family", BGP "peer 127.0.0.2 { as 2; family [ ]; } } }",
     "t.conf:1:77: family needs at least one of ipv4-unicast, ipv6-unicast"},
    {"multihop out of range", BGP "peer 127.0.0.2 { as 2; multihop 256; } } }",
     "t.conf:1:79: multihop TTL 256 is out of range 1..255"},
    {"multihop with ttl-security", BGP "peer 127.0.0.2 { as 2; ttl-security 1; multihop 3; } } }",
     "t.conf:1:95: peer 127.0.0.2: multihop and ttl-security (at t.conf:1:83) both set the TTL; "
     "use one (ttl-security sends 255 and checks what arrives)"},
    {"multihop to an internal peer", BGP "peer 127.0.0.2 { as 1; multihop 3; } } }",
     "t.conf:1:79: multihop applies to external peers only: peer 127.0.0.2 has the local AS 1 "
     "(internal peers are not limited to one hop)"},
    {"cluster-id not IPv4", BGP "cluster-id 2001:db8::1; } }",
     "t.conf:1:58: cluster-id 2001:db8::1 is an IPv6 address; expected IPv4"},
    {"network with host bits", BGP "network 10.0.0.1/8; } }",
     "t.conf:1:55: host bits set in network '10.0.0.1/8' (did you mean 10.0.0.0/8?)"},
    {"network twice", BGP "network 10.0.0.0/8; network 10.0.0.0/8; } }",
     "t.conf:1:75: network 10.0.0.0/8 is already given at t.conf:1:47"},
    {"network next-hop of the other family", BGP "network 10.0.0.0/8 { next-hop ::1; } } }",
     "t.conf:1:77: next-hop ::1 is an IPv6 address; expected IPv4"},
    {"network unknown attribute", BGP "network 10.0.0.0/8 { weight 5; } } }",
     "t.conf:1:68: unknown keyword 'weight' in network 10.0.0.0/8 (expected one of: next-hop, "
     "origin, med, local-pref, community, large-community)"},
    {"network bad community", BGP "network 10.0.0.0/8 { community [ 65536:1 ]; } } }",
     "t.conf:1:80: bad community (expected AS:VALUE with each part 0..65535, or no-export, "
     "no-advertise, no-export-subconfed, no-peer, blackhole, graceful-shutdown) '65536:1'"},
    {"group twice", BGP "group g { as 2; } group g { as 3; } } }",
     "t.conf:1:71: group g is already defined at t.conf:1:47"},
    {"group peer without as", BGP "group g { passive; peer 127.0.0.2 { } } } }",
     "t.conf:1:66: peer 127.0.0.2 (group g) needs 'as AS-NUMBER;'"},
    {"group keepalive against a peer's hold time",
     BGP "group g { as 2; keepalive 30; peer 127.0.0.2 { hold-time 30; } } } }",
     "t.conf:1:73: peer 127.0.0.2 (group g): keepalive 30 must be 1..29, below hold-time 30 (at "
     "t.conf:1:104) (RFC 4271 §4.4; 0 only with hold-time 0)"},
    {"group unknown keyword", BGP "group g { as 2; bgp-id 1.2.3.4; } } }",
     "t.conf:1:63: unknown keyword 'bgp-id' in group g (expected one of: as, local-ip, port, "
     "passive, md5-password, hold-time, keepalive, connect-retry, family, import, export, "
     "route-reflector-client, next-hop-self, next-hop6, max-prefix, adj-rib-in-limit, "
     "enforce-first-as, "
     "ttl-security, multihop, damping, graceful-restart, disable, description, peer)"},
    // ---- bad values
    {"AS 0", "protocols { bgp { local-as 0; bgp-id 1.1.1.1; } }",
     "t.conf:1:28: local AS 0 is out of range 1..4294967295"},
    {"AS too large", "protocols { bgp { local-as 4294967296; bgp-id 1.1.1.1; } }",
     "t.conf:1:28: local AS 4294967296 is out of range 1..4294967295"},
    {"AS_TRANS", "protocols { bgp { local-as 23456; bgp-id 1.1.1.1; } }",
     "t.conf:1:28: local AS 23456 is AS_TRANS (RFC 6793), not a usable AS"},
    {"AS not a number", "protocols { bgp { local-as x; bgp-id 1.1.1.1; } }",
     "t.conf:1:28: expected local AS (a number 1..4294967295), found 'x'"},
    {"bgp-id of the wrong family", "protocols { bgp { local-as 1; bgp-id 2001:db8::1; } }",
     "t.conf:1:38: bgp-id 2001:db8::1 is an IPv6 address; expected IPv4"},
    {"bgp-id zero", "protocols { bgp { local-as 1; bgp-id 0.0.0.0; } }",
     "t.conf:1:38: bgp-id 0.0.0.0 is the unspecified address"},
    {"hold time 2", BGP "peer 127.0.0.2 { as 2; hold-time 2; } } }",
     "t.conf:1:80: hold-time 2: must be 0 or 3..65535 seconds (RFC 4271 §4.2)"},
    {"hold time too large", BGP "peer 127.0.0.2 { as 2; hold-time 65536; } } }",
     "t.conf:1:80: hold-time 65536 is out of range 0..65535"},
    {"threads", BGP "threads 257; } }", "t.conf:1:55: threads 257 is out of range 1..256"},
    {"threads zero", BGP "threads 0; } }", "t.conf:1:55: threads 0 is out of range 1..256"},
    {"local-ip of the other family", BGP "peer 127.0.0.2 { as 2; local-ip ::1; } } }",
     "t.conf:1:79: local-ip ::1 is an IPv6 address; expected IPv4"},
    {"next-hop6 not IPv6", BGP "peer 127.0.0.2 { as 2; next-hop6 192.0.2.1; } } }",
     "t.conf:1:80: next-hop6 192.0.2.1 is an IPv4 address; expected IPv6"},
    {"local-ip is the peer", BGP "peer 127.0.0.2 { as 2; local-ip 127.0.0.2; } } }",
     "t.conf:1:79: local-ip is the peer's own address"},
    {"peer address", BGP "peer 127.0.0.300 { as 2; } } }",
     "t.conf:1:52: expected peer address (an IPv4 or IPv6 address), found '127.0.0.300'"},
    {"multicast peer", BGP "peer ff02::5 { as 2; } } }",
     "t.conf:1:52: peer address ff02::5 is a multicast address"},
    {"port", BGP "peer 127.0.0.2 { as 2; port 0; } } }",
     "t.conf:1:75: port 0 is out of range 1..65535"},
    {"prefix length", "interfaces { interface eth0 { address 10.0.0.1/33; } }",
     "t.conf:1:39: prefix length '33' of 10.0.0.1/33 is out of range 1..32"},
    {"address without length", "interfaces { interface eth0 { address 10.0.0.1; } }",
     "t.conf:1:39: expected an interface address ADDRESS/LENGTH (10.0.0.1/24, 2001:db8::1/64), "
     "found '10.0.0.1'"},
    {"multicast interface address", "interfaces { interface eth0 { address 224.0.0.1/24; } }",
     "t.conf:1:39: interface address 224.0.0.1 is a multicast address"},
    {"interface name too long", "interfaces { interface this-name-is-too-long { } }",
     "t.conf:1:24: expected an interface name (1..15 characters: letters, digits and '_.-'), "
     "found 'this-name-is-too-long'"},
    {"loopback is built in", "interfaces { interface lo { } }",
     "t.conf:1:24: interface 'lo' is built into the dummy FEA (127.0.0.1/8, ::1/128); configure "
     "another interface"},
    {"mtu", "interfaces { interface eth0 { mtu 10; } }",
     "t.conf:1:35: mtu 10 is out of range 68..65536"},
    {"mtu below IPv6 minimum",
     "interfaces { interface eth0 { address 2001:db8::1/64; mtu 1000; } }",
     "t.conf:1:59: mtu 1000 is below IPv6's minimum of 1280 and interface eth0 has IPv6 address "
     "2001:db8::1/64"},
    {"mac", "interfaces { interface eth0 { mac 02:00:00:00:00; } }",
     "t.conf:1:35: expected a MAC address (six hex octets: 02:00:5e:10:00:01), found "
     "'02:00:00:00:00'"},
    {"route with host bits", "protocols { static { route 10.0.0.1/8 { next-hop 1.2.3.4; } } }",
     "t.conf:1:28: host bits set in route prefix '10.0.0.1/8' (did you mean 10.0.0.0/8?)"},
    {"next hop of the other family",
     "protocols { static { route 10.0.0.0/8 { next-hop 2001:db8::1; } } }",
     "t.conf:1:50: next-hop 2001:db8::1 is an IPv6 address; expected IPv4"},
    {"link-local next hop without interface",
     "protocols { static { route 2001:db8::/32 { next-hop fe80::1; } } }",
     "t.conf:1:22: route 2001:db8::/32: link-local next-hop fe80::1 needs an interface"},
    {"route without next hop", "protocols { static { route 10.0.0.0/8 { metric 5; } } }",
     "t.conf:1:22: route 10.0.0.0/8 needs a next-hop or an interface (or both)"},
    {"track without next hop",
     "interfaces { interface eth0 { } }\n"
     "protocols { static { route 10.0.0.0/8 { interface eth0; track; } } }",
     "t.conf:2:57: route 10.0.0.0/8: track needs a next-hop to track"},
    {"md5 password too long",
     BGP "peer 127.0.0.2 { as 2; md5-password "
         "\"123456789012345678901234567890123456789012345678901234567890123456789012345678901\"; "
         "} } }",
     "t.conf:1:83: md5-password of 81 octets is too long (at most 80)"},
    {"backend", "fea { backend foo; }",
     "t.conf:1:15: expected a FEA backend ('dummy' or 'netlink'), found 'foo'"},
    {"local table", "fea { table 255; }",
     "t.conf:1:13: kernel table 255 is the kernel's local table; choose another (254 is main)"},
    {"retain-on-exit with a value", "fea { retain-on-exit yes; }",
     "t.conf:1:22: expected ';' after 'retain-on-exit', found 'yes'"},
    {"rib restart time too long", "rib { restart-time 2h; }",
     "t.conf:1:20: restart-time 2h is out of range 1s..1h"},
    {"rib restart time zero", "rib { restart-time 0; }",
     "t.conf:1:20: restart-time 0 is out of range 1s..1h"},
    {"rib backlog too large", "rib { fea-max-backlog 100000001; }",
     "t.conf:1:23: fea-max-backlog 100000001 is out of range 0..100000000"},
    {"admin distance", "rib { admin-distance { ebgp 256; } }",
     "t.conf:1:29: admin distance 256 is out of range 0..255"},
    {"protocol name case", "rib { admin-distance { EBGP 2; } }",
     "t.conf:1:24: protocol names are lower case: 'ebgp'"},
    {"max-prefix action", BGP "peer 127.0.0.2 { as 2; max-prefix 10 foo; } } }",
     "t.conf:1:84: expected 'received', 'accepted', 'warn' or 'restart' after the max-prefix "
     "limit, found 'foo'"},
    {"max-prefix count after the action",
     BGP "peer 127.0.0.2 { as 2; max-prefix 10 warn accepted; } } }",
     "t.conf:1:89: expected ';' after 'max-prefix 10 warn', found 'accepted'"},
    {"adj-rib-in-limit not a number", BGP "peer 127.0.0.2 { as 2; adj-rib-in-limit lots; } } }",
     "t.conf:1:87: expected adj-rib-in-limit (a number 0..4294967295), found 'lots'"},
    {"enforce-first-as neither on nor off", BGP "peer 127.0.0.2 { as 2; enforce-first-as no; } } }",
     "t.conf:1:87: expected 'on' or 'off' after enforce-first-as, found 'no'"},
    {"max-prefix zero", BGP "peer 127.0.0.2 { as 2; max-prefix 0; } } }",
     "t.conf:1:81: max-prefix limit 0 is out of range 1..4294967295"},
    {"ttl-security", BGP "peer 127.0.0.2 { as 2; ttl-security 255; } } }",
     "t.conf:1:83: ttl-security hops 255 is out of range 1..254"},
    {"damping thresholds", BGP "damping { reuse 800; suppress 700; } } }",
     "t.conf:1:68: damping: the suppress threshold (700) must be above the reuse threshold (800)"},
    {"damping duration unit", BGP "damping { half-life 1d; } } }",
     "t.conf:1:67: expected half-life (a duration such as 90s, 15m or 1h), found '1d'"},
    {"damping duration range", BGP "damping { half-life 46m; } } }",
     "t.conf:1:67: half-life 46m is out of range 1s..45m"},
    {"damping max-suppress", BGP "damping { half-life 45m; max-suppress 30m; } } }",
     "t.conf:1:72: damping: max-suppress 30m is shorter than half-life 45m"},
    {"damping ceiling",
     BGP "damping { half-life 30m; max-suppress 30m; reuse 750; suppress 2000; } } }",
     "t.conf:1:101: damping: suppress 2000 is above the ceiling reuse * 2^(max-suppress / "
     "half-life) = 1500, so nothing would ever be suppressed"},
    {"flag with a value", BGP "peer 127.0.0.2 { as 2; passive yes; } } }",
     "t.conf:1:78: expected ';' after 'passive', found 'yes'"},
    {"flag with a block", BGP "peer 127.0.0.2 { as 2; passive { } } } }",
     "t.conf:1:70: 'passive' takes no block: passive;"},
    {"list where one value goes", BGP "peer 127.0.0.2 { as [ 2 3 ]; } } }",
     "t.conf:1:67: 'as' takes one value, not a list: as AS-NUMBER;"},
    {"policy name", BGP "peer 127.0.0.2 { as 2; import [ 1st ]; } } }",
     "t.conf:1:79: expected a policy name (1..64 characters: letters, digits and '_.-'), found "
     "'1st'"},
    {"resolve rule", "finder { access { bgp { resolve [ rib/rib ]; } } }",
     "t.conf:1:35: expected TARGET or TARGET/INTERFACE/VERSION (rib, rib/rib/1.0, *), found "
     "'rib/rib'"},
    {"resolve version", "finder { access { bgp { resolve [ rib/rib/one ]; } } }",
     "t.conf:1:35: interface version 'one' in rib/rib/one is not MAJOR.MINOR"},
    {"finder default", "finder { access { default maybe; } }",
     "t.conf:1:27: expected 'allow' or 'deny', found 'maybe'"},
    {"listen port", BGP "listen 127.0.0.1 port; } }",
     "t.conf:1:64: 'port' needs a port number 1..65535"},
    // ---- missing statements
    {"peer without AS", BGP "peer 127.0.0.2 { } } }",
     "t.conf:1:47: peer 127.0.0.2 needs 'as AS-NUMBER;'"},
    {"bgp without identity", "protocols { bgp { peer 127.0.0.2 { as 2; } } }",
     "t.conf:1:13: bgp needs 'local-as AS-NUMBER;'\nt.conf:1:13: bgp needs 'bgp-id A.B.C.D;'"},
    {"block without a name", "interfaces { interface { } }",
     "t.conf:1:14: 'interface' needs a name: interface NAME { address A/LEN; ... }"},
    {"value missing", "fea { backend; }",
     "t.conf:1:7: 'backend' needs a value: backend dummy | netlink;"},
    // ---- duplicates
    {"duplicate peer", BGP "peer 127.0.0.2 { as 2; }\n peer 127.0.0.2 { as 3; } } }",
     "t.conf:2:7: peer 127.0.0.2 is already defined at t.conf:1:47"},
    {"duplicate peer, other spelling", BGP "peer ::1 { as 2; }\n peer 0::1 { as 3; } } }",
     "t.conf:2:7: peer ::1 is already defined at t.conf:1:47"},
    {"duplicate interface", "interfaces { interface eth0 { }\n interface eth0 { } }",
     "t.conf:2:12: interface 'eth0' is already defined at t.conf:1:14"},
    {"duplicate route",
     "protocols { static { route 10.0.0.0/8 { next-hop 1.1.1.1; }\n"
     " route 10.0.0.0/8 { next-hop 1.1.1.2; } } }",
     "t.conf:2:8: route 10.0.0.0/8 is already defined at t.conf:1:22"},
    {"address on two interfaces",
     "interfaces { interface eth0 { address 10.0.0.1/24; }\n"
     " interface eth1 { address 10.0.0.1/16; } }",
     "t.conf:2:27: address 10.0.0.1 is already on interface eth0 at t.conf:1:39"},
    {"statement twice", BGP "peer 127.0.0.2 { as 2;\n as 3; } } }",
     "t.conf:2:2: 'as' given twice in peer 127.0.0.2 (first at t.conf:1:64)"},
    {"section twice", "fea { }\nfea { }",
     "t.conf:2:1: 'fea' given twice in the configuration (first at t.conf:1:1)"},
    {"admin distance twice", "rib { admin-distance { ebgp 30;\n ebgp 40; } }",
     "t.conf:2:2: admin distance of 'ebgp' is already set at t.conf:1:24"},
    {"policy twice in a chain",
     BGP "peer 127.0.0.2 { as 2; import [ a a ]; } } }\n"
         "policy { policy-statement a { term t { then { accept; } } } }",
     "t.conf:1:81: policy 'a' appears twice in the import chain"},
    {"listen twice", BGP "listen ::1;\nlisten ::1 port 179; } }",
     "t.conf:2:1: listen ::1 port 179 is already given at t.conf:1:47"},
    // ---- references
    {"undefined import policy", BGP "peer 127.0.0.2 { as 2; import [ nope ]; } } }",
     "t.conf:1:79: import policy 'nope' is not defined (no policy-statement nope in the policy "
     "block)"},
    {"export of a set",
     BGP "peer 127.0.0.2 { as 2; export l; } } }\npolicy { prefix-list l { 10.0.0.0/8; } }",
     "t.conf:1:77: export policy 'l' is a prefix-list, not a policy-statement"},
    {"static route via unknown interface",
     "protocols { static { route 10.0.0.0/8 { interface eth9; } } }",
     "t.conf:1:51: route 10.0.0.0/8: interface 'eth9' is not configured (interfaces: lo)"},
    {"local-ip not on an interface",
     "interfaces { interface eth0 { address 10.0.1.1/24; } }\n" BGP
     "peer 10.0.0.2 { as 2; local-ip 10.0.0.1; } } }",
     "t.conf:2:78: local-ip 10.0.0.1 of peer 10.0.0.2 is not an address of any configured "
     "interface (the dummy FEA has: lo 127.0.0.1/8 ::1/128, eth0 10.0.1.1/24)"},
    {"listen address not local", BGP "listen 10.0.0.1; } }",
     "t.conf:1:47: listen address 10.0.0.1 is not an address of any configured interface (the "
     "dummy FEA has: lo 127.0.0.1/8 ::1/128)"},
    {"route reflector client on eBGP", BGP "peer 127.0.0.2 { as 2; route-reflector-client; } } }",
     "t.conf:1:70: route-reflector-client applies to iBGP peers only (RFC 4456): peer 127.0.0.2 "
     "has AS 2, the local AS is 1"},
    {"interfaces with netlink", "fea { backend netlink; }\ninterfaces { interface eth0 { } }",
     "t.conf:2:1: with 'backend netlink' the FEA reads interfaces and addresses from the kernel; "
     "remove the interfaces block or use 'backend dummy'"},
    // ---- protocols { rpki { } }
    {"rpki port", "protocols {\n  rpki { cache 127.0.0.1 { port 0; } }\n}",
     "t.conf:2:33: port 0 is out of range 1..65535"},
    {"rpki preference", "protocols { rpki { cache ::1 { preference 256; } } }",
     "t.conf:1:43: preference 256 is out of range 0..255"},
    {"rpki address", "protocols { rpki { cache 10.0.0.0/8; } }",
     "t.conf:1:26: expected cache address (an IPv4 or IPv6 address), found '10.0.0.0/8'"},
    {"rpki expire below RFC 8210's bound", "protocols { rpki { cache ::1 { expire 599; } } }",
     "t.conf:1:39: expire 599 is out of range 10m..48h"},
    {"rpki expire not above refresh",
     "protocols { rpki { cache ::1 { refresh 900; expire 900; } } }",
     "t.conf:1:52: expire 900 must be more than refresh (900) and retry (600) (RFC 8210 section "
     "6)"},
    {"rpki cache twice",
     "protocols { rpki {\n cache 127.0.0.1;\n cache 127.0.0.1 { preference 3; } } }",
     "t.conf:3:8: cache 127.0.0.1 port 323 is already defined at t.conf:2:2"},
    {"remote-only without a TCP Finder", "fea { remote-only; }",
     "t.conf:1:1: fea remote-only: the FEAs on other hosts reach the Finder over TCP; give the "
     "finder block a listen address (finder { listen ADDRESS port N; tls { ... } })"},
    {"remote-only with interfaces",
     "finder { listen 10.0.0.1 port 7001; insecure; }\nfea { remote-only; }\n"
     "interfaces { interface eth0 { } }",
     "t.conf:3:14: interface eth0: with fea remote-only there is no local FEA to configure; each "
     "remote FEA reports its own interfaces"},
    {"rpki unknown statement", "protocols { rpki { cache ::1 { refesh 900; } } }",
     "t.conf:1:32: unknown keyword 'refesh' in cache ::1 (expected one of: port, preference, "
     "refresh, retry, expire)"},
    // ---- the policy block: the policy parser's and compiler's errors at absolute positions
    {"policy syntax", "policy {\n  prefix-list l {\n    10.0.0.0/8 sideways;\n  }\n}",
     "t.conf:3:16: expected ';', found 'sideways'"},
    {"policy value on the block's first line",
     "fea { backend dummy; }\npolicy { prefix-list l { 10.0.0.1/8; } }",
     "t.conf:2:26: host bits set in prefix '10.0.0.1/8' (did you mean 10.0.0.0/8?)"},
    {"policy with a tab", "policy {\n\tpolicy-statement p { term t { then { local-pref x; } } }\n}",
     "t.conf:2:50: expected a local-pref value (a number 0..4294967295), found 'x'"},
    {"policy not closed", "policy { prefix-list l { 10.0.0.0/8; } ",
     "t.conf:1:40: expected '}' closing the policy block, found end of input"},
    {"policy compile error",
     "policy {\n  policy-statement p {\n    term t { from { prefix-list missing; } then { accept; "
     "} }\n  }\n}",
     "t.conf:3:33: unknown prefix-list 'missing'"},
};

TEST(ConfigErrors, EachKindNamesFileLineAndColumn) {
  for (const ErrorCase& c : kCases) {
    SCOPED_TRACE(c.name);
    auto config = ParseConfig(c.text, "t.conf");
    ASSERT_FALSE(config.ok()) << c.text;
    EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(config.status().message()), c.errors) << c.text;
  }
}

TEST(ConfigErrors, AllErrorsOfAFileAreReportedInFileOrder) {
  const char* text = R"(interfaces {
    interface eth0 { mtu 9; }
}
fea { backend kernel; }
protocols {
    bgp {
        local-as 65000;
        bgp-id 10.0.0.1;
        peer 127.0.0.2 { as 65001; hold-time 1; import [ missing ]; }
        peer 127.0.0.3 { as 65002; local-ip 192.0.2.1; }
    }
}
policy {
    policy-statement p { term t { from { community nope; } then { accept; } } }
}
)";
  Diagnostics diags;
  EXPECT_FALSE(ReadConfig(text, "f.conf", &diags).has_value());
  std::vector<std::string> got;
  for (const Diagnostic& d : diags.Sorted()) got.push_back(d.ToString());
  EXPECT_THAT(got, testing::ElementsAre(
                       "f.conf:2:26: mtu 9 is out of range 68..65536",
                       "f.conf:4:15: expected a FEA backend ('dummy' or 'netlink'), found 'kernel'",
                       "f.conf:9:46: hold-time 1: must be 0 or 3..65535 seconds (RFC 4271 §4.2)",
                       "f.conf:9:58: import policy 'missing' is not defined (no policy-statement "
                       "missing in the policy block)",
                       "f.conf:10:45: local-ip 192.0.2.1 of peer 127.0.0.3 is not an address of "
                       "any configured interface (the dummy FEA has: lo 127.0.0.1/8 ::1/128, eth0)",
                       "f.conf:14:52: unknown community-list 'nope'"));
}

TEST(ConfigErrors, SyntaxErrorsStopTheLaterChecks) {
  // The missing ';' is reported; the undefined policy is not looked at in a broken tree.
  auto c = ParseConfig(
      "protocols { bgp { local-as 1; bgp-id 1.1.1.1\n"
      "peer 127.0.0.2 { as 2; import nope; } } }\nfea { backend dummy }",
      "t.conf");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(std::string(c.status().message()),
            "t.conf:3:21: expected ';' or '{' after 'backend dummy', found '}'")
      << "the first statement's missing ';' makes 'bgp-id 1.1.1.1 peer 127.0.0.2 { ... }' one "
         "statement; only the tree-level error is expected";
}

TEST(ConfigErrors, APolicyErrorDoesNotHideTheRest) {
  auto c = ParseConfig(
      "protocols { bgp { local-as 1; bgp-id 1.1.1.1; peer 127.0.0.2 { as 0; import p; } } }\n"
      "policy { policy-statement p { term t { then { bogus; } } } }",
      "t.conf");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(std::string(c.status().message()),
            "t.conf:1:67: peer AS 0 is out of range 1..4294967295\n"
            "t.conf:2:47: unknown action 'bogus' (expected accept, reject, next term, next "
            "policy, community, ext-community, large-community, local-pref, med, origin, nexthop, "
            "as-path prepend or tag)");
}

TEST(ConfigErrors, TooManyErrorsAreCounted) {
  std::string text = "rib { admin-distance {\n";
  for (int i = 0; i < 60; ++i) text += "p" + std::to_string(i) + " 999;\n";
  text += "} }\n";
  auto c = ParseConfig(text, "t.conf", 50);
  ASSERT_FALSE(c.ok());
  const std::string message(c.status().message());
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 50) << message;
  EXPECT_THAT(message,
              testing::StartsWith("t.conf:2:4: admin distance 999 is out of range 0..255"));
  EXPECT_THAT(message, testing::EndsWith("\n10 more errors not shown"));
}

TEST(ConfigErrors, DeepNestingIsRefusedNotRecursedInto) {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "a {";
  for (int i = 0; i < 100000; ++i) text += "}";
  auto c = ParseConfig(text, "t.conf");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(std::string(c.status().message()), "t.conf:1:99: blocks nested deeper than 32 levels");
}

TEST(ConfigErrors, UnreadableFiles) {
  EXPECT_EQ(LoadConfigFile("/nonexistent/sluice.conf").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(LoadConfigFile("/").status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(ConfigErrors, ErrorsNameTheFileGiven) {
  auto c = ParseConfig("fea { backend x; }", "/etc/sluice/router.conf");
  EXPECT_EQ(
      std::string(c.status().message()),
      "/etc/sluice/router.conf:1:15: expected a FEA backend ('dummy' or 'netlink'), found 'x'");
  auto unnamed = ParseConfig("fea { backend x; }", "");
  EXPECT_THAT(std::string(unnamed.status().message()), testing::StartsWith("<config>:1:15: "));
}

}  // namespace
}  // namespace sluice::rtrmgr

namespace sluice::rtrmgr {
namespace {

// A group's mistake is said once, at the group's statement, however many peers it has.
TEST(ConfigErrors, AGroupsErrorIsSaidOnce) {
  auto config = ParseConfig(
      "protocols { bgp { local-as 1; bgp-id 1.1.1.1;\n"
      "  group g { as 2; import [ missing ];\n"
      "    peer 127.0.0.2 { } peer 127.0.0.3 { } } } }\n",
      "t.conf");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(std::string(config.status().message()),
            "t.conf:2:28: import policy 'missing' is not defined (no policy-statement missing in "
            "the policy block)");
}

}  // namespace
}  // namespace sluice::rtrmgr
