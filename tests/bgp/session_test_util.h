#pragma once
// Test helpers for BGP sessions: a SessionListener that keeps an Adj-RIB-In (what arrived and
// what was withdrawn), a RoutingSide that gives each peer one, building UPDATEs to send, and
// running an io_context until a condition holds. Used by tests/bgp/session_* and
// tests/interop/session_*.

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bgp/session/asio.h"
#include "bgp/session/peer_manager.h"
#include "bgp/session/session_link.h"
#include "bgp/wire/update_encoder.h"
#include "net/prefix_map.h"

namespace sluice::bgp::testing {

// Keeps the routes a peer announced and not withdrawn, by prefix (ADD-PATH is not used here).
class AdjRibIn : public SessionListener {
 public:
  explicit AdjRibIn(SessionSender* sender = nullptr) : sender_(sender) {}
  void set_sender(SessionSender* sender) { sender_ = sender; }
  // A deliberately slow routing side: busy for this long per prefix announced or withdrawn.
  void set_cost_per_prefix(std::chrono::nanoseconds cost) { cost_ = cost; }

  void OnEstablished(const EstablishedInfo& info) override {
    established = true;
    info_ = info;
    ++established_count;
  }
  void BeginUpdates() override { in_read = true; }
  void EndUpdates() override {
    in_read = false;
    ++reads;
  }
  void OnUpdate(UpdateMessage& update) override {
    if (fault) fault();  // may throw: a routing side failing on this UPDATE
    ++updates;
    if (!in_read) ++updates_unbracketed;
    for (const Nlri& n : update.withdrawn) routes.erase(n.prefix);
    for (const Nlri& n : update.announced) routes.insert_or_assign(n.prefix, update.attributes);
    if (update.end_of_rib) end_of_rib.Add(*update.end_of_rib);
    if (cost_.count() > 0) {
      const auto until = std::chrono::steady_clock::now() +
                         cost_ * (update.withdrawn.size() + update.announced.size());
      while (std::chrono::steady_clock::now() < until) {
      }
    }
    if (sender_) sender_->ReportPrefixCount(routes.size(), routes.size());
  }
  void OnRouteRefresh(AfiSafi) override { ++route_refreshes; }
  void OnSessionDown(const std::string& reason) override {
    established = false;
    routes.clear();
    end_of_rib = AfiSafiSet();
    ++downs;
    last_down_reason = reason;
    if (sender_) sender_->ReportPrefixCount(0, 0);
  }
  void OnSessionDownGraceful(const std::string& reason) override {
    ++graceful_downs;
    OnSessionDown(reason);
  }
  void OnWritable() override { ++writables; }

  bool Has(const std::string& prefix) {
    auto p = net::Prefix::Parse(prefix);
    return p.ok() && routes.contains(*p);
  }
  // The route's attributes, or null.
  const PathAttributes* Attributes(const std::string& prefix) {
    auto p = net::Prefix::Parse(prefix);
    if (!p.ok()) return nullptr;
    const AttrRef* a = routes.find_value(*p);
    return a ? a->get() : nullptr;
  }
  std::vector<std::string> Prefixes() {
    std::vector<std::string> out;
    for (auto it = routes.begin(); it != routes.end(); ++it) out.push_back(it.key().ToString());
    return out;
  }
  const EstablishedInfo& info() const { return info_; }

  net::PrefixMap<AttrRef> routes;
  std::function<void()> fault;  // run first in each OnUpdate (tests inject exceptions)
  bool established = false;
  int established_count = 0;
  int downs = 0;
  int graceful_downs = 0;  // of `downs`: ends that let the peer restart (RFC 4724)
  int updates = 0;
  bool in_read = false;         // between BeginUpdates and EndUpdates
  int reads = 0;                // EndUpdates calls: the reads whose UPDATEs were pushed together
  int updates_unbracketed = 0;  // UPDATEs outside BeginUpdates .. EndUpdates
  int route_refreshes = 0;
  int writables = 0;
  AfiSafiSet end_of_rib;
  std::string last_down_reason;

 private:
  SessionSender* sender_;
  EstablishedInfo info_;
  std::chrono::nanoseconds cost_{0};
};

// Gives every peer an AdjRibIn.
class TestRouting : public RoutingSide {
 public:
  SessionListener* PeerAdded(const PeerConfig& config, SessionSender* sender) override {
    auto& rib = ribs[config.address];
    rib = std::make_unique<AdjRibIn>(sender);
    senders[config.address] = sender;
    return rib.get();
  }
  void PeerRemoved(const net::IPAddress& address) override {
    ribs.erase(address);
    senders.erase(address);
  }
  AdjRibIn* rib(const std::string& address) {
    auto a = net::IPAddress::Parse(address);
    if (!a.ok()) return nullptr;
    auto it = ribs.find(*a);
    return it == ribs.end() ? nullptr : it->second.get();
  }

  std::map<net::IPAddress, std::unique_ptr<AdjRibIn>> ribs;
  std::map<net::IPAddress, SessionSender*> senders;
};

// Runs `io` until `condition` holds (checked every 10 ms of loop time) or `seconds` pass.
inline bool RunUntil(boost::asio::io_context& io, const std::function<bool()>& condition,
                     double seconds) {
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(seconds));
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= end) return false;
    io.restart();
    io.run_for(std::chrono::milliseconds(10));
  }
  return true;
}

// Runs `io` for `seconds` (to let something that must not happen have its chance).
inline void RunFor(boost::asio::io_context& io, double seconds) {
  RunUntil(
      io, [] { return false; }, seconds);
}

inline net::IPAddress Addr(const std::string& text) { return *net::IPAddress::Parse(text); }

// UPDATEs announcing `prefixes` from AS `as` with nexthop `next_hop` (IPv4 or IPv6 NLRI by the
// prefixes' family; a mix is packed in several messages), encoded for `params`.
inline std::vector<uint8_t> Announce(const std::vector<std::string>& prefixes, uint32_t as,
                                     const std::string& next_hop,
                                     const SessionParams& params = SessionParams()) {
  PathAttributes attrs;
  attrs.origin = Origin::kIgp;
  attrs.as_path = AsPath::Sequence({as});
  const net::IPAddress nh = Addr(next_hop);
  if (nh.is_v4()) attrs.next_hop = nh.v4();
  std::vector<Nlri> v4, v6;
  for (const std::string& p : prefixes) {
    Nlri n;
    n.prefix = *net::Prefix::Parse(p);
    (n.prefix.is_v4() ? v4 : v6).push_back(n);
  }
  std::vector<uint8_t> out;
  UpdateEncoder encoder(params);
  if (!v4.empty()) (void)encoder.Announce(attrs, v4, &out);
  if (!v6.empty()) {
    MpNextHop mp;
    mp.global = nh;
    attrs.mp_next_hop = mp;
    (void)encoder.Announce(attrs, v6, &out);
  }
  return out;
}

inline std::vector<uint8_t> Withdraw(const std::vector<std::string>& prefixes,
                                     const SessionParams& params = SessionParams()) {
  std::vector<Nlri> nlri;
  for (const std::string& p : prefixes) {
    Nlri n;
    n.prefix = *net::Prefix::Parse(p);
    nlri.push_back(n);
  }
  std::vector<uint8_t> out;
  (void)UpdateEncoder(params).Withdraw(nlri, &out);
  return out;
}

}  // namespace sluice::bgp::testing
