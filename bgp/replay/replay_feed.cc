#include "bgp/replay/replay_feed.h"

#include <algorithm>
#include <map>
#include <random>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bgp/mrt/mrt_reader.h"
#include "bgp/mrt/mrt_records.h"
#include "bgp/wire/update_decoder.h"

namespace sluice::bgp::replay {
namespace {

struct NlriKey {
  net::Prefix prefix;
  uint32_t path_id;
  Safi safi;
  friend bool operator==(const NlriKey&, const NlriKey&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const NlriKey& k) {
    return H::combine(std::move(h), k.prefix, k.path_id, k.safi);
  }
};

bool RouteLess(const Route& a, const Route& b) {
  if (a.nlri.safi != b.nlri.safi) return a.nlri.safi < b.nlri.safi;
  if (a.nlri.prefix != b.nlri.prefix) return a.nlri.prefix < b.nlri.prefix;
  return a.nlri.path_id < b.nlri.path_id;
}

}  // namespace

std::vector<Route> PeerFeed::Table() const {
  std::vector<Route> out;
  if (!table.empty()) {
    out = table;
  } else {
    absl::flat_hash_map<NlriKey, AttrRef> rib;
    for (const FeedUpdate& u : updates) {
      for (const Nlri& n : u.withdrawn) rib.erase(NlriKey{n.prefix, n.path_id, n.safi});
      for (const Nlri& n : u.announced) rib[NlriKey{n.prefix, n.path_id, n.safi}] = u.attributes;
    }
    out.reserve(rib.size());
    for (auto& [k, a] : rib) out.push_back(Route{Nlri{k.prefix, k.path_id, k.safi}, a});
  }
  std::sort(out.begin(), out.end(), RouteLess);
  return out;
}

std::string PeerFeed::Name() const { return absl::StrCat(address.ToString(), " AS", as); }

absl::StatusOr<Capture> LoadCapture(const std::string& path, AttributeStore* store) {
  auto reader = mrt::MrtReader::Open(path);
  if (!reader.ok()) return reader.status();
  Capture capture;
  std::map<std::pair<net::IPAddress, uint32_t>, size_t> by_peer;
  std::vector<size_t> index_to_peer;  // TABLE_DUMP_V2 peer index → capture.peers
  auto peer_of = [&](const net::IPAddress& a, uint32_t as) -> PeerFeed& {
    auto [it, inserted] = by_peer.try_emplace({a, as}, capture.peers.size());
    if (inserted) {
      capture.peers.emplace_back();
      capture.peers.back().address = a;
      capture.peers.back().as = as;
    }
    return capture.peers[it->second];
  };

  UpdateDecoder decoder(SessionParams::ForMrt(true, false), store);
  mrt::RibDecoder rib(store);
  UpdateMessage u;
  mrt::RibRecord rec;
  mrt::TableDumpRecord td;
  mrt::MrtRecord r;
  bool have_start = false;
  uint64_t start_us = 0;
  while ((*reader)->Next(&r)) {
    const uint64_t t = uint64_t(r.timestamp) * 1000000 + r.microseconds;
    if (!have_start) {
      start_us = t;
      have_start = true;
    }
    if (mrt::IsBgp4mpStateChange(r)) {
      // A peer whose session the collector saw, even with no UPDATE in the capture: replayed
      // as a session that announces nothing (--all-peers gives every captured peer a session).
      mrt::Bgp4mpStateChange sc;
      if (mrt::DecodeBgp4mpStateChange(r, &sc).ok()) {
        peer_of(sc.peer_address, sc.peer_as).had_session = true;
      }
    } else if (mrt::IsBgp4mpMessage(r)) {
      mrt::Bgp4mpMessage m;
      if (!mrt::DecodeBgp4mpMessage(r, &m).ok() || m.local) continue;
      if (m.message.size() < 19 || m.message[18] != uint8_t(MessageType::kUpdate)) continue;
      decoder.set_params(SessionParams::ForMrt(m.as4, m.add_path));
      decoder.Decode(m.message, &u);
      if (u.errors.session_reset || (u.withdrawn.empty() && u.announced.empty())) continue;
      PeerFeed& peer = peer_of(m.peer_address, m.peer_as);
      peer.had_session = true;
      peer.four_octet_as = m.as4;
      FeedUpdate& f = peer.updates.emplace_back();
      f.time_us = t - start_us;
      f.withdrawn = u.withdrawn;
      f.announced = u.announced;
      f.attributes = u.attributes;
      peer.announced_prefixes += u.announced.size();
    } else if (r.type == uint16_t(mrt::MrtType::kTableDumpV2) &&
               r.subtype == uint16_t(mrt::TableDumpV2Subtype::kPeerIndexTable)) {
      mrt::PeerIndexTable table;
      if (!mrt::DecodePeerIndexTable(r, &table).ok()) continue;
      index_to_peer.clear();
      for (const mrt::MrtPeer& p : table.peers) {
        peer_of(p.address, p.as);
        index_to_peer.push_back(by_peer[{p.address, p.as}]);
      }
    } else if (mrt::IsRib(r)) {
      if (!rib.DecodeRib(r, &rec).ok() && rec.entries.empty()) continue;
      for (const mrt::RibEntry& e : rec.entries) {
        if (!e.attributes || e.peer_index >= index_to_peer.size()) continue;
        PeerFeed& peer = capture.peers[index_to_peer[e.peer_index]];
        peer.table.push_back(Route{Nlri{rec.prefix, e.path_id, rec.safi}, e.attributes});
        ++peer.announced_prefixes;
      }
    } else if (r.type == uint16_t(mrt::MrtType::kTableDump)) {
      if (!rib.DecodeTableDump(r, &td).ok() || !td.attributes) continue;
      PeerFeed& peer = peer_of(td.peer_address, td.peer_as);
      peer.four_octet_as = false;
      peer.table.push_back(Route{Nlri{td.prefix, 0, Safi::kUnicast}, td.attributes});
      ++peer.announced_prefixes;
    }
  }
  u.Clear();
  capture.truncated = (*reader)->truncated();
  capture.note = (*reader)->error();
  // Peers with nothing to replay and no captured session (empty PEER_INDEX_TABLE slots) are
  // dropped; a peer seen only in state changes keeps its (empty) session.
  std::erase_if(capture.peers, [](const PeerFeed& p) {
    return p.updates.empty() && p.table.empty() && !p.had_session;
  });
  if (std::all_of(capture.peers.begin(), capture.peers.end(),
                  [](const PeerFeed& p) { return p.updates.empty() && p.table.empty(); })) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s holds no UPDATE and no RIB entry%s", path,
                        capture.note.empty() ? "" : " (" + capture.note + ")"));
  }
  return capture;
}

