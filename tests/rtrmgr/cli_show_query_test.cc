// What `sluice show bgp routes ...` asks sluice-bgp for (ParseBgpRoutes): the RPKI selection
// goes to every peer's Adj-RIB-In, both families, unless a peer or a family is named.
#include <sstream>

#include "gtest/gtest.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/show.h"

namespace sluice::rtrmgr::cli {
namespace {

struct Parsed {
  std::optional<BgpRoutesQuery> query;
  std::string err;
};

Parsed Parse(const Args& args) {
  std::ostringstream out, err;
  Context c{"", 1000, &out, &err};
  Parsed p;
  p.query = ParseBgpRoutes(args, c);
  p.err = err.str();
  return p;
}

std::string Peer(const bgp::v1::ListRoutesRequest& q) { return q.has_peer() ? Text(q.peer()) : ""; }

TEST(ShowBgpRoutesQuery, RpkiSelectsEveryPeersReceivedRoutesOfBothFamilies) {
  Parsed p = Parse({"rpki", "invalid"});
  ASSERT_TRUE(p.query) << p.err;
  EXPECT_EQ(p.query->request.rpki(), "invalid");
  EXPECT_EQ(p.query->request.view(), bgp::v1::ADJ_RIB_IN);
  EXPECT_TRUE(p.query->every_peer);
  EXPECT_TRUE(p.query->both_families);
  EXPECT_EQ(Peer(p.query->request), "");
}

TEST(ShowBgpRoutesQuery, RpkiWithAPeerAndAFamily) {
  Parsed p = Parse({"rpki", "not-found", "peer", "192.0.2.2", "ipv6"});
  ASSERT_TRUE(p.query) << p.err;
  EXPECT_EQ(p.query->request.rpki(), "not-found");
  EXPECT_EQ(p.query->request.view(), bgp::v1::ADJ_RIB_IN);
  EXPECT_EQ(p.query->request.family(), "ipv6");
  EXPECT_FALSE(p.query->every_peer);
  EXPECT_FALSE(p.query->both_families);
  EXPECT_EQ(Peer(p.query->request), "192.0.2.2");
  // The neighbor form's words.
  p = Parse({"peer", "192.0.2.2", "in", "rpki", "valid"});
  ASSERT_TRUE(p.query) << p.err;
  EXPECT_EQ(p.query->request.rpki(), "valid");
  EXPECT_EQ(Peer(p.query->request), "192.0.2.2");
  EXPECT_FALSE(p.query->every_peer);
}

TEST(ShowBgpRoutesQuery, WithoutRpkiNothingChanges) {
  Parsed p = Parse({"10.0.0.0/8"});
  ASSERT_TRUE(p.query) << p.err;
  EXPECT_EQ(p.query->request.rpki(), "");
  EXPECT_EQ(p.query->request.view(), bgp::v1::LOC_RIB);
  EXPECT_FALSE(p.query->every_peer);
  EXPECT_FALSE(p.query->both_families);
}

TEST(ShowBgpRoutesQuery, BadRpkiFormsAreUsageErrors) {
  EXPECT_FALSE(Parse({"rpki"}).query);
  EXPECT_FALSE(Parse({"rpki", "bogus"}).query);
  Parsed out = Parse({"rpki", "invalid", "peer", "192.0.2.2", "out"});
  EXPECT_FALSE(out.query);
  EXPECT_NE(out.err.find("received routes"), std::string::npos) << out.err;
}

}  // namespace
}  // namespace sluice::rtrmgr::cli
