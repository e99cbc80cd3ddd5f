#include "bgp/mrt/file_source.h"

#include <bzlib.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace sluice::bgp::mrt {
namespace {

absl::Status OpenError(const std::string& path) {
  const int e = errno;
  std::string msg = absl::StrFormat("cannot open %s: %s", path, std::strerror(e));
  if (e == ENOENT) return absl::NotFoundError(msg);
  if (e == EACCES) return absl::PermissionDeniedError(msg);
  return absl::InternalError(msg);
}

// gzip and uncompressed files: zlib's gz* functions read both.
class GzSource : public FileSource {
 public:
  GzSource(gzFile f, Compression c) : f_(f), compression_(c) { gzbuffer(f_, 1 << 18); }
  ~GzSource() override { gzclose(f_); }
  size_t Read(uint8_t* out, size_t n) override {
    size_t total = 0;
    while (total < n && !done_) {
      const int got = gzread(f_, out + total, unsigned(std::min<size_t>(n - total, 1 << 30)));
      if (got > 0) {
        total += size_t(got);
        continue;
      }
      int code = Z_OK;
      const char* msg = gzerror(f_, &code);
      if (code == Z_BUF_ERROR) {
        truncated_ = true;
      } else if (code != Z_OK && code != Z_STREAM_END) {
        error_ = msg ? msg : "zlib error";
      }
      done_ = true;
    }
    return total;
  }
  bool truncated() const override { return truncated_; }
  std::string error() const override { return error_; }
  Compression compression() const override { return compression_; }

 private:
  gzFile f_;
  Compression compression_;
  bool done_ = false;
  bool truncated_ = false;
  std::string error_;
};

// bzip2 through the low-level stream API, so that everything decompressed before a cut-off is
// delivered (BZ2_bzRead drops the output of its last call when the input ends early).
class Bz2Source : public FileSource {
 public:
  explicit Bz2Source(FILE* f) : f_(f), in_(1 << 16) { Start(); }
  ~Bz2Source() override {
    if (active_) BZ2_bzDecompressEnd(&strm_);
    std::fclose(f_);
  }
  size_t Read(uint8_t* out, size_t n) override {
    size_t total = 0;
    while (total < n && !done_) {
      if (!active_) {
        // After a stream end: another stream may follow (pbzip2 writes several).
        if (strm_.avail_in == 0 && !Refill()) {
          done_ = true;
          break;
        }
        Start();
        continue;
      }
      if (strm_.avail_in == 0 && !eof_) Refill();
      strm_.next_out = reinterpret_cast<char*>(out + total);
      strm_.avail_out = unsigned(std::min<size_t>(n - total, 1u << 30));
      const unsigned before = strm_.avail_out;
      const int e = BZ2_bzDecompress(&strm_);
      total += before - strm_.avail_out;
      if (e == BZ_STREAM_END) {
        BZ2_bzDecompressEnd(&strm_);
        active_ = false;
        continue;
      }
      if (e != BZ_OK) {
        error_ = absl::StrFormat("bzip2 error %d", e);
        done_ = true;
        break;
      }
      if (eof_ && strm_.avail_in == 0 && strm_.avail_out > 0) {
        truncated_ = true;  // input ended inside a stream
        done_ = true;
      }
    }
    return total;
  }
  bool truncated() const override { return truncated_; }
  std::string error() const override { return error_; }
  Compression compression() const override { return Compression::kBzip2; }

 private:
  bool Refill() {
    if (eof_) return false;
    const size_t got = std::fread(in_.data(), 1, in_.size(), f_);
    if (got < in_.size()) eof_ = true;
    strm_.next_in = in_.data();
    strm_.avail_in = unsigned(got);
    return got > 0;
  }
  void Start() {
    char* next_in = strm_.next_in;
    const unsigned avail_in = strm_.avail_in;
    strm_ = bz_stream();
    strm_.next_in = next_in;
    strm_.avail_in = avail_in;
    if (BZ2_bzDecompressInit(&strm_, 0, 0) != BZ_OK) {
      error_ = "bzip2: cannot initialise the decompressor";
      done_ = true;
      return;
    }
    active_ = true;
  }
  FILE* f_;
  std::vector<char> in_;
  bz_stream strm_ = bz_stream();
  bool active_ = false;
  bool eof_ = false;
  bool done_ = false;
  bool truncated_ = false;
  std::string error_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<FileSource>> FileSource::Open(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return OpenError(path);
  uint8_t magic[3] = {0, 0, 0};
  const size_t n = std::fread(magic, 1, 3, f);
  if (n == 3 && magic[0] == 'B' && magic[1] == 'Z' && magic[2] == 'h') {
    std::rewind(f);
    return std::unique_ptr<FileSource>(new Bz2Source(f));
  }
  std::fclose(f);
  gzFile gz = gzopen(path.c_str(), "rb");
  if (gz == nullptr) return OpenError(path);
  const Compression c =
      (n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) ? Compression::kGzip : Compression::kNone;
  return std::unique_ptr<FileSource>(new GzSource(gz, c));
}

}  // namespace sluice::bgp::mrt
