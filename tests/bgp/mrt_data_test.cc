// Tests on the real captures of $SLUICE_DATA_DIR/mrt (skipped without them):
//  - every file reads as `bgpdump -m` reads it, line for line (prefix, peer, AS path, nexthop,
//    origin, communities, and the other fields too); IPv6 addresses are compared as addresses
//    because bgpdump's text form is not RFC 5952's;
//  - decode then encode gives back the received bytes for every canonically encoded UPDATE; the
//    others are counted by the reason they are not canonical;
//  - the captures cut off on purpose report it, and keep the records before the cut.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "bgp/mrt/bgpdump_format.h"
#include "bgp/mrt/mrt_reader.h"
#include "bgp/mrt/mrt_records.h"
#include "bgp/mrt/mrt_writer.h"
#include "bgp/wire/update_decoder.h"
#include "bgp/wire/update_encoder.h"
#include "tests/bgp/test_data.h"
#include "tests/interop/interop_util.h"

namespace sluice::bgp::mrt {
namespace {

std::string Basename(const std::string& path) { return path.substr(path.rfind('/') + 1); }

bool HaveBgpdump() { return std::system("command -v bgpdump >/dev/null 2>&1") == 0; }

// A field with an IPv6 address or prefix in canonical form; other fields unchanged.
std::string Normalize(const std::string& field) {
  if (field.find(':') == std::string::npos || field.find(' ') != std::string::npos) return field;
  if (field.find('/') != std::string::npos) {
    auto p = net::Prefix::ParseAndMask(field);
    return p.ok() ? p->ToString() : field;
  }
  auto a = net::IPAddress::Parse(field);
  return a.ok() ? a->ToString() : field;
}

std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> out;
  for (absl::string_view f : absl::StrSplit(line, '|')) out.push_back(Normalize(std::string(f)));
  return out;
}

// Field names of an A/B line (with the ADD-PATH path id after the prefix when present).
std::string FieldName(const std::vector<std::string>& f, size_t i) {
  static const char* kNames[] = {
      "format", "time",    "kind",       "peer", "peer AS",     "prefix",           "AS path",
      "origin", "nexthop", "LOCAL_PREF", "MED",  "communities", "ATOMIC_AGGREGATE", "aggregator"};
  const bool ap = f.size() > 2 && f[0].find("_AP") != std::string::npos;
  if (ap && i == 6) return "path id";
  const size_t j = ap && i > 6 ? i - 1 : i;
  return j < std::size(kNames) ? kNames[j] : absl::StrFormat("field %d", i);
}

class BgpdumpCompareTest : public ::testing::Test {};

TEST_F(BgpdumpCompareTest, EveryCaptureReadsAsBgpdumpReadsIt) {
  SLUICE_SKIP_WITHOUT_MRT_DATA();
  if (!HaveBgpdump()) GTEST_SKIP() << "bgpdump is not installed (Debian package bgpdump)";
  const std::vector<std::string> files = sluice::testing::MrtFiles();
  ASSERT_FALSE(files.empty());
  for (const std::string& path : files) {
    SCOPED_TRACE(Basename(path));
    FILE* pipe = popen(("bgpdump -m '" + path + "' 2>/dev/null").c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    auto reader = MrtReader::Open(path);
    ASSERT_TRUE(reader.ok()) << reader.status();
    AttributeStore store;
    uint64_t lines = 0, extra_ours = 0, mismatched_lines = 0;
    std::map<std::string, uint64_t> mismatched_fields;
    std::vector<std::string> examples;
    char* buf = nullptr;
    size_t cap = 0;
    {
      BgpdumpFormatter formatter(&store);
      MrtRecord record;
      std::string ours;
      while ((*reader)->Next(&record)) {
        ours.clear();
        formatter.Format(record, &ours);
        for (absl::string_view line : absl::StrSplit(ours, '\n', absl::SkipEmpty())) {
          const ssize_t n = getline(&buf, &cap, pipe);
          if (n <= 0) {
            ++extra_ours;
            continue;
          }
          ++lines;
          std::string theirs(buf, size_t(n));
          if (!theirs.empty() && theirs.back() == '\n') theirs.pop_back();
          if (theirs == line) continue;
          const auto a = Fields(std::string(line)), b = Fields(theirs);
          if (a == b) continue;
          ++mismatched_lines;
          for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
            if (i >= a.size() || i >= b.size() || a[i] != b[i])
              ++mismatched_fields[FieldName(b, i)];
          }
          if (examples.size() < 3) {
            examples.push_back("ours:    " + std::string(line) + "\nbgpdump: " + theirs);
          }
        }
      }
    }
    uint64_t extra_theirs = 0;
    while (getline(&buf, &cap, pipe) > 0) ++extra_theirs;
    free(buf);
    pclose(pipe);
    std::printf("%-48s %8llu lines, %llu differ%s\n", Basename(path).c_str(),
                (unsigned long long)lines, (unsigned long long)mismatched_lines,
                (*reader)->truncated() ? " (truncated capture)" : "");
    EXPECT_GT(lines, 0u);
    EXPECT_EQ(extra_ours, 0u) << "lines only we printed";
    EXPECT_EQ(extra_theirs, 0u) << "lines only bgpdump printed";
    EXPECT_EQ(mismatched_lines, 0u);
    for (const auto& [field, n] : mismatched_fields)
      ADD_FAILURE() << field << ": " << n << " lines differ";
    for (const auto& e : examples) ADD_FAILURE() << e;
  }
}

TEST(TruncatedCaptureTest, CutOffCapturesReportItAndKeepEarlierRecords) {
  SLUICE_SKIP_WITHOUT_MRT_DATA();
  int truncated_files = 0;
  for (const std::string& path : sluice::testing::MrtFiles()) {
    if (Basename(path).find("truncated") == std::string::npos) continue;
    SCOPED_TRACE(Basename(path));
    ++truncated_files;
    auto reader = MrtReader::Open(path);
    ASSERT_TRUE(reader.ok());
    AttributeStore store;
    RibDecoder rib(&store);
    RibRecord rec;
    MrtRecord r;
    uint64_t entries = 0;
    while ((*reader)->Next(&r)) {
      if (IsRib(r)) {
        ASSERT_TRUE(rib.DecodeRib(r, &rec).ok());
        entries += rec.entries.size();
      }
    }
    EXPECT_TRUE((*reader)->truncated());
    EXPECT_NE((*reader)->error().find("cut off"), std::string::npos) << (*reader)->error();
    EXPECT_GT((*reader)->records(), 6000u);
    EXPECT_GT(entries, 140000u);
  }
  EXPECT_EQ(truncated_files, 2);
}

// The UPDATE with its attributes in type-code order and the Extended Length bit only on values
// longer than 255 octets — a wire-level rewrite independent of the codec.
std::vector<uint8_t> CanonicalLayout(Bytes message) {
  const uint8_t* body = message.data() + kHeaderSize;
  const size_t wlen = LoadU16(body);
  const size_t alen = LoadU16(body + 2 + wlen);
  const uint8_t* attrs = body + 4 + wlen;
  struct Attr {
    uint8_t flags, type;
    Bytes value;
  };
  std::vector<Attr> list;
  for (size_t at = 0; at < alen;) {
    const uint8_t flags = attrs[at], type = attrs[at + 1];
    const bool ext = flags & kFlagExtendedLength;
    const size_t len = ext ? LoadU16(attrs + at + 2) : attrs[at + 2];
    const size_t hdr = ext ? 4 : 3;
    list.push_back(Attr{uint8_t(flags & ~kFlagExtendedLength), type, Bytes(attrs + at + hdr, len)});
    at += hdr + len;
  }
  std::stable_sort(list.begin(), list.end(),
                   [](const Attr& a, const Attr& b) { return a.type < b.type; });
  std::vector<uint8_t> out(message.begin(), message.begin() + kHeaderSize + 4 + wlen);
  for (const Attr& a : list) {
    out.push_back(uint8_t(a.flags | (a.value.size() > 255 ? kFlagExtendedLength : 0)));
    out.push_back(a.type);
    if (a.value.size() > 255) out.push_back(uint8_t(a.value.size() >> 8));
    out.push_back(uint8_t(a.value.size()));
    out.insert(out.end(), a.value.begin(), a.value.end());
  }
  const size_t new_alen = out.size() - (kHeaderSize + 4 + wlen);
  StoreU16(out.data() + kHeaderSize + 2 + wlen, uint16_t(new_alen));
  out.insert(out.end(), attrs + alen, message.data() + message.size());
  StoreU16(out.data() + 16, uint16_t(out.size()));
  return out;
}

// Rewrites `path` with MrtWriter (RIB records re-encoded from their decoded attributes, BGP4MP
// records from their decoded headers) into `out`.
void Rewrite(const std::string& path, const std::string& out, AttributeStore* store) {
  auto reader = MrtReader::Open(path);
  ASSERT_TRUE(reader.ok());
  auto writer = MrtWriter::Open(out);
  ASSERT_TRUE(writer.ok());
  RibDecoder rib(store);
  RibRecord rec;
  MrtRecord r;
  while ((*reader)->Next(&r)) {
    const bool et = r.type == uint16_t(MrtType::kBgp4mpEt);
    if (r.type == uint16_t(MrtType::kTableDumpV2) &&
        r.subtype == uint16_t(TableDumpV2Subtype::kPeerIndexTable)) {
      PeerIndexTable t;
      ASSERT_TRUE(DecodePeerIndexTable(r, &t).ok());
      ASSERT_TRUE((*writer)->WritePeerIndexTable(r.timestamp, t).ok());
    } else if (IsRib(r)) {
      ASSERT_TRUE(rib.DecodeRib(r, &rec).ok());
      ASSERT_TRUE(
          (*writer)
              ->WriteRib(r.timestamp, rec.sequence, rec.prefix, rec.safi, rec.entries, rec.add_path)
              .ok());
    } else if (IsBgp4mpMessage(r)) {
      Bgp4mpMessage m;
      ASSERT_TRUE(DecodeBgp4mpMessage(r, &m).ok());
      ASSERT_TRUE((*writer)->WriteBgp4mpMessage(r.timestamp, r.microseconds, et, m).ok());
    } else if (IsBgp4mpStateChange(r)) {
      Bgp4mpStateChange s;
      ASSERT_TRUE(DecodeBgp4mpStateChange(r, &s).ok());
      const bool as4 = r.subtype == uint16_t(Bgp4mpSubtype::kStateChangeAs4);
      ASSERT_TRUE((*writer)->WriteBgp4mpStateChange(r.timestamp, r.microseconds, et, as4, s).ok());
    }
  }
  ASSERT_TRUE((*writer)->Close().ok());
}

TEST(MrtWriterDataTest, RewrittenCapturesReadTheSameInBgpdump) {
  SLUICE_SKIP_WITHOUT_MRT_DATA();
  if (!HaveBgpdump()) GTEST_SKIP() << "bgpdump is not installed (Debian package bgpdump)";
  const std::string tmp = std::filesystem::temp_directory_path() /
                          ("sluice-mrt-rewrite-" + std::to_string(getpid()) + ".mrt.gz");
  int files = 0;
  for (const std::string& path : sluice::testing::MrtFiles()) {
    const std::string name = Basename(path);
    if (name.find("lab-") != 0 && name.find("routeviews-2015") != 0 && name.find("icsi") != 0 &&
        name.find("ris-2016") != 0) {
      continue;
    }
    SCOPED_TRACE(name);
    ++files;
    AttributeStore store;
    Rewrite(path, tmp, &store);
    auto original = sluice::testing::RunCommand({"bgpdump", "-m", path});
    auto rewritten = sluice::testing::RunCommand({"bgpdump", "-m", tmp});
    ASSERT_TRUE(original.ok() && rewritten.ok());
    EXPECT_GT(original->size(), 1000u);
    EXPECT_TRUE(*original == *rewritten) << "bgpdump reads the rewritten file differently";
    std::printf("%-48s rewritten: bgpdump prints the same %zu octets\n", name.c_str(),
                original->size());
  }
  std::filesystem::remove(tmp);
  EXPECT_EQ(files, 5);
}

// One row of the decode→encode report.
struct RoundTrip {
  uint64_t updates = 0, identical = 0, identical_after_layout = 0, non_canonical = 0, failures = 0,
           resets = 0;
  std::map<std::string, uint64_t> reasons;
  std::string example;
};

RoundTrip CheckRoundTrip(const std::string& path) {
  RoundTrip rt;
  auto reader = MrtReader::Open(path);
  if (!reader.ok()) return rt;
  AttributeStore store;
  UpdateDecoder decoder(SessionParams::ForMrt(true, false), &store);
  UpdateMessage u;
  std::vector<uint8_t> out;
  MrtRecord r;
  while ((*reader)->Next(&r)) {
    if (!IsBgp4mpMessage(r)) continue;
    Bgp4mpMessage m;
    if (!DecodeBgp4mpMessage(r, &m).ok() || m.message.size() < 19 || m.message[18] != 2) continue;
    ++rt.updates;
    const SessionParams params = SessionParams::ForMrt(m.as4, m.add_path);
    decoder.set_params(params);
    decoder.Decode(m.message, &u);
    if (u.errors.session_reset) {
      ++rt.resets;
      continue;
    }
    out.clear();
    absl::Status st = UpdateEncoder(params, /*readvertise=*/false).EncodeOne(u, &out);
    if (st.ok() && out.size() == m.message.size() &&
        std::equal(out.begin(), out.end(), m.message.begin())) {
      ++rt.identical;
      continue;
    }
    // Not identical: the UPDATE must be non-canonical in a way the decoder noticed.
    if (u.wire_notes != 0) {
      for (absl::string_view reason : absl::StrSplit(WireNotesToString(u.wire_notes), ',')) {
        ++rt.reasons[std::string(reason)];
      }
      const uint32_t layout_only = kNoteExtendedLength | kNoteAttributeOrder;
      if ((u.wire_notes & ~layout_only) != 0) {
        ++rt.non_canonical;
        continue;
      }
      // Only the attribute layout is not canonical: everything else must match exactly.
      if (st.ok() && CanonicalLayout(m.message) == out) {
        ++rt.identical_after_layout;
        continue;
      }
    }
    ++rt.failures;
    if (rt.example.empty()) {
      rt.example = absl::StrFormat("offset %d: %s\nreceived:", r.offset, st.ToString());
      for (uint8_t b : m.message) absl::StrAppendFormat(&rt.example, " %02x", b);
      rt.example += "\nencoded: ";
      for (uint8_t b : out) absl::StrAppendFormat(&rt.example, " %02x", b);
    }
  }
  return rt;
}

TEST(RoundTripTest, CanonicalUpdatesReEncodeByteForByte) {
  SLUICE_SKIP_WITHOUT_MRT_DATA();
  uint64_t total = 0, identical = 0;
  for (const std::string& path : sluice::testing::MrtFiles()) {
    const std::string name = Basename(path);
    if (name.find("pch") != 0 && name.find("ris") != 0 && name.find("icsi") != 0) continue;
    SCOPED_TRACE(name);
    RoundTrip rt = CheckRoundTrip(path);
    if (rt.updates == 0) continue;  // a RIB dump
    std::string reasons;
    for (const auto& [reason, n] : rt.reasons) absl::StrAppend(&reasons, " ", reason, "=", n);
    std::printf(
        "%-42s %6llu UPDATEs: %6llu identical, %6llu identical once the attribute layout "
        "is made canonical, %llu otherwise not canonical; reasons:%s; %llu undecodable\n",
        name.c_str(), (unsigned long long)rt.updates, (unsigned long long)rt.identical,
        (unsigned long long)rt.identical_after_layout, (unsigned long long)rt.non_canonical,
        reasons.c_str(), (unsigned long long)rt.resets);
    EXPECT_EQ(rt.failures, 0u) << rt.example;
    EXPECT_GT(rt.identical + rt.identical_after_layout, 0u);
    total += rt.updates;
    identical += rt.identical + rt.identical_after_layout;
  }
  EXPECT_GT(identical, total * 9 / 10);
}

}  // namespace
}  // namespace sluice::bgp::mrt
