// Live MRT outputs (bgp/mrt/mrt_update_log.h, mrt_table_dump.h, mrt_path.h): the files they
// write read back with our MRT reader and with `bgpdump -m` (Debian package bgpdump, skipped
// without it), a full queue drops and counts, an unwritable directory says why, rotation starts
// a new file.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bgp/mrt/mrt_path.h"
#include "bgp/mrt/mrt_reader.h"
#include "bgp/mrt/mrt_records.h"
#include "bgp/mrt/mrt_table_dump.h"
#include "bgp/mrt/mrt_update_log.h"
#include "bgp/wire/update_encoder.h"

namespace sluice::bgp::mrt {
namespace {

namespace fs = std::filesystem;

net::IPAddress Ip(const char* t) { return *net::IPAddress::Parse(t); }
net::Prefix P(const char* t) { return *net::Prefix::Parse(t); }
net::IPv4Address V4(const char* t) { return *net::IPv4Address::Parse(t); }

bool HaveBgpdump() { return std::system("command -v bgpdump >/dev/null 2>&1") == 0; }

// `bgpdump -m FILE`, line by line.
std::vector<std::string> Bgpdump(const std::string& file) {
  std::vector<std::string> lines;
  FILE* p = popen(("bgpdump -m " + file + " 2>/dev/null").c_str(), "r");
  if (p == nullptr) return lines;
  std::array<char, 4096> buf;
  std::string out;
  while (fgets(buf.data(), int(buf.size()), p) != nullptr) out += buf.data();
  pclose(p);
  for (absl::string_view l : absl::StrSplit(out, '\n', absl::SkipEmpty())) lines.emplace_back(l);
  return lines;
}

// bgpdump -m's line without its timestamp (field 2).
std::string DropTime(const std::string& line) {
  std::vector<std::string> f = absl::StrSplit(line, '|');
  if (f.size() > 1) f.erase(f.begin() + 1);
  return absl::StrJoin(f, "|");
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/mrt_live_test.XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  std::vector<std::string> Files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::string path_;
};

TapPeer Peer(bool four_octet_as) {
  TapPeer p;
  p.remote_address = Ip("192.0.2.1");
  p.remote_port = 179;
  p.local_address = Ip("192.0.2.2");
  p.local_port = 40000;
  p.local_as = 64500;
  p.remote_as = four_octet_as ? 4200000001u : 64496;
  p.remote_bgp_id = V4("10.0.0.1");
  p.four_octet_as = four_octet_as;
  return p;
}

// One UPDATE announcing `prefixes` from AS path `path`, as a session with `as4` encodes it.
std::vector<uint8_t> Update(bool as4, std::initializer_list<uint32_t> path,
                            std::vector<const char*> prefixes) {
  SessionParams params;
  params.four_octet_as = as4;
  UpdateEncoder enc(params);
  PathAttributes a;
  a.origin = Origin::kIgp;
  a.as_path = AsPath::Sequence(path);
  a.next_hop = V4("192.0.2.1");
  std::vector<Nlri> nlri;
  for (const char* p : prefixes) nlri.push_back(Nlri{P(p), 0, Safi::kUnicast});
  std::vector<uint8_t> out;
  EXPECT_TRUE(enc.Announce(a, nlri, &out).ok());
  return out;
}

std::vector<uint8_t> Withdrawal(std::vector<const char*> prefixes) {
  UpdateEncoder enc{SessionParams()};
  std::vector<Nlri> nlri;
  for (const char* p : prefixes) nlri.push_back(Nlri{P(p), 0, Safi::kUnicast});
  std::vector<uint8_t> out;
  EXPECT_TRUE(enc.Withdraw(nlri, &out).ok());
  return out;
}

TEST(MrtPathTest, PatternsAndPeriods) {
  const absl::Time t = absl::FromUnixSeconds(1764190800 + 17 * 60 + 5);  // 2025-11-26 21:17:05
  EXPECT_EQ(*FormatMrtPath("/var/lib/sluice/rib.%Y%m%d.%H%M", t),
            "/var/lib/sluice/rib.20251126.2117");
  EXPECT_FALSE(FormatMrtPath("", t).ok());
  EXPECT_EQ(PeriodStart(t, absl::Minutes(15)), absl::FromUnixSeconds(1764190800 + 15 * 60));
  EXPECT_EQ(PeriodStart(t, absl::Hours(2)), absl::FromUnixSeconds(1764187200));
}

TEST(MrtUpdateLogTest, MessagesAndStateChangesReadBack) {
  TempDir dir;
  auto log = MrtUpdateLog::Start({dir / "updates.%Y%m%d.%H%M", absl::Minutes(15)});
  ASSERT_TRUE(log.ok()) << log.status();
  const TapPeer as4 = Peer(true), as2 = Peer(false);
  (*log)->OnStateChange(as4, FsmState::kOpenConfirm, FsmState::kEstablished);
  const std::vector<uint8_t> u4 =
      Update(true, {4200000001u, 64497}, {"198.51.100.0/24", "203.0.113.0/24"});
  const std::vector<uint8_t> u2 = Update(false, {64496, 64497}, {"198.51.100.0/24"});
  const std::vector<uint8_t> w = Withdrawal({"203.0.113.0/24"});
  (*log)->OnMessageReceived(as4, u4);
  (*log)->OnMessageReceived(as2, u2);
  (*log)->OnMessageReceived(as4, w);
  (*log)->Flush();
  const UpdateLogStats s = (*log)->stats();
  EXPECT_EQ(s.messages, 3u);
  EXPECT_EQ(s.state_changes, 1u);
  EXPECT_EQ(s.dropped, 0u);
  EXPECT_EQ(s.files, 1u);
  const std::string file = s.file;
  log->reset();  // closes the file

  auto reader = MrtReader::Open(file);
  ASSERT_TRUE(reader.ok()) << reader.status();
  MrtRecord r;
  ASSERT_TRUE((*reader)->Next(&r));
  EXPECT_EQ(r.type, uint16_t(MrtType::kBgp4mpEt));
  EXPECT_EQ(r.subtype, uint16_t(Bgp4mpSubtype::kStateChangeAs4));
  Bgp4mpStateChange sc;
  ASSERT_TRUE(DecodeBgp4mpStateChange(r, &sc).ok());
  EXPECT_EQ(sc.old_state, 5);  // OpenConfirm (RFC 6396 §4.4.1)
  EXPECT_EQ(sc.new_state, 6);  // Established
  EXPECT_EQ(sc.peer_as, 4200000001u);
  EXPECT_EQ(sc.peer_address, Ip("192.0.2.1"));
  std::vector<uint16_t> subtypes;
  std::vector<uint32_t> peer_as;
  while ((*reader)->Next(&r)) {
    EXPECT_EQ(r.type, uint16_t(MrtType::kBgp4mpEt));
    subtypes.push_back(r.subtype);
    Bgp4mpMessage m;
    ASSERT_TRUE(DecodeBgp4mpMessage(r, &m).ok());
    peer_as.push_back(m.peer_as);
    EXPECT_EQ(m.local_address, Ip("192.0.2.2"));
  }
  EXPECT_FALSE((*reader)->truncated());
  EXPECT_EQ(subtypes, (std::vector<uint16_t>{uint16_t(Bgp4mpSubtype::kMessageAs4),
                                             uint16_t(Bgp4mpSubtype::kMessage),
                                             uint16_t(Bgp4mpSubtype::kMessageAs4)}));
  EXPECT_EQ(peer_as, (std::vector<uint32_t>{4200000001u, 64496, 4200000001u}));

  if (!HaveBgpdump()) GTEST_SKIP() << "bgpdump is not installed (Debian package bgpdump)";
  std::vector<std::string> lines;
  for (const std::string& l : Bgpdump(file)) lines.push_back(DropTime(l));
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "BGP4MP_ET|STATE|192.0.2.1|4200000001|5|6",
                       "BGP4MP_ET|A|192.0.2.1|4200000001|198.51.100.0/24|4200000001 64497|IGP|"
                       "192.0.2.1|0|0||NAG||",
                       "BGP4MP_ET|A|192.0.2.1|4200000001|203.0.113.0/24|4200000001 64497|IGP|"
                       "192.0.2.1|0|0||NAG||",
                       "BGP4MP_ET|A|192.0.2.1|64496|198.51.100.0/24|64496 64497|IGP|192.0.2.1|0|0|"
                       "|NAG||",
                       "BGP4MP_ET|W|192.0.2.1|4200000001|203.0.113.0/24",
                   }));
}

