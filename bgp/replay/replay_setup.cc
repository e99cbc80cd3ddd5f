// sluice-replay's setup: the feeds to replay, the peers chosen among them, and one session per
// peer with its pre-encoded streams (see replay_run.h).

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "bgp/replay/feed_encoder.h"
#include "bgp/replay/replay_run.h"

namespace sluice::bgp::replay {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

bool HasIPv4(const PeerFeed& p) {
  for (const Route& r : p.table) {
    if (r.nlri.prefix.is_v4()) return true;
  }
  for (const FeedUpdate& u : p.updates) {
    for (const Nlri& n : u.announced) {
      if (n.prefix.is_v4()) return true;
    }
  }
  return false;
}

// The address this host would use to reach `remote` (a UDP "connect" sends nothing).
std::optional<asio::ip::address> SourceAddressFor(asio::io_context& io,
                                                  const tcp::endpoint& remote) {
  boost::system::error_code ec;
  asio::ip::udp::socket s(io);
  s.connect(asio::ip::udp::endpoint(remote.address(), remote.port()), ec);
  if (ec) return std::nullopt;
  auto local = s.local_endpoint(ec);
  if (ec) return std::nullopt;
  return local.address();
}

asio::ip::address Offset(const asio::ip::address& base, size_t n) {
  if (base.is_v4()) return asio::ip::address_v4(base.to_v4().to_uint() + uint32_t(n));
  auto bytes = base.to_v6().to_bytes();
  uint32_t carry = uint32_t(n);
  for (int i = 15; i >= 0 && carry; --i) {
    carry += bytes[i];
    bytes[i] = uint8_t(carry);
    carry >>= 8;
  }
  return asio::ip::address_v6(bytes);
}

// The local address of the first session: --local-address; else with --all-peers towards a
// loopback peer 127.0.0.2 (or ::1); else the address listened on.
std::optional<asio::ip::address> BaseAddress(const Options& o, const tcp::endpoint& remote) {
  if (o.local_address) return o.local_address;
  if (o.all_peers && remote.address().is_loopback()) {
    return remote.address().is_v4() ? asio::ip::address(asio::ip::make_address_v4("127.0.0.2"))
                                    : asio::ip::address(asio::ip::address_v6::loopback());
  }
  if (o.listen && !o.listen->address().is_unspecified()) return o.listen->address();
  return std::nullopt;
}

// The source address of a session, when known: the one it binds, else (listening) the address
// listened on, else (with --next-hop-self) the one this host would use to reach the peer.
std::optional<asio::ip::address> SessionSource(asio::io_context& io, const Options& o,
                                               const SessionOptions& so,
                                               const std::optional<asio::ip::address>& base,
                                               const tcp::endpoint& remote) {
  if (so.local) return so.local;
  if (o.listen && base) return base;
  if (o.connect && o.next_hop_self) return SourceAddressFor(io, remote);
  return std::nullopt;
}

// The BGP Identifier of session `i`: --router-id (plus i with --all-peers), else its IPv4
// source address, else 10.255.0.N.
net::IPv4Address RouterId(const Options& o, size_t i,
                          const std::optional<asio::ip::address>& local) {
  if (o.router_id) {
    return o.all_peers ? net::IPv4Address(o.router_id->value() + uint32_t(i)) : *o.router_id;
  }
  if (local && local->is_v4()) return net::IPv4Address(local->to_v4().to_uint());
  return net::IPv4Address(0x0aff0001 + uint32_t(i));  // 10.255.0.N
}

// Families: those the feed has routes of (unicast).
void AddFeedFamilies(const Options& o, const PeerFeed& feed, AfiSafiSet* families) {
  bool v4 = false, v6 = false;
  auto note = [&](const Nlri& n) { (n.prefix.is_v4() ? v4 : v6) = true; };
  for (const Route& r : feed.table) note(r.nlri);
  for (const FeedUpdate& u : feed.updates) {
    for (const Nlri& n : u.announced) note(n);
    for (const Nlri& n : u.withdrawn) note(n);
  }
  if (v4 || !v6 || o.ipv4_only) families->Add(kIPv4Unicast);
  if (v6 && !o.ipv4_only) families->Add(kIPv6Unicast);
}

// The options of session `i`, replaying `feed`; *local: its source address, when known.
SessionOptions MakeSessionOptions(asio::io_context& io, const Options& o, const PeerFeed& feed,
                                  size_t i, const tcp::endpoint& remote,
                                  const std::optional<asio::ip::address>& base,
                                  std::optional<asio::ip::address>* local) {
  SessionOptions so;
  so.name = feed.Name();
  so.remote = remote;
  if (base && o.connect) so.local = o.all_peers ? Offset(*base, i) : *base;
  so.local_as = o.local_as_capture ? feed.as : *o.local_as;
  so.peer_as = o.peer_as;
  *local = SessionSource(io, o, so, base, remote);
  so.router_id = RouterId(o, i, *local);
  so.hold_time = o.hold_time;
  so.extended_messages = o.extended_messages;
  so.pace = o.pace;
  so.withdraw_after = o.withdraw_after;
  so.flap_every = o.flap_every;
  so.flaps = o.flaps;
  so.wait_eor = o.wait_eor;
  so.linger = o.linger;
  so.track_held = o.receive_only;
  so.graceful_restart = o.graceful_restart;
  so.reconnect = o.reconnect;
  AddFeedFamilies(o, feed, &so.families);
  return so;
}

// How the routes are rewritten for the session: its AS, next hops (--next-hop-self: its source
// address), prepending and path variants.
RewriteOptions MakeRewrite(const Options& o, const SessionOptions& so,
                           const std::optional<asio::ip::address>& local) {
  RewriteOptions rw;
  rw.local_as = so.local_as;
  rw.external = o.peer_as == 0 ? true : o.peer_as != so.local_as;
  rw.prepend_own_as = o.prepend_own_as;
  rw.path_variant = o.path_variant;
  rw.next_hop4 = o.next_hop;
  rw.next_hop6 = o.next_hop6;
  if (o.next_hop_self) {
    if (!local)
      Die("--next-hop-self: cannot tell the local address; give --local-address or --next-hop");
    if (local->is_v4()) {
      rw.next_hop4 = net::IPv4Address(local->to_v4().to_uint());
      if (!rw.next_hop6) {
        rw.next_hop6 = net::IPv6Address(0, 0xffff00000000ull | local->to_v4().to_uint());
      }
    } else {
      const auto b = local->to_v6().to_bytes();
      rw.next_hop6 = net::IPv6Address::FromBytes(b.data());
    }
  }
  return rw;
}

// "messages" (the captured UPDATEs) or "table": --mode, else what the feed has.
std::string FeedMode(const Options& o, const PeerFeed& feed) {
  const std::string mode = !o.mode.empty() ? o.mode : (feed.updates.empty() ? "table" : "messages");
  if (mode == "messages" && feed.updates.empty()) Die("--mode messages needs an UPDATE capture");
  if (o.pace && mode != "messages") Die("--pace replays captured UPDATEs: use --mode messages");
  return mode;
}

// --extra: routes spread evenly over the table, held back from it (removed from *routes).
std::vector<Route> HoldBackExtra(const Options& o, const std::string& mode,
                                 std::vector<Route>* routes) {
  std::vector<Route> extra;
  if (o.extra == 0) return extra;
  if (mode != "table") Die("--extra holds routes back from a table: use --mode table");
  if (o.extra >= routes->size()) {
    Die(absl::StrFormat("--extra %d: the table has only %d routes", o.extra, routes->size()));
  }
  std::vector<Route> kept;
  const double step = double(routes->size()) / double(o.extra);
  size_t next_extra = 0;
  for (size_t r = 0; r < routes->size(); ++r) {
    if (extra.size() < o.extra && r == next_extra) {
      extra.push_back((*routes)[r]);
      next_extra = size_t(step * double(extra.size()) + step / 2);
    } else {
      kept.push_back((*routes)[r]);
    }
  }
  *routes = std::move(kept);
  return extra;
}

// --after-reconnect-drop/-add: the table sent after a reconnect (null without them). The added
// routes are removed from *routes, the first table.
std::shared_ptr<std::vector<Route>> TableAfterReconnect(const Options& o, const std::string& mode,
                                                        std::vector<Route>* routes) {
  if (o.after_reconnect_drop == 0 && o.after_reconnect_add == 0) return nullptr;
  if (mode != "table") Die("--after-reconnect-drop/-add change a table: use --mode table");
  if (o.after_reconnect_add + o.after_reconnect_drop > routes->size()) {
    Die(absl::StrFormat("--after-reconnect-drop/-add: the table has only %d routes",
                        routes->size()));
  }
  const auto added = routes->end() - ptrdiff_t(o.after_reconnect_add);
  auto again = std::make_shared<std::vector<Route>>(
      routes->begin() + ptrdiff_t(o.after_reconnect_drop), routes->end());
  routes->erase(added, routes->end());
  return again;
}

// The session replaying `feed`, with its encoders: the first table (or the captured UPDATEs),
// the table after a reconnect (`again`, if any) and the held-back routes (`extra`, if any).
std::unique_ptr<ReplaySession> MakeSession(asio::io_context& io, const SessionOptions& so,
                                           const RewriteOptions& rw, const std::string& mode,
                                           const PeerFeed& feed, AttributeStore* store,
                                           std::shared_ptr<std::vector<Route>> routes,
                                           std::shared_ptr<std::vector<Route>> again,
                                           std::shared_ptr<std::vector<Route>> extra) {
  auto encode = [&feed, rw, mode, store, routes](const SessionParams& params, EncodedStream* table,
                                                 EncodedStream* withdraw) {
    FeedEncoder encoder(params, rw, store);
    if (mode == "messages") {
      encoder.EncodeMessages(feed, table);
    } else {
      encoder.EncodeTable(*routes, table);
    }
    encoder.EncodeEndOfRib(table);
    encoder.EncodeWithdrawAll(*routes, withdraw);
  };
  auto session = std::make_unique<ReplaySession>(io, so, encode);
  if (again) {
    session->SetReconnectEncoder([rw, store, again](const SessionParams& params,
                                                    EncodedStream* table, EncodedStream* withdraw) {
      FeedEncoder encoder(params, rw, store);
      encoder.EncodeTable(*again, table);
      encoder.EncodeEndOfRib(table);
      encoder.EncodeWithdrawAll(*again, withdraw);
    });
  }
  if (!extra->empty()) {
    session->SetExtra([rw, store, extra](const SessionParams& params) {
      std::vector<std::vector<uint8_t>> messages;
      FeedEncoder encoder(params, rw, store);
      for (const Route& r : *extra) {
        EncodedStream one;
        encoder.EncodeTable({r}, &one);
        if (!one.bytes.empty()) messages.push_back(std::move(one.bytes));
      }
      return messages;
    });
  }
  return session;
}

}  // namespace

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "sluice-replay: %s\n", message.c_str());
  std::exit(2);
}

