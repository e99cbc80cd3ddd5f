// End to end in one process with real bytes: the PCH full-table capture's UPDATEs,
// decoded as an eBGP session would, go through the whole pipeline to a downstream eBGP peer;
// what PeerOut sent is decoded again and must hold exactly the accepted prefixes, each with the
// AS path prepended once and our nexthop, in a number of UPDATE messages close to the number of
// distinct attribute sets. The RIB must hold the same prefixes. Needs $SLUICE_DATA_DIR.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "bgp/mrt/mrt_reader.h"
#include "bgp/mrt/mrt_records.h"
#include "bgp/stages/bgp_routing.h"
#include "tests/bgp/stages_fakes.h"
#include "tests/bgp/stages_test_util.h"

namespace sluice::bgp {
namespace {

using testing::A;
using testing::A4;

constexpr uint32_t kLocalAs = 65000;  // 83 PCH paths contain it: they are loops

struct Capture {
  std::vector<std::vector<uint8_t>> updates;
  bool as4 = true;
};

TEST(PchEndToEnd, FullTableThroughThePipelineToAnEbgpPeer) {
  const char* dir = std::getenv("SLUICE_DATA_DIR");
  if (dir == nullptr) GTEST_SKIP() << "SLUICE_DATA_DIR is not set (the folder holding mrt/)";
  auto reader =
      mrt::MrtReader::Open(std::string(dir) + "/mrt/pch-2015-10-23-fulltable-updates.mrt.gz");
  if (!reader.ok()) GTEST_SKIP() << "no PCH capture: " << reader.status();
  Capture capture;
  mrt::MrtRecord record;
  while ((*reader)->Next(&record)) {
    mrt::Bgp4mpMessage m;
    if (!mrt::IsBgp4mpMessage(record) || !mrt::DecodeBgp4mpMessage(record, &m).ok()) continue;
    if (m.message.size() < kHeaderSize || m.message[18] != 2) continue;
    capture.as4 = m.as4;
    capture.updates.emplace_back(m.message.begin(), m.message.end());
  }
  ASSERT_GT(capture.updates.size(), 89000u);

  boost::asio::io_context io;
  AttributeStore store;
  testing::FakeRib rib(io);
  RouterConfig rc;
  rc.local_as = kLocalAs;
  rc.router_id = A4("192.0.2.1");
  rc.ipv6 = false;
  auto routing = std::make_unique<BgpRouting>(io, rc, RoutingServices{nullptr, &rib, &store});

  SessionParams up_params;
  up_params.four_octet_as = capture.as4;
  up_params.external = true;
  SessionParams down_params;
  down_params.external = true;
  testing::FakeSession upstream(&store, up_params);
  testing::FakeSession downstream(&store, down_params);
  RoutingPeerConfig up;
  up.name = "pch";
  up.address = A("206.220.231.55");
  up.peer_as = 3856;
  up.ebgp_requires_policy = false;
  RoutingPeerConfig down = up;
  down.name = "down";
  down.address = A("198.51.100.2");
  down.peer_as = 65010;
  SessionListener* up_listener = *routing->AddPeer(up, &upstream);
  SessionListener* down_listener = *routing->AddPeer(down, &downstream);
  EstablishedInfo info;
  info.params = down_params;
  info.remote_as = 65010;
  info.remote_bgp_id = A4("198.51.100.2");
  info.remote_address = down.address;
  info.local_address = A("198.51.100.1");
  down_listener->OnEstablished(info);
  info.params = up_params;
  info.remote_as = 3856;
  info.remote_bgp_id = A4("206.220.231.55");
  info.remote_address = up.address;
  info.local_address = A("206.220.231.1");
  up_listener->OnEstablished(info);
  io.run();
  EXPECT_EQ(downstream.end_of_ribs, 1u) << "End-of-RIB after the (empty) initial dump";

  // The session's side: decode every UPDATE and hand it over; the oracle replays the same.
  UpdateDecoder decoder(up_params, &store);
  UpdateMessage u;
  std::map<net::Prefix, AttrRef> model;
  for (const auto& bytes : capture.updates) {
    decoder.Decode(Bytes(bytes.data(), bytes.size()), &u);
    ASSERT_NE(u.errors.action(), UpdateAction::kSessionReset) << u.errors.reason;
    for (const Nlri& n : u.withdrawn) model.erase(n.prefix);
    for (const Nlri& n : u.announced) model[n.prefix] = u.attributes;
    up_listener->OnUpdate(u);
  }
  io.restart();
  io.run();

  size_t loops = 0;
  std::map<net::Prefix, AttrRef> accepted;
  for (const auto& [prefix, attrs] : model) {
    if (attrs->as_path && attrs->as_path->Contains(kLocalAs)) {
      ++loops;
    } else {
      accepted[prefix] = attrs;
    }
  }
  EXPECT_EQ(loops, 83u);
  EXPECT_GT(accepted.size(), 577000u);
  ASSERT_TRUE(downstream.errors.empty()) << downstream.errors.front();
  ASSERT_EQ(downstream.held.size(), accepted.size());
  size_t checked = 0;
  for (const auto& [prefix, attrs] : accepted) {
    auto it = downstream.held.find(prefix);
    ASSERT_NE(it, downstream.held.end()) << prefix.ToString();
    const PathAttributes& got = *it->second;
    ASSERT_EQ(got.as_path->ToString(), attrs->as_path->Prepended(kLocalAs).ToString())
        << prefix.ToString();
    ASSERT_EQ(got.next_hop, A4("198.51.100.1")) << prefix.ToString();
    ASSERT_FALSE(got.local_pref) << prefix.ToString();
    ASSERT_FALSE(got.originator_id) << prefix.ToString();
    ASSERT_TRUE(got.cluster_list.empty()) << prefix.ToString();
    ASSERT_EQ(got.origin, attrs->origin) << prefix.ToString();
    ASSERT_EQ(got.communities, attrs->communities) << prefix.ToString();
    ++checked;
  }
  EXPECT_EQ(checked, accepted.size());
  // One UPDATE per distinct exported attribute set and input batch at most: the capture has
  // 89,679 UPDATE messages; packing prefixes that share attributes must not send more than that.
  const size_t announcements = downstream.updates - downstream.end_of_ribs;
  RecordProperty("updates_sent", static_cast<int>(announcements));
  std::printf("PCH: %zu UPDATEs in, %zu prefixes accepted, %zu UPDATEs out (%zu octets)\n",
              capture.updates.size(), accepted.size(), announcements, downstream.octets);
  EXPECT_LE(announcements, capture.updates.size());
  EXPECT_GT(announcements, 70000u);
  // The RIB holds the same prefixes.
  ASSERT_TRUE(rib.errors.empty()) << rib.errors.front();
  EXPECT_EQ(rib.routes.size(), accepted.size());
  auto status = routing->Peer(down.address);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->families[0].advertised, accepted.size());

  // The upstream session goes down: every route is withdrawn downstream and from the RIB.
  upstream.Reset();
  up_listener->OnSessionDown("test");
  io.restart();
  io.run();
  EXPECT_TRUE(downstream.errors.empty()) << downstream.errors.front();
  EXPECT_EQ(downstream.held.size(), 0u);
  EXPECT_EQ(rib.routes.size(), 0u);
}

}  // namespace
}  // namespace sluice::bgp