TEST(MrtUpdateLogTest, FullQueueDropsAndCounts) {
  TempDir dir;
  UpdateLogOptions o{dir / "updates", absl::Minutes(15)};
  o.queue_limit = 200;  // octets: room for a message or two
  auto log = MrtUpdateLog::Start(o);
  ASSERT_TRUE(log.ok());
  const std::vector<uint8_t> u = Update(true, {64496}, {"198.51.100.0/24"});
  constexpr int kSent = 2000;
  for (int i = 0; i < kSent; ++i) (*log)->OnMessageReceived(Peer(true), u);
  (*log)->Flush();
  const UpdateLogStats s = (*log)->stats();
  EXPECT_GT(s.dropped, 0u);
  EXPECT_EQ(s.messages + s.dropped, uint64_t(kSent));
  log->reset();
  auto reader = MrtReader::Open(dir / "updates");
  ASSERT_TRUE(reader.ok());
  MrtRecord r;
  uint64_t records = 0;
  while ((*reader)->Next(&r)) ++records;
  EXPECT_EQ(records, s.messages);
}

// More records than one of the queue's chunks holds, queued faster than the writer takes them:
// every one is written, in the order received, each with its own message.
TEST(MrtUpdateLogTest, ALongBurstIsWrittenWholeAndInOrder) {
  TempDir dir;
  auto log = MrtUpdateLog::Start({dir / "updates", absl::Minutes(15)});
  ASSERT_TRUE(log.ok());
  constexpr int kSent = 10000;
  std::vector<std::vector<uint8_t>> sent;
  for (int i = 0; i < kSent; ++i) {
    const std::string prefix = absl::StrCat("10.", i / 256, ".", i % 256, ".0/24");
    sent.push_back(Update(true, {64496, uint32_t(64497 + i % 7)}, {prefix.c_str()}));
    (*log)->OnMessageReceived(Peer(true), sent.back());
  }
  (*log)->Flush();
  EXPECT_EQ((*log)->stats().messages, uint64_t(kSent));
  EXPECT_EQ((*log)->stats().dropped, 0u);
  log->reset();
  auto reader = MrtReader::Open(dir / "updates");
  ASSERT_TRUE(reader.ok());
  MrtRecord r;
  int i = 0;
  for (; (*reader)->Next(&r); ++i) {
    ASSERT_LT(i, kSent);
    const std::vector<uint8_t>& m = sent[size_t(i)];
    ASSERT_GE(r.body.size(), m.size());
    ASSERT_TRUE(std::equal(m.begin(), m.end(), r.body.end() - ptrdiff_t(m.size())))
        << "record " << i << " is not the message received " << i << "th";
  }
  EXPECT_EQ(i, kSent);
}

