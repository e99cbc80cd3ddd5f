// MRT reader and writer on data made in the test: TABLE_DUMP_V2 and BGP4MP round trips, a
// record cut off at the end, gzip files.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <vector>

#include "bgp/mrt/bgpdump_format.h"
#include "bgp/mrt/mrt_reader.h"
#include "bgp/mrt/mrt_records.h"
#include "bgp/mrt/mrt_writer.h"
#include "bgp/wire/update_encoder.h"

namespace sluice::bgp::mrt {
namespace {

net::IPAddress Ip(const char* t) { return *net::IPAddress::Parse(t); }
net::Prefix P(const char* t) { return *net::Prefix::Parse(t); }

PathAttributes V6Attrs() {
  PathAttributes a;
  a.origin = Origin::kIgp;
  a.as_path = AsPath::Sequence({64496, 4200000000u});
  a.mp_next_hop = MpNextHop{Ip("2001:db8::1"), std::nullopt};
  a.communities = {kCommunityNoExport, 0x00010002};
  return a;
}

TEST(MrtTest, RibDumpRoundTrip) {
  AttributeStore store;
  std::vector<uint8_t> file;
  MrtWriter writer(&file);
  PeerIndexTable table;
  table.collector_id = *net::IPv4Address::Parse("192.0.2.9");
  table.view_name = "test";
  table.peers = {MrtPeer{*net::IPv4Address::Parse("10.0.0.1"), Ip("192.0.2.1"), 64496},
                 MrtPeer{*net::IPv4Address::Parse("10.0.0.2"), Ip("2001:db8::1"), 4200000000u}};
  ASSERT_TRUE(writer.WritePeerIndexTable(1000, table).ok());
  PathAttributes v4 = V6Attrs();
  v4.mp_next_hop.reset();
  v4.next_hop = *net::IPv4Address::Parse("192.0.2.1");
  std::vector<RibEntry> entries(2);
  entries[0].peer_index = 0;
  entries[0].originated_time = 900;
  entries[0].attributes = store.Intern(v4);
  entries[1].peer_index = 1;
  entries[1].originated_time = 950;
  entries[1].attributes = store.Intern(V6Attrs());
  ASSERT_TRUE(writer.WriteRib(1000, 0, P("198.51.100.0/24"), Safi::kUnicast, entries).ok());
  ASSERT_TRUE(writer
                  .WriteRib(1000, 1, P("2001:db8:1::/48"), Safi::kUnicast,
                            std::span<const RibEntry>(entries).subspan(1), /*add_path=*/true)
                  .ok());

  MrtReader reader(file);
  MrtRecord r;
  ASSERT_TRUE(reader.Next(&r));
  PeerIndexTable back;
  ASSERT_TRUE(DecodePeerIndexTable(r, &back).ok());
  EXPECT_EQ(back.view_name, "test");
  ASSERT_EQ(back.peers.size(), 2u);
  EXPECT_EQ(back.peers[1].as, 4200000000u);
  EXPECT_EQ(back.peers[1].address, Ip("2001:db8::1"));

  RibDecoder rib(&store);
  RibRecord rec;
  ASSERT_TRUE(reader.Next(&r));
  ASSERT_TRUE(rib.DecodeRib(r, &rec).ok());
  EXPECT_EQ(rec.prefix, P("198.51.100.0/24"));
  ASSERT_EQ(rec.entries.size(), 2u);
  EXPECT_EQ(rec.entries[0].attributes, entries[0].attributes);  // same interned set
  EXPECT_EQ(rec.entries[1].attributes, entries[1].attributes);
  EXPECT_EQ(rec.entries[1].originated_time, 950u);
  ASSERT_TRUE(reader.Next(&r));
  ASSERT_TRUE(rib.DecodeRib(r, &rec).ok());
  EXPECT_TRUE(rec.add_path);
  EXPECT_EQ(rec.prefix, P("2001:db8:1::/48"));
  EXPECT_FALSE(reader.Next(&r));
  EXPECT_FALSE(reader.truncated());

  // And the bgpdump text of it.
  MrtReader again(file);
  BgpdumpFormatter f(&store);
  std::string text;
  while (again.Next(&r)) f.Format(r, &text);
  EXPECT_EQ(text,
            "TABLE_DUMP2|1000|B|192.0.2.1|64496|198.51.100.0/24|64496 4200000000|IGP|192.0.2.1|0|0|"
            "no-export 1:2|NAG||\n"
            "TABLE_DUMP2|1000|B|2001:db8::1|4200000000|198.51.100.0/24|64496 4200000000|IGP|"
            "2001:db8::1|0|0|no-export 1:2|NAG||\n"
            "TABLE_DUMP2_AP|1000|B|2001:db8::1|4200000000|2001:db8:1::/48|0|64496 4200000000|IGP|"
            "2001:db8::1|0|0|no-export 1:2|NAG||\n");
}

TEST(MrtTest, Bgp4mpRoundTripAndCutOffLastRecord) {
  AttributeStore store;
  std::vector<uint8_t> update;
  PathAttributes a = V6Attrs();
  a.mp_next_hop.reset();
  a.next_hop = *net::IPv4Address::Parse("192.0.2.1");
  ASSERT_EQ(*UpdateEncoder(SessionParams())
                 .Announce(a, std::vector<Nlri>{Nlri{P("10.0.0.0/8")}}, &update),
            1);
  std::vector<uint8_t> file;
  MrtWriter writer(&file);
  Bgp4mpStateChange sc;
  sc.peer_as = 64496;
  sc.local_as = 12654;
  sc.peer_address = Ip("192.0.2.1");
  sc.local_address = Ip("192.0.2.254");
  sc.old_state = 1;
  sc.new_state = 6;
  ASSERT_TRUE(writer.WriteBgp4mpStateChange(100, 5, true, true, sc).ok());
  Bgp4mpMessage m;
  m.peer_as = 64496;
  m.local_as = 12654;
  m.peer_address = Ip("192.0.2.1");
  m.local_address = Ip("192.0.2.254");
  m.as4 = true;
  m.message = update;
  ASSERT_TRUE(writer.WriteBgp4mpMessage(101, 42, true, m).ok());
  ASSERT_TRUE(writer.WriteBgp4mpMessage(102, 0, false, m).ok());

  std::string text;
  {
    MrtReader reader(file);
    BgpdumpFormatter f(&store);
    MrtRecord r;
    while (reader.Next(&r)) f.Format(r, &text);
  }
  EXPECT_EQ(text,
            "BGP4MP_ET|100.000005|STATE|192.0.2.1|64496|1|6\n"
            "BGP4MP_ET|101.000042|A|192.0.2.1|64496|10.0.0.0/8|64496 4200000000|IGP|192.0.2.1|0|0|"
            "no-export 1:2|NAG||\n"
            "BGP4MP|102|A|192.0.2.1|64496|10.0.0.0/8|64496 4200000000|IGP|192.0.2.1|0|0|"
            "no-export 1:2|NAG||\n");

  // Cut the last record short: the two before it are read, then truncated() is reported.
  std::vector<uint8_t> cut(file.begin(), file.end() - 5);
  MrtReader reader(cut);
  MrtRecord r;
  int n = 0;
  while (reader.Next(&r)) ++n;
  EXPECT_EQ(n, 2);
  EXPECT_TRUE(reader.truncated());
  EXPECT_NE(reader.error().find("record 3"), std::string::npos) << reader.error();
}

TEST(MrtTest, GzipFilesAreWrittenAndReadTransparently) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("sluice_mrt_test_" + std::to_string(getpid()) + ".mrt.gz"))
                               .string();
  {
    auto w = MrtWriter::Open(path);
    ASSERT_TRUE(w.ok());
    Bgp4mpStateChange sc;
    sc.peer_address = Ip("192.0.2.1");
    sc.local_address = Ip("192.0.2.2");
    for (uint16_t i = 0; i < 1000; ++i) {
      sc.new_state = i;
      ASSERT_TRUE((*w)->WriteBgp4mpStateChange(i, 0, false, true, sc).ok());
    }
    ASSERT_TRUE((*w)->Close().ok());
  }
  FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(std::fgetc(f), 0x1f);  // gzip magic
  std::fclose(f);
  auto reader = MrtReader::Open(path);
  ASSERT_TRUE(reader.ok());
  MrtRecord r;
  int n = 0;
  while ((*reader)->Next(&r)) {
    Bgp4mpStateChange sc;
    ASSERT_TRUE(DecodeBgp4mpStateChange(r, &sc).ok());
    EXPECT_EQ(sc.new_state, n);
    ++n;
  }
  EXPECT_EQ(n, 1000);
  EXPECT_FALSE((*reader)->truncated());
  std::filesystem::remove(path);
  EXPECT_FALSE(MrtReader::Open(path).ok());
}

}  // namespace
}  // namespace sluice::bgp::mrt