Capture LoadSource(const Options& o, AttributeStore* store) {
  Capture capture;
  if (o.receive_only) {
    capture.peers.emplace_back();
    capture.peers.back().address = net::IPAddress(net::IPv4Address());
  } else if (o.synthetic > 0) {
    capture.peers.push_back(
        SyntheticTable(o.synthetic + o.extra + o.after_reconnect_add, o.seed, store));
  } else {
    auto loaded = LoadCapture(o.mrt, store);
    if (!loaded.ok()) Die(std::string(loaded.status().message()));
    capture = std::move(*loaded);
    if (capture.truncated && !o.quiet) {
      std::fprintf(stderr, "sluice-replay: %s: %s; replaying what was read\n", o.mrt.c_str(),
                   capture.note.c_str());
    }
  }
  return capture;
}

void ListPeers(const Options& o, const Capture& capture) {
  for (size_t i = 0; i < capture.peers.size(); ++i) {
    const PeerFeed& p = capture.peers[i];
    if (o.ipv4_only && !HasIPv4(p)) continue;
    std::printf("%3zu  %-40s %9llu announcements%s\n", i, p.Name().c_str(),
                (unsigned long long)p.announced_prefixes,
                p.updates.empty() && p.table.empty() ? " (session state changes only)"
                : p.updates.empty()                  ? " (RIB)"
                                    : absl::StrFormat(" in %d UPDATEs", p.updates.size()).c_str());
  }
}

