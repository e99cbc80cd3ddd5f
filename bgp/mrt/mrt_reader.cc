#include "bgp/mrt/mrt_reader.h"

#include <cstring>

#include "absl/strings/str_format.h"

namespace sluice::bgp::mrt {
namespace {
constexpr size_t kMrtHeader = 12;
constexpr size_t kChunk = 1 << 18;
// No MRT record of a real collector comes near this; a larger length means corrupt data.
constexpr uint32_t kMaxRecord = 64u << 20;
}  // namespace

absl::StatusOr<std::unique_ptr<MrtReader>> MrtReader::Open(const std::string& path) {
  auto source = FileSource::Open(path);
  if (!source.ok()) return source.status();
  return std::unique_ptr<MrtReader>(new MrtReader(std::move(*source)));
}

MrtReader::MrtReader(std::unique_ptr<FileSource> source) : source_(std::move(source)) {}

MrtReader::MrtReader(Bytes data) : memory_(data) { end_ = data.size(); }

bool MrtReader::Fill(size_t n) {
  if (end_ - pos_ >= n) return true;
  if (!source_) return false;
  if (pos_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  if (buffer_.size() < n) buffer_.resize(std::max(n, kChunk));
  while (end_ < n) {
    if (buffer_.size() - end_ < kChunk / 4) buffer_.resize(buffer_.size() + kChunk);
    const size_t got = source_->Read(buffer_.data() + end_, buffer_.size() - end_);
    if (got == 0) return false;
    end_ += got;
  }
  return true;
}

bool MrtReader::Next(MrtRecord* record) {
  if (done_) return false;
  const uint8_t* base = source_ ? buffer_.data() : memory_.data();
  // Consume the previous record's octets lazily (its body stayed valid until now).
  if (!Fill(kMrtHeader)) {
    done_ = true;
    const size_t left = end_ - pos_;
    if (source_ && !source_->error().empty()) {
      error_ =
          absl::StrFormat("decompression failed after %d records: %s", records_, source_->error());
    }
    if (left > 0 || (source_ && source_->truncated())) {
      truncated_ = true;
      error_ = absl::StrFormat(
          "data cut off after %d records at offset %d: %d octets of a record header%s", records_,
          offset_, left, source_ && source_->truncated() ? " (compressed stream ends early)" : "");
    }
    return false;
  }
  base = source_ ? buffer_.data() : memory_.data();
  const uint8_t* h = base + pos_;
  MrtRecord r;
  r.timestamp = LoadU32(h);
  r.type = LoadU16(h + 4);
  r.subtype = LoadU16(h + 6);
  const uint32_t length = LoadU32(h + 8);
  r.offset = offset_;
  if (length > kMaxRecord) {
    done_ = true;
    error_ = absl::StrFormat("record %d (type %d/%d) at offset %d: length %d exceeds %d octets",
                             records_ + 1, r.type, r.subtype, offset_, length, kMaxRecord);
    return false;
  }
  if (!Fill(kMrtHeader + size_t(length))) {
    done_ = true;
    truncated_ = true;
    error_ = absl::StrFormat(
        "record %d (type %d/%d) at offset %d cut off: %d of %d body octets present%s", records_ + 1,
        r.type, r.subtype, offset_, end_ - pos_ - kMrtHeader, length,
        source_ && source_->truncated() ? " (compressed stream ends early)" : "");
    return false;
  }
  base = source_ ? buffer_.data() : memory_.data();
  const uint8_t* body = base + pos_ + kMrtHeader;
  size_t body_len = length;
  if (r.type == uint16_t(MrtType::kBgp4mpEt)) {
    // RFC 6396 §3: the microsecond field is counted in the length.
    if (body_len < 4) {
      done_ = true;
      error_ = absl::StrFormat("BGP4MP_ET record %d at offset %d: length %d < 4", records_ + 1,
                               offset_, length);
      return false;
    }
    r.microseconds = LoadU32(body);
    body += 4;
    body_len -= 4;
  }
  r.body = Bytes(body, body_len);
  pos_ += kMrtHeader + length;
  offset_ += kMrtHeader + length;
  ++records_;
  *record = r;
  return true;
}

}  // namespace sluice::bgp::mrt
