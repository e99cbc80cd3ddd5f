#pragma once
// Big-endian (network order) reading and writing of the fixed-size fields of BGP and MRT.
//
// ByteReader walks a span and never reads past its end: every Read* reports failure (false)
// instead, leaving the reader where it was. ByteWriter appends to a std::vector<uint8_t> and can
// patch a length field written earlier.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace sluice::bgp {

using Bytes = std::span<const uint8_t>;

inline uint16_t LoadU16(const uint8_t* p) { return uint16_t((p[0] << 8) | p[1]); }
inline uint32_t LoadU32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}
inline uint64_t LoadU64(const uint8_t* p) { return (uint64_t{LoadU32(p)} << 32) | LoadU32(p + 4); }
inline void StoreU16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v >> 8);
  p[1] = uint8_t(v);
}
inline void StoreU32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v >> 24);
  p[1] = uint8_t(v >> 16);
  p[2] = uint8_t(v >> 8);
  p[3] = uint8_t(v);
}

class ByteReader {
 public:
  explicit ByteReader(Bytes data) : data_(data) {}

  size_t remaining() const { return data_.size() - pos_; }
  size_t position() const { return pos_; }
  bool empty() const { return pos_ == data_.size(); }
  const uint8_t* current() const { return data_.data() + pos_; }

  bool ReadU8(uint8_t* v) {
    if (remaining() < 1) return false;
    *v = data_[pos_++];
    return true;
  }
  bool ReadU16(uint16_t* v) {
    if (remaining() < 2) return false;
    *v = LoadU16(current());
    pos_ += 2;
    return true;
  }
  bool ReadU32(uint32_t* v) {
    if (remaining() < 4) return false;
    *v = LoadU32(current());
    pos_ += 4;
    return true;
  }
  // `n` octets as a sub-span (no copy).
  bool ReadBytes(size_t n, Bytes* out) {
    if (remaining() < n) return false;
    *out = data_.subspan(pos_, n);
    pos_ += n;
    return true;
  }
  bool Skip(size_t n) {
    if (remaining() < n) return false;
    pos_ += n;
    return true;
  }
  Bytes Rest() const { return data_.subspan(pos_); }

 private:
  Bytes data_;
  size_t pos_ = 0;
};

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>* out) : out_(out) {}

  size_t size() const { return out_->size(); }
  void U8(uint8_t v) { out_->push_back(v); }
  void U16(uint16_t v) { StoreU16(Extend(2), v); }
  void U32(uint32_t v) { StoreU32(Extend(4), v); }
  // Grows the buffer by `n` octets at once and returns where they start, for the caller to fill:
  // a field of known size is then written with stores, not an append per octet. The pointer is
  // valid until the next call that grows the buffer.
  uint8_t* Extend(size_t n) {
    const size_t at = out_->size();
    out_->resize(at + n);
    return out_->data() + at;
  }
  void Append(Bytes bytes) { out_->insert(out_->end(), bytes.begin(), bytes.end()); }
  void Append(const uint8_t* p, size_t n) { out_->insert(out_->end(), p, p + n); }
  // Writes a 2-octet placeholder and returns its offset for PatchU16.
  size_t ReserveU16() {
    size_t at = out_->size();
    U16(0);
    return at;
  }
  void PatchU16(size_t at, uint16_t v) { StoreU16(out_->data() + at, v); }
  std::vector<uint8_t>* buffer() { return out_; }

 private:
  std::vector<uint8_t>* out_;
};

}  // namespace sluice::bgp
