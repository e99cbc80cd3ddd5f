// sluice-bgp's MRT methods in-process (bgp/1.0 dump_table, set_mrt, clear_mrt, get_mrt): a
// Loc-RIB of originated routes spanning several pages dumps whole and in prefix order with one
// shard and with several (ReadRoutes merges the shards' pages), and the errors say what is wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "bgp/mrt/mrt_reader.h"
#include "bgp/mrt/mrt_records.h"
#include "bgp/process/bgp_daemon.h"
#include "ipc/methods/bgp.h"
#include "ipc/types_convert.h"
#include "tests/bgp/process_harness.h"

namespace sluice::bgp::process {
namespace {

namespace fs = std::filesystem;

using ipc::methods::bgp::kClearMrt;
using ipc::methods::bgp::kDumpTable;
using ipc::methods::bgp::kGetMrt;
using ipc::methods::bgp::kSetMrt;

constexpr uint32_t kOurAs = 4200000001u;
constexpr int kRoutes = 25000;  // 10,000 routes a page: three pages

class ProcessMrtTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    BgpDaemonOptions o;
    o.rib.clear();  // no RIB: every nexthop resolves
    o.ipv6 = false;
    o.threads = GetParam();
    ASSERT_TRUE(h_.Start(o).ok());
    ASSERT_TRUE(h_.SetIdentity(kOurAs, net::IPv4Address(0x0aff0001)).ok());
    char tmpl[] = "/tmp/process_mrt_test.XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }

  testing::BgpDaemonHarness h_;
  std::string dir_;
};

TEST_P(ProcessMrtTest, LocRibDumpIsWholeAndInOrder) {
  PathAttributes a;
  a.next_hop = net::IPv4Address(0xc0000201);
  for (int i = 0; i < kRoutes; ++i) {
    const net::Prefix p(net::IPv4Address(0x0a000000u + (uint32_t(i) << 8)), 24);
    ASSERT_TRUE(h_.daemon().bgp().Originate(p, a).ok());
  }
  ASSERT_TRUE(h_.Run([&] {
    RouteQuery q;
    q.prefix = net::Prefix(net::IPv4Address(0x0a000000u + (uint32_t(kRoutes - 1) << 8)), 24);
    auto r = h_.daemon().bgp().ReadRoutes(q);
    return r.ok() && !r->empty();
  }));
  v1::DumpTableRequest q;
  q.set_path(dir_ + "/rib.mrt");
  auto reply = h_.Call(kDumpTable, q);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->prefixes(), uint64_t(kRoutes));
  EXPECT_EQ(reply->routes(), uint64_t(kRoutes));
  EXPECT_EQ(reply->octets(), fs::file_size(dir_ + "/rib.mrt"));

  auto reader = mrt::MrtReader::Open(dir_ + "/rib.mrt");
  ASSERT_TRUE(reader.ok());
  mrt::MrtRecord r;
  ASSERT_TRUE((*reader)->Next(&r));
  mrt::PeerIndexTable table;
  ASSERT_TRUE(mrt::DecodePeerIndexTable(r, &table).ok());
  ASSERT_EQ(table.peers.size(), 1u);  // this router, for its originated routes
  EXPECT_EQ(table.peers[0].as, kOurAs);
  AttributeStore store;
  mrt::RibDecoder dec(&store);
  int n = 0;
  std::optional<net::Prefix> last;
  while ((*reader)->Next(&r)) {
    mrt::RibRecord rib;
    ASSERT_TRUE(dec.DecodeRib(r, &rib).ok());
    EXPECT_EQ(rib.sequence, uint32_t(n));
    if (last) {
      EXPECT_LT(*last, rib.prefix);
    }
    last = rib.prefix;
    ASSERT_EQ(rib.entries.size(), 1u);
    EXPECT_EQ(rib.entries[0].peer_index, 0);
    ++n;
  }
  EXPECT_EQ(n, kRoutes);
}

TEST_P(ProcessMrtTest, ErrorsSayWhatIsWrong) {
  v1::DumpTableRequest q;
  q.set_path("relative/rib.mrt");
  auto r = h_.Call(kDumpTable, q);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
  EXPECT_NE(r.status().message().find("must be absolute"), std::string::npos) << r.status();

  q.set_path("/nonexistent-mrt-dir/rib.mrt");
  r = h_.Call(kDumpTable, q);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("No such file or directory"), std::string::npos)
      << r.status();
  EXPECT_NE(r.status().message().find("sluice-bgp runs as user"), std::string::npos) << r.status();

  q.set_path(dir_ + "/in.mrt");
  ipc::ToProto(*net::IPAddress::Parse("192.0.2.9"), q.mutable_adj_rib_in_peer());
  r = h_.Call(kDumpTable, q);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsNotFound(r.status())) << r.status();

  v1::SetMrtRequest set;
  set.mutable_table_dump()->set_pattern(dir_ + "/rib.%H%M");
  set.mutable_table_dump()->set_interval_s(10);
  auto s = h_.Call(kSetMrt, set);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("at least 1 minute"), std::string::npos) << s.status();
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_P(ProcessMrtTest, SetGetAndClear) {
  v1::SetMrtRequest set;
  set.mutable_table_dump()->set_pattern(dir_ + "/rib.%H%M");
  set.mutable_updates()->set_pattern(dir_ + "/updates.%H%M");
  set.mutable_updates()->set_rotate_s(300);
  ASSERT_TRUE(h_.Call(kSetMrt, set).ok());
  auto got = h_.Call(kGetMrt, v1::GetMrtRequest());
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->table_dump().pattern(), dir_ + "/rib.%H%M");
  EXPECT_EQ(got->table_dump().interval_s(), 7200u);  // the default
  EXPECT_EQ(got->updates().rotate_s(), 300u);
  // The update log's file is open at once.
  ASSERT_TRUE(h_.Run([&] {
    auto g = h_.Call(kGetMrt, v1::GetMrtRequest());
    return g.ok() && !g->updates_file().empty();
  }));
  ASSERT_TRUE(h_.Call(kClearMrt, v1::ClearMrtRequest()).ok());
  got = h_.Call(kGetMrt, v1::GetMrtRequest());
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->has_table_dump());
  EXPECT_FALSE(got->has_updates());
}

INSTANTIATE_TEST_SUITE_P(Shards, ProcessMrtTest, ::testing::Values(1, 2),
                         [](const auto& info) { return absl::StrCat("threads", info.param); });

}  // namespace
}  // namespace sluice::bgp::process