std::vector<const PeerFeed*> ChoosePeers(const Options& o, const Capture& capture) {
  std::vector<const PeerFeed*> chosen;
  if (o.all_peers) {
    for (const PeerFeed& p : capture.peers) {
      if (!o.ipv4_only || HasIPv4(p)) chosen.push_back(&p);
    }
    if (chosen.empty()) Die("no capture peer with IPv4 routes");
  } else if (o.peer_index) {
    if (*o.peer_index >= capture.peers.size()) {
      Die(absl::StrFormat("--peer-index %d: the capture has %d peers", *o.peer_index,
                          capture.peers.size()));
    }
    chosen.push_back(&capture.peers[*o.peer_index]);
  } else if (o.peer_address) {
    for (const PeerFeed& p : capture.peers) {
      if (p.address == *o.peer_address) chosen.push_back(&p);
    }
    if (chosen.empty()) Die("no peer " + o.peer_address->ToString() + " in the capture");
    chosen.resize(1);
  } else {
    const PeerFeed* best = &capture.peers[0];
    for (const PeerFeed& p : capture.peers) {
      if (p.announced_prefixes > best->announced_prefixes) best = &p;
    }
    chosen.push_back(best);
  }
  return chosen;
}

Sessions BuildSessions(asio::io_context& io, const Options& o,
                       const std::vector<const PeerFeed*>& chosen, AttributeStore* store,
                       uint64_t* expected_total) {
  const tcp::endpoint remote = o.connect ? *o.connect : *o.listen;
  const std::optional<asio::ip::address> base = BaseAddress(o, remote);
  Sessions sessions;
  for (size_t i = 0; i < chosen.size(); ++i) {
    const PeerFeed& feed = *chosen[i];
    std::optional<asio::ip::address> local;
    const SessionOptions so = MakeSessionOptions(io, o, feed, i, remote, base, &local);
    const RewriteOptions rw = MakeRewrite(o, so, local);
    const std::string mode = FeedMode(o, feed);
    auto routes = std::make_shared<std::vector<Route>>(feed.Table());
    auto extra = std::make_shared<std::vector<Route>>(HoldBackExtra(o, mode, routes.get()));
    *expected_total += mode == "messages" ? feed.announced_prefixes : routes->size();
    std::shared_ptr<std::vector<Route>> again = TableAfterReconnect(o, mode, routes.get());
    sessions.push_back(MakeSession(io, so, rw, mode, feed, store, routes, again, extra));
  }
  return sessions;
}

}  // namespace sluice::bgp::replay
