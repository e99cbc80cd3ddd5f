#include "tests/fuzz/session_seed.h"

#include "bgp/wire/notification.h"
#include "bgp/wire/open_message.h"
#include "bgp/wire/update_encoder.h"

namespace sluice::bgp::testing {
namespace {

constexpr uint8_t kBytes = 0, kTime = 1, kTimer = 2, kClose = 3, kIncoming = 4, kConnect = 5;
constexpr uint8_t kIncomingSide = 8;

// The peer's OPEN for a session with `settings`: the AS and families the settings expect.
std::vector<uint8_t> PeerOpen(uint8_t settings) {
  const uint32_t local_as = (settings & kSessionTwoOctetAs) ? 65000 : 4200000001u;
  const uint32_t peer_as = (settings & kSessionIbgp) ? local_as : 4200000002u;
  Capabilities c;
  c.route_refresh = true;
  c.multiprotocol = {kIPv4Unicast, kIPv6Unicast};
  if (settings & kSessionAllFamilies) {
    c.multiprotocol.clear();
    for (int i = 0; i < AfiSafi::kCount; ++i) c.multiprotocol.push_back(AfiSafi::FromIndex(i));
  }
  if (settings & kSessionAddPath) {
    c.extended_message = true;
    for (AfiSafi f : c.multiprotocol) c.add_path.push_back(AddPathFamily{f, 3});
  }
  OpenMessage open = OpenMessage::Make(peer_as, 9, net::IPv4Address(0x0a000002), c);
  if (peer_as <= 0xffff) open.capabilities.four_octet_as.reset();
  std::vector<uint8_t> wire;
  (void)AppendOpen(open, &wire);
  return wire;
}

SessionParams ParamsFor(uint8_t settings) {
  SessionParams p;
  p.four_octet_as = !(settings & kSessionTwoOctetAs) || !(settings & kSessionIbgp);
  p.external = !(settings & kSessionIbgp);
  p.families.Add(kIPv4Unicast);
  p.families.Add(kIPv6Unicast);
  if (settings & kSessionAddPath) {
    p.add_path_receive = p.families;
    p.add_path_send = p.families;
  }
  return p;
}

std::vector<uint8_t> Announce(uint8_t settings, const char* prefix, const char* next_hop) {
  PathAttributes a;
  a.origin = Origin::kIgp;
  a.as_path = AsPath::Sequence({4200000002u, 3356});
  const net::IPAddress nh = *net::IPAddress::Parse(next_hop);
  if (nh.is_v4()) a.next_hop = nh.v4();
  if (nh.is_v6()) a.mp_next_hop = MpNextHop{nh, std::nullopt};
  a.communities = {(65000u << 16) | 1};
  std::vector<uint8_t> wire;
  const std::vector<Nlri> nlri = {Nlri{*net::Prefix::Parse(prefix)}};
  (void)UpdateEncoder(ParamsFor(settings)).Announce(a, nlri, &wire);
  return wire;
}

std::vector<uint8_t> Withdraw(uint8_t settings, const char* prefix) {
  std::vector<uint8_t> wire;
  const std::vector<Nlri> nlri = {Nlri{*net::Prefix::Parse(prefix)}};
  (void)UpdateEncoder(ParamsFor(settings)).Withdraw(nlri, &wire);
  return wire;
}

}  // namespace

SessionSeed::SessionSeed(uint8_t settings) : bytes_{settings} {
  if (settings & kSessionPassive) {
    side_bit_ = kIncomingSide;
    bytes_.push_back(kIncoming);
  } else {
    bytes_.push_back(kConnect);
  }
  Receive(PeerOpen(settings));
  Keepalive();
}

void SessionSeed::Receive(Bytes message) {
  bytes_.push_back(kBytes | side_bit_);
  bytes_.push_back(uint8_t(message.size() >> 8));
  bytes_.push_back(uint8_t(message.size()));
  bytes_.insert(bytes_.end(), message.begin(), message.end());
}

void SessionSeed::Keepalive() {
  std::vector<uint8_t> k;
  AppendKeepalive(&k);
  Receive(k);
}

void SessionSeed::Wait(uint8_t quarters) {
  bytes_.push_back(kTime);
  bytes_.push_back(quarters);
}

void SessionSeed::Close() { bytes_.push_back(kClose | side_bit_); }

std::vector<std::pair<std::string, std::vector<uint8_t>>> SyntheticSessions() {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
  for (uint8_t settings : {uint8_t(0), uint8_t(kSessionPassive | kSessionAddPath),
                           uint8_t(kSessionTwoOctetAs | kSessionIbgp)}) {
    SessionSeed s(settings);
    s.Receive(Announce(settings, "10.0.0.0/8", "192.0.2.1"));
    s.Receive(Announce(settings, "2001:db8::/32", "2001:db8::1"));
    s.Wait(12);
    s.Keepalive();
    s.Receive(Withdraw(settings, "10.0.0.0/8"));
    std::vector<uint8_t> refresh;
    AppendRouteRefresh(kIPv4Unicast, &refresh);
    s.Receive(refresh);
    s.Wait(200);  // past the hold time: the session expires
    out.emplace_back("synthetic-session-" + std::to_string(settings), s.bytes());
  }
  {
    SessionSeed s(0);  // the peer also connects: a collision
    std::vector<uint8_t> collision = s.bytes();
    collision.push_back(kIncoming);
    const std::vector<uint8_t> open = PeerOpen(0);
    collision.push_back(kBytes | kIncomingSide);
    collision.push_back(uint8_t(open.size() >> 8));
    collision.push_back(uint8_t(open.size()));
    collision.insert(collision.end(), open.begin(), open.end());
    collision.push_back(kTimer);
    out.emplace_back("synthetic-collision", collision);
  }
  {
    SessionSeed s(kSessionAllFamilies);
    std::vector<uint8_t> cease;
    AppendNotification(Notification{6, 2, {}}, &cease);
    s.Receive(cease);
    out.emplace_back("synthetic-notification", s.bytes());
  }
  {
    SessionSeed s(kSessionNoHoldTime);
    std::vector<uint8_t> bad(19, 0xff);
    bad[16] = 0;
    bad[17] = 18;  // a length below the header's
    bad[18] = 2;
    s.Receive(bad);
    out.emplace_back("synthetic-header-error", s.bytes());
  }
  return out;
}

}  // namespace sluice::bgp::testing
