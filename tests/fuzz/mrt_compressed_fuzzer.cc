// libFuzzer target: MRT files through the file reader (MrtReader::Open, bgp/mrt/file_source.h):
// gzip and bzip2 decompression, including streams that are cut off or corrupt, and the records
// they hold through the bgpdump formatter.
//
// Input: one octet choosing how the rest becomes the file, one octet where to cut it, then the
// data.
//   mode 0: the data is the file (compressed or not, as its magic number says)
//   mode 1: the data gzip-compressed here, mode 2: bzip2, mode 3: two bzip2 streams of it back
//           to back (as pbzip2 writes)
// The cut octet c < 255 keeps the first c/255 of the file (a download cut short); 255 keeps it
// whole. For modes 1-3 the records read must be those the uncompressed data holds: all of them
// from a whole file, the first ones from a cut file, which then reads as truncated.
#include <bzlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bgp/mrt/bgpdump_format.h"
#include "bgp/mrt/mrt_reader.h"

namespace sluice::bgp::mrt {
namespace {

// The reader streams files of any size; an input that decompresses to more is read this far.
constexpr uint64_t kMaxOffset = 8 << 20;
constexpr int kMaxRecords = 20000;

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

std::vector<uint8_t> Gzip(const uint8_t* data, size_t size) {
  z_stream z{};
  Check(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK, "deflateInit2");
  std::vector<uint8_t> out(deflateBound(&z, size));
  z.next_in = const_cast<uint8_t*>(data);
  z.avail_in = static_cast<unsigned>(size);
  z.next_out = out.data();
  z.avail_out = static_cast<unsigned>(out.size());
  Check(deflate(&z, Z_FINISH) == Z_STREAM_END, "deflate");
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::vector<uint8_t> Bzip2(const uint8_t* data, size_t size) {
  std::vector<uint8_t> out(size + size / 100 + 600);
  unsigned int len = static_cast<unsigned>(out.size());
  Check(BZ2_bzBuffToBuffCompress(reinterpret_cast<char*>(out.data()), &len,
                                 const_cast<char*>(reinterpret_cast<const char*>(data)),
                                 static_cast<unsigned>(size), 1, 0, 0) == BZ_OK,
        "BZ2_bzBuffToBuffCompress");
  out.resize(len);
  return out;
}

// The records' (offset, type, body) as the reader gives them, formatted on the way.
struct Records {
  std::vector<std::string> records;
  bool truncated = false;
  std::string error;
};

void Read(MrtReader& reader, Records* out) {
  AttributeStore store;
  BgpdumpFormatter formatter(&store);
  MrtRecord record;
  std::string text;
  while (static_cast<int>(out->records.size()) < kMaxRecords && reader.Next(&record)) {
    if (record.offset > kMaxOffset) break;
    out->records.push_back(std::to_string(record.offset) + "/" + std::to_string(record.type) + "/" +
                           std::string(record.body.begin(), record.body.end()));
    text.clear();
    formatter.Format(record, &text);
  }
  out->truncated = reader.truncated();
  out->error = reader.error();
}

// Writes `file` to an anonymous memory file and reads it by path, as sluice-mrtdump would.
Records ReadFile(const std::vector<uint8_t>& file) {
  Records out;
  const int fd = memfd_create("mrt_fuzz", MFD_CLOEXEC);
  Check(fd >= 0, "memfd_create");
  Check(write(fd, file.data(), file.size()) == static_cast<ssize_t>(file.size()), "write");
  auto reader = MrtReader::Open("/proc/self/fd/" + std::to_string(fd));
  Check(reader.ok(), "an existing file opens");
  Read(**reader, &out);
  close(fd);
  return out;
}

}  // namespace
}  // namespace sluice::bgp::mrt

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::bgp::mrt;
  if (size < 2) return 0;
  const int mode = data[0] & 3;
  const int cut = data[1];
  const uint8_t* payload = data + 2;
  const size_t n = size - 2;
  std::vector<uint8_t> file;
  if (mode == 0) {
    file.assign(payload, payload + n);
  } else if (mode == 1) {
    file = Gzip(payload, n);
  } else {
    file = Bzip2(payload, n);
    if (mode == 3) {
      const std::vector<uint8_t> second = file;
      file.insert(file.end(), second.begin(), second.end());
    }
  }
  const size_t whole = file.size();
  if (cut < 255) file.resize(whole * cut / 255);
  const Records got = ReadFile(file);
  if (mode == 0) return 0;

  // What the uncompressed data holds (twice over for two streams).
  std::vector<uint8_t> plain(payload, payload + n);
  if (mode == 3) plain.insert(plain.end(), payload, payload + n);
  Records want;
  MrtReader memory(sluice::bgp::Bytes(plain.data(), plain.size()));
  Read(memory, &want);
  Check(got.records.size() <= want.records.size(), "no more records than the data holds");
  for (size_t i = 0; i < got.records.size(); ++i) {
    Check(got.records[i] == want.records[i], "the same records as the data holds");
  }
  if (file.size() == whole) {
    Check(got.records.size() == want.records.size(), "a whole file gives every record");
    Check(got.truncated == want.truncated, "a whole file is truncated only if its data is");
  } else if (got.records.size() < want.records.size() && file.size() >= (mode == 1 ? 2u : 3u) &&
             !(mode == 3 && file.size() == whole / 2)) {
    // (Cut inside the magic number, the file is not compressed: plain data, maybe none. Cut
    // exactly between two streams, it is one whole stream.)
    Check(got.truncated || !got.error.empty(), "a cut file that lost records says so");
  }
  return 0;
}