// Records in `file` that a reader gets now (the writer may still have it open).
int RecordsIn(const std::string& file) {
  auto reader = MrtReader::Open(file);
  if (!reader.ok()) return 0;
  MrtRecord r;
  int n = 0;
  while ((*reader)->Next(&r)) ++n;
  return n;
}

// A router that goes quiet after a few UPDATEs: they reach the file without a Flush, a rotation
// or the log's end (plain and gzip files).
TEST(MrtUpdateLogTest, AQuietLogsRecordsReachTheFile) {
  for (const char* name : {"updates", "updates.gz"}) {
    SCOPED_TRACE(name);
    TempDir dir;
    auto log = MrtUpdateLog::Start({dir / name, absl::Minutes(15)});
    ASSERT_TRUE(log.ok());
    (*log)->OnStateChange(Peer(true), FsmState::kOpenConfirm, FsmState::kEstablished);
    (*log)->OnMessageReceived(Peer(true), Update(true, {64496}, {"198.51.100.0/24"}));
    const absl::Time start = absl::Now();
    int records = 0;
    while ((records = RecordsIn(dir / name)) < 2 && absl::Now() - start < absl::Seconds(10)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(records, 2) << "after " << absl::Now() - start;
  }
}

TEST(MrtUpdateLogTest, UnwritableDirectorySaysWhy) {
  auto log = MrtUpdateLog::Start({"/nonexistent-mrt-dir/updates.%H%M", absl::Minutes(15)});
  ASSERT_TRUE(log.ok());
  (*log)->OnMessageReceived(Peer(true), Update(true, {64496}, {"198.51.100.0/24"}));
  (*log)->Flush();
  const UpdateLogStats s = (*log)->stats();
  EXPECT_EQ(s.messages, 0u);
  EXPECT_EQ(s.dropped, 1u);
  EXPECT_NE(s.error.find("/nonexistent-mrt-dir/updates."), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("No such file or directory"), std::string::npos) << s.error;
  EXPECT_FALSE(MrtUpdateLog::Start({"", absl::Minutes(15)}).ok());
  EXPECT_FALSE(MrtUpdateLog::Start({"/tmp/x", absl::Milliseconds(10)}).ok());
}

TEST(MrtUpdateLogTest, RotationStartsANewFilePerPeriod) {
  TempDir dir;
  auto log = MrtUpdateLog::Start({dir / "updates.%H%M%S", absl::Seconds(1)});
  ASSERT_TRUE(log.ok());
  const std::vector<uint8_t> u = Update(true, {64496}, {"198.51.100.0/24"});
  (*log)->OnMessageReceived(Peer(true), u);
  (*log)->Flush();
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  (*log)->OnMessageReceived(Peer(true), u);
  (*log)->Flush();
  EXPECT_GE((*log)->stats().files, 2u);
  log->reset();
  // Every period has its file, and the two messages are in two of them.
  const std::vector<std::string> files = dir.Files();
  ASSERT_GE(files.size(), 2u);
  int with_records = 0;
  for (const std::string& f : files) {
    auto reader = MrtReader::Open(f);
    ASSERT_TRUE(reader.ok());
    MrtRecord r;
    if ((*reader)->Next(&r)) ++with_records;
  }
  EXPECT_EQ(with_records, 2);
}

// A log started again within its period (new configuration, restarted sluice-bgp) keeps what
// the file held; so does a pattern naming one file for every period; gzip files too.
TEST(MrtUpdateLogTest, StartedAgainAppends) {
  TempDir dir;
  const std::vector<uint8_t> u = Update(true, {64496}, {"198.51.100.0/24"});
  for (const char* name : {"updates.%Y%m%d", "updates.gz"}) {
    for (int round = 0; round < 2; ++round) {
      auto log = MrtUpdateLog::Start({dir / name, absl::Seconds(1)});
      ASSERT_TRUE(log.ok());
      (*log)->OnMessageReceived(Peer(true), u);
      (*log)->Flush();
      if (round == 1) std::this_thread::sleep_for(std::chrono::milliseconds(1100));
      (*log)->OnMessageReceived(Peer(true), u);
    }
  }
  const std::vector<std::string> files = dir.Files();
  ASSERT_EQ(files.size(), 2u);
  for (const std::string& f : files) {
    auto reader = MrtReader::Open(f);
    ASSERT_TRUE(reader.ok());
    MrtRecord r;
    int records = 0;
    while ((*reader)->Next(&r)) ++records;
    EXPECT_FALSE((*reader)->truncated()) << f << ": " << (*reader)->error();
    EXPECT_EQ(records, 4) << f;
  }
}

TEST(MrtTableDumpTest, LocRibReadsBackAndAsBgpdumpSeesIt) {
  TempDir dir;
  AttributeStore store;
  PeerIndexTable table;
  table.collector_id = V4("10.0.0.9");
  table.view_name = "loc-rib";
  table.peers = {MrtPeer{V4("10.0.0.9"), Ip("0.0.0.0"), 64500},
                 MrtPeer{V4("10.0.0.1"), Ip("192.0.2.1"), 4200000001u},
                 MrtPeer{V4("10.0.0.2"), Ip("2001:db8::1"), 64497}};
  PeerSource local;
  local.local = true;
  PeerSource p1;
  p1.peer_id = 1;
  p1.address = Ip("192.0.2.1");
  PeerSource p2;
  p2.peer_id = 2;
  p2.address = Ip("2001:db8::1");
  PeerSource stranger;
  stranger.peer_id = 3;
  stranger.address = Ip("192.0.2.99");
  PathAttributes a1;
  a1.origin = Origin::kIgp;
  a1.as_path = AsPath::Sequence({4200000001u, 64511});
  a1.next_hop = V4("192.0.2.1");
  a1.med = 10;
  PathAttributes a0;
  a0.origin = Origin::kIncomplete;
  a0.next_hop = V4("192.0.2.2");
  PathAttributes a2;
  a2.origin = Origin::kIgp;
  a2.as_path = AsPath::Sequence({64497});
  a2.mp_next_hop = MpNextHop{Ip("2001:db8::1"), std::nullopt};
  auto route = [](const char* prefix, const PeerSource* src, AttrRef attrs) {
    BgpRoute r;
    r.net = P(prefix);
    r.source = src;
    r.attrs = std::move(attrs);
    return r;
  };
  auto dump = MrtTableDump::Begin(dir / "rib.mrt", table, absl::FromUnixSeconds(1764190800));
  ASSERT_TRUE(dump.ok()) << dump.status();
  EXPECT_TRUE(fs::exists(dir / "rib.mrt.partial"));
  EXPECT_FALSE(fs::exists(dir / "rib.mrt"));
  std::vector<BgpRoute> page1;
  page1.push_back(route("10.1.0.0/16", &local, store.Intern(a0)));
  page1.push_back(route("198.51.100.0/24", &p1, store.Intern(a1)));
  page1.push_back(route("203.0.113.0/24", &stranger, store.Intern(a1)));  // not in the table
  (*dump)->AddPage(std::move(page1));
  std::vector<BgpRoute> page2;
  page2.push_back(route("2001:db8:100::/40", &p2, store.Intern(a2)));
  (*dump)->AddPage(std::move(page2));
  absl::Status status = absl::UnknownError("not done");
  TableDumpResult result;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  (*dump)->Finish([&](absl::Status s, TableDumpResult r) {
    std::lock_guard lock(mu);
    status = s;
    result = r;
    done = true;
    cv.notify_all();
  });
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return done; });
  }
  dump->reset();
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(result.prefixes, 3u);
  EXPECT_EQ(result.routes, 3u);
  EXPECT_EQ(result.skipped, 1u);
  EXPECT_FALSE(fs::exists(dir / "rib.mrt.partial"));
  EXPECT_EQ(result.octets, fs::file_size(dir / "rib.mrt"));

  auto reader = MrtReader::Open(dir / "rib.mrt");
  ASSERT_TRUE(reader.ok());
  MrtRecord r;
  ASSERT_TRUE((*reader)->Next(&r));
  PeerIndexTable back;
  ASSERT_TRUE(DecodePeerIndexTable(r, &back).ok());
  EXPECT_EQ(back.peers.size(), 3u);
  RibDecoder dec(&store);
  std::vector<std::string> seen;
  while ((*reader)->Next(&r)) {
    RibRecord rib;
    ASSERT_TRUE(dec.DecodeRib(r, &rib).ok());
    ASSERT_EQ(rib.entries.size(), 1u);
    seen.push_back(rib.prefix.ToString() + " " + std::to_string(rib.entries[0].peer_index));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"10.1.0.0/16 0", "198.51.100.0/24 1",
                                            "2001:db8:100::/40 2"}));

  if (!HaveBgpdump()) GTEST_SKIP() << "bgpdump is not installed (Debian package bgpdump)";
  std::vector<std::string> lines;
  for (const std::string& l : Bgpdump(dir / "rib.mrt")) lines.push_back(DropTime(l));
  EXPECT_EQ(lines,
            (std::vector<std::string>{
                "TABLE_DUMP2|B|0.0.0.0|64500|10.1.0.0/16||INCOMPLETE|192.0.2.2|0|0||NAG||",
                "TABLE_DUMP2|B|192.0.2.1|4200000001|198.51.100.0/24|4200000001 64511|IGP|"
                "192.0.2.1|0|10||NAG||",
                "TABLE_DUMP2|B|2001:db8::1|64497|2001:db8:100::/40|64497|IGP|2001:db8::1|0|0|"
                "|NAG||",
            }));
}

TEST(MrtTableDumpTest, UnwritablePathSaysWhyAndAbandonedDumpLeavesNothing) {
  PeerIndexTable table;
  auto bad = MrtTableDump::Begin("/nonexistent-mrt-dir/rib", table, absl::Now());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("No such file or directory"), std::string::npos)
      << bad.status();
  TempDir dir;
  {
    auto dump = MrtTableDump::Begin(dir / "rib", table, absl::Now());
    ASSERT_TRUE(dump.ok());
  }
  EXPECT_TRUE(dir.Files().empty());
  // Only a regular file is replaced.
  fs::create_directory(dir / "sub");
  fs::create_symlink(dir / "sub", dir / "link");
  for (const char* name : {"sub", "link"}) {
    auto not_file = MrtTableDump::Begin(dir / name, table, absl::Now());
    ASSERT_FALSE(not_file.ok()) << name;
    EXPECT_NE(not_file.status().message().find("is not a regular file"), std::string::npos)
        << not_file.status();
  }
}

}  // namespace
}  // namespace sluice::bgp::mrt
