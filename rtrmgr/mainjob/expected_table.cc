#include "rtrmgr/mainjob/expected_table.h"

#include "bgp/replay/replay_feed.h"
#include "bgp/wire/attribute_store.h"

namespace sluice::rtrmgr::mainjob {

namespace {

void AddFinal(const std::vector<bgp::replay::Route>& table, ExpectedTable* e) {
  for (const bgp::replay::Route& r : table) {
    const net::Prefix& p = r.nlri.prefix;
    e->final.insert(p);
    if (r.attributes && r.attributes->as_path) {
      e->as_paths[p] = r.attributes->as_path->ToString();
      if (r.attributes->as_path->Contains(0)) e->as0.insert(p);
    }
  }
}

}  // namespace

absl::StatusOr<ExpectedTable> ExpectedFromCapture(const std::string& path) {
  bgp::AttributeStore store;
  absl::StatusOr<bgp::replay::Capture> capture = bgp::replay::LoadCapture(path, &store);
  if (!capture.ok()) return capture.status();
  if (capture->peers.empty()) return absl::InvalidArgumentError(path + ": no peer");
  const bgp::replay::PeerFeed* best = &capture->peers[0];
  for (const bgp::replay::PeerFeed& p : capture->peers) {
    if (p.announced_prefixes > best->announced_prefixes) best = &p;
  }
  ExpectedTable e;
  e.peer = best->Name();
  e.updates = best->updates.size();
  for (const bgp::replay::FeedUpdate& u : best->updates) {
    for (const bgp::Nlri& n : u.announced) e.announced.insert(n.prefix);
  }
  for (const bgp::replay::Route& r : best->table) e.announced.insert(r.nlri.prefix);
  AddFinal(best->Table(), &e);
  return e;
}

ExpectedTable ExpectedSynthetic(uint64_t prefixes) {
  bgp::AttributeStore store;
  bgp::replay::PeerFeed feed = bgp::replay::SyntheticTable(prefixes, 1, &store);
  ExpectedTable e;
  e.peer = "synthetic";
  for (const bgp::replay::Route& r : feed.table) e.announced.insert(r.nlri.prefix);
  AddFinal(feed.Table(), &e);
  return e;
}

}  // namespace sluice::rtrmgr::mainjob