PeerFeed SyntheticTable(uint64_t prefixes, uint64_t seed, AttributeStore* store) {
  std::mt19937_64 rng(seed);
  auto pick = [&rng](std::initializer_list<std::pair<int, double>> weights) {
    double total = 0;
    for (const auto& w : weights) total += w.second;
    double x = std::uniform_real_distribution<double>(0, total)(rng);
    for (const auto& w : weights) {
      if ((x -= w.second) <= 0) return w.first;
    }
    return weights.begin()->first;
  };
  static constexpr uint32_t kTransit[] = {3356, 1299, 174,  2914, 6939, 3257, 6762,
                                          6453, 1239, 701,  6461, 3491, 5511, 7018,
                                          9002, 4637, 1273, 2828, 6830, 3320};
  auto random_as = [&]() -> uint32_t {
    if (std::uniform_int_distribution<int>(0, 9)(rng) == 0) {
      return std::uniform_int_distribution<uint32_t>(131072, 400000)(rng);  // 4-octet
    }
    return std::uniform_int_distribution<uint32_t>(1, 64495)(rng);
  };

  // About one attribute set per 7 routes.
  const size_t set_count = std::max<size_t>(1, size_t(prefixes / 7));
  std::vector<AttrRef> sets;
  sets.reserve(set_count);
  for (size_t i = 0; i < set_count; ++i) {
    PathAttributes a;
    const int r = pick({{0, 90}, {2, 8}, {1, 2}});
    a.origin = Origin(r);
    const int len =
        pick({{1, 5}, {2, 15}, {3, 25}, {4, 22}, {5, 15}, {6, 9}, {7, 5}, {8, 2}, {9, 1}, {10, 1}});
    std::vector<uint32_t> path;
    path.push_back(kTransit[rng() % std::size(kTransit)]);
    for (int k = 1; k < len; ++k)
      path.push_back(k == 1 && rng() % 2 ? kTransit[rng() % std::size(kTransit)] : random_as());
    AsPath p;
    p.AppendSegment(SegmentType::kSequence, path);
    a.as_path = std::move(p);
    a.next_hop = net::IPv4Address(0xc0000201);  // 192.0.2.1, replaced by --next-hop*
    const int communities = pick({{0, 40}, {1, 15}, {2, 20}, {3, 15}, {4, 10}});
    for (int k = 0; k < communities; ++k) {
      a.communities.push_back((path[0] << 16) | uint32_t(rng() % 1000));
    }
    if (rng() % 4 == 0) a.med = uint32_t(rng() % 200);
    sets.push_back(store->Intern(std::move(a)));
  }

  PeerFeed feed;
  feed.address = net::IPAddress(net::IPv4Address(0xc0000201));
  feed.as = 64512;
  feed.table.reserve(prefixes);
  absl::flat_hash_set<net::Prefix> seen;
  seen.reserve(prefixes);
  while (feed.table.size() < prefixes) {
    const int len = pick({{24, 55},
                          {23, 9},
                          {22, 10},
                          {21, 5},
                          {20, 5},
                          {19, 4},
                          {18, 2.5},
                          {17, 1.5},
                          {16, 2.3},
                          {15, 0.3},
                          {14, 0.3},
                          {13, 0.2},
                          {12, 0.1},
                          {11, 0.05},
                          {10, 0.03},
                          {9, 0.01},
                          {8, 0.01}});
    // Unicast space 1.0.0.0 - 223.255.255.255.
    const uint32_t addr = std::uniform_int_distribution<uint32_t>(0x01000000, 0xdfffffff)(rng);
    net::Prefix p(net::IPv4Address(addr), len);
    if (!seen.insert(p).second) continue;
    feed.table.push_back(Route{Nlri{p, 0, Safi::kUnicast}, sets[rng() % sets.size()]});
  }
  feed.announced_prefixes = feed.table.size();
  return feed;
}

}  // namespace sluice::bgp::replay
