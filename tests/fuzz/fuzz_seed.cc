// Writes a seed corpus for the BGP fuzzers into a folder:
//   bgp_fuzz_seed message DIR   UPDATE and OPEN messages (each prefixed with a session-parameter
//                               octet) taken from the captures in $SLUICE_DATA_DIR/mrt
//   bgp_fuzz_seed mrt DIR       the first records of every capture, as small MRT files
//   bgp_fuzz_seed session DIR   sessions for bgp_session_fuzzer: made here, and one per capture
//                               carrying the first UPDATEs of its first peer
// Without SLUICE_DATA_DIR it writes a few messages and records made here, so the fuzz test still
// runs.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "bgp/mrt/mrt_reader.h"
#include "bgp/mrt/mrt_records.h"
#include "bgp/mrt/mrt_writer.h"
#include "bgp/wire/open_message.h"
#include "bgp/wire/update_encoder.h"
#include "tests/bgp/test_data.h"
#include "tests/fuzz/session_seed.h"

namespace {

using namespace sluice::bgp;

int written = 0;

void WriteFile(const std::string& dir, const std::string& name, const std::vector<uint8_t>& data) {
  const std::string path = dir + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return;
  std::fwrite(data.data(), 1, data.size(), f);
  std::fclose(f);
  ++written;
}

// Session-parameter octet for a message from an MRT record (see bgp_message_fuzzer.cc).
uint8_t ModeFor(const mrt::Bgp4mpMessage& m) {
  return uint8_t((m.as4 ? 1 : 0) | 2 | 8 | (m.add_path ? 16 : 0) | 32);
}

void SyntheticMessages(const std::string& dir) {
  PathAttributes a;
  a.origin = Origin::kIgp;
  a.as_path = AsPath::Sequence({65001, 200000});
  a.next_hop = *sluice::net::IPv4Address::Parse("192.0.2.1");
  a.communities = {1, 2};
  a.mp_next_hop = MpNextHop{*sluice::net::IPAddress::Parse("2001:db8::1"), std::nullopt};
  for (uint8_t mode : {uint8_t(1), uint8_t(0), uint8_t(1 | 16 | 32)}) {
    SessionParams p;
    p.four_octet_as = mode & 1;
    p.families = sluice::bgp::AfiSafiSet::All();
    if (mode & 16) p.add_path_send = sluice::bgp::AfiSafiSet::All();
    std::vector<Nlri> nlri = {Nlri{*sluice::net::Prefix::Parse("10.0.0.0/8")},
                              Nlri{*sluice::net::Prefix::Parse("2001:db8::/32")}};
    std::vector<uint8_t> wire = {mode};
    (void)UpdateEncoder(p).Pack(&a, nlri, nlri, &wire);
    WriteFile(dir, "synthetic-update-" + std::to_string(mode), wire);
  }
  Capabilities c;
  c.multiprotocol = {kIPv4Unicast, kIPv6Unicast};
  c.add_path = {AddPathFamily{kIPv4Unicast, 3}};
  c.graceful_restart = GracefulRestart{true, false, 120, {{kIPv4Unicast, true}}};
  std::vector<uint8_t> open = {1};
  (void)AppendOpen(OpenMessage::Make(4200000000u, 90, sluice::net::IPv4Address(1), c), &open);
  WriteFile(dir, "synthetic-open", open);
}

void SyntheticMrt(const std::string& dir) {
  std::vector<uint8_t> file;
  mrt::MrtWriter w(&file);
  mrt::PeerIndexTable t;
  t.peers = {mrt::MrtPeer{sluice::net::IPv4Address(1), *sluice::net::IPAddress::Parse("192.0.2.1"),
                          65001}};
  (void)w.WritePeerIndexTable(1, t);
  AttributeStore store;
  PathAttributes a;
  a.origin = Origin::kIgp;
  a.as_path = AsPath::Sequence({65001});
  a.next_hop = *sluice::net::IPv4Address::Parse("192.0.2.1");
  std::vector<mrt::RibEntry> e(1);
  e[0].attributes = store.Intern(a);
  (void)w.WriteRib(1, 0, *sluice::net::Prefix::Parse("10.0.0.0/8"), Safi::kUnicast, e);
  WriteFile(dir, "synthetic-rib", file);
}

// The first 30 UPDATEs the capture's first peer sent, on an iBGP session of its AS width.
void CaptureSession(mrt::MrtReader& reader, const std::string& dir, const std::string& name) {
  std::optional<testing::SessionSeed> seed;
  int updates = 0;
  uint32_t peer_as = 0;
  mrt::MrtRecord r;
  while (updates < 30 && reader.Next(&r)) {
    mrt::Bgp4mpMessage m;
    if (!mrt::IsBgp4mpMessage(r) || !mrt::DecodeBgp4mpMessage(r, &m).ok() || m.local) continue;
    if (m.message.size() < 19 || m.message[18] != 2) continue;
    if (!seed) {
      peer_as = m.peer_as;
      seed.emplace(uint8_t(testing::kSessionIbgp | testing::kSessionAllFamilies |
                           (m.as4 ? 0 : testing::kSessionTwoOctetAs) |
                           (m.add_path ? testing::kSessionAddPath : 0)));
    }
    if (m.peer_as != peer_as) continue;
    seed->Receive(m.message);
    if (++updates % 10 == 0) seed->Keepalive();
  }
  if (seed) WriteFile(dir, name + ".session", seed->bytes());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc == 3 ? argv[1] : "";
  if (mode != "message" && mode != "mrt" && mode != "session") {
    std::fprintf(stderr, "usage: bgp_fuzz_seed message|mrt|session DIR\n");
    return 2;
  }
  const bool messages = mode == "message";
  const std::string dir = argv[2];
  if (mode == "session") {
    for (const auto& [name, bytes] : testing::SyntheticSessions()) WriteFile(dir, name, bytes);
  } else if (messages) {
    SyntheticMessages(dir);
  } else {
    SyntheticMrt(dir);
  }
  for (const std::string& path : sluice::testing::MrtFiles()) {
    auto reader = mrt::MrtReader::Open(path);
    if (!reader.ok()) continue;
    const std::string base = path.substr(path.rfind('/') + 1);
    if (mode == "session") {
      CaptureSession(**reader, dir, base);
      continue;
    }
    mrt::MrtRecord r;
    if (!messages) {
      // The first 40 records, written back as they were (BGP4MP_ET microseconds included).
      std::vector<uint8_t> out;
      for (int i = 0; i < 40 && (*reader)->Next(&r); ++i) {
        const bool et = r.type == uint16_t(mrt::MrtType::kBgp4mpEt);
        uint8_t h[16];
        StoreU32(h, r.timestamp);
        StoreU16(h + 4, r.type);
        StoreU16(h + 6, r.subtype);
        StoreU32(h + 8, uint32_t(r.body.size() + (et ? 4 : 0)));
        StoreU32(h + 12, r.microseconds);
        out.insert(out.end(), h, h + (et ? 16 : 12));
        out.insert(out.end(), r.body.begin(), r.body.end());
      }
      WriteFile(dir, base + ".head", out);
      continue;
    }
    // Every 400th UPDATE and every OPEN/NOTIFICATION.
    int updates = 0;
    while ((*reader)->Next(&r)) {
      mrt::Bgp4mpMessage m;
      if (!mrt::IsBgp4mpMessage(r) || !mrt::DecodeBgp4mpMessage(r, &m).ok()) continue;
      if (m.message.size() < 19) continue;
      const uint8_t type = m.message[18];
      if (type == 2 && updates++ % 400 != 0) continue;
      if (type == 4) continue;
      std::vector<uint8_t> seed = {ModeFor(m)};
      seed.insert(seed.end(), m.message.begin(), m.message.end());
      WriteFile(dir, base + "-" + std::to_string(r.offset), seed);
    }
  }
  std::printf("bgp_fuzz_seed: %d seed files in %s\n", written, dir.c_str());
  return 0;
}
