#pragma once
// AsPath: the AS_PATH attribute (RFC 4271 §4.3, §5.1.2) as a list of segments of 4-octet AS
// numbers (RFC 6793), whatever the AS number size on the wire.
//
// Segment types: AS_SET (1), AS_SEQUENCE (2), and the confederation segments AS_CONFED_SEQUENCE
// (3) and AS_CONFED_SET (4) of RFC 5065. Segments keep their wire grouping (two adjacent
// AS_SEQUENCE segments stay two) so that decode→encode is exact.
//
// The whole path lives in one vector of 32-bit words: for each segment a header word (type in
// bits 16..23, AS count in bits 0..15) followed by its AS numbers. A path is therefore one heap
// block, compared and hashed as a range of integers.

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "bgp/wire/byte_io.h"

namespace sluice::bgp {

enum class SegmentType : uint8_t {
  kSet = 1,
  kSequence = 2,
  kConfedSequence = 3,
  kConfedSet = 4,
};

class AsPath {
 public:
  struct Segment {
    SegmentType type;
    std::span<const uint32_t> asns;
  };

  // Forward iteration over segments: for (AsPath::Segment s : path.segments()) ...
  class SegmentIterator {
   public:
    explicit SegmentIterator(const uint32_t* p) : p_(p) {}
    Segment operator*() const {
      return Segment{SegmentType((*p_ >> 16) & 0xff),
                     std::span<const uint32_t>(p_ + 1, *p_ & 0xffff)};
    }
    SegmentIterator& operator++() {
      p_ += 1 + (*p_ & 0xffff);
      return *this;
    }
    bool operator==(const SegmentIterator& o) const { return p_ == o.p_; }

   private:
    const uint32_t* p_;
  };
  struct SegmentRange {
    const uint32_t* b;
    const uint32_t* e;
    SegmentIterator begin() const { return SegmentIterator(b); }
    SegmentIterator end() const { return SegmentIterator(e); }
  };

  AsPath() = default;
  // A path of one AS_SEQUENCE (empty list: the empty path).
  static AsPath Sequence(std::initializer_list<uint32_t> asns);

  bool empty() const { return data_.empty(); }
  SegmentRange segments() const { return {data_.data(), data_.data() + data_.size()}; }
  size_t segment_count() const;
  // Appends a segment (a segment longer than 65535 ASNs is split). Empty `asns` adds nothing.
  void AppendSegment(SegmentType type, std::span<const uint32_t> asns);
  void Clear() { data_.clear(); }

  // RFC 4271 §9.1.2.2 (a): the path length for route selection — each AS in an AS_SEQUENCE
  // counts 1, an AS_SET counts 1 whatever its size, confederation segments count 0 (RFC 5065).
  int PathLength() const;
  // The leftmost AS (the neighbour that sent the route) when the path starts with an
  // AS_SEQUENCE; 0 otherwise (empty path, or a leading set or confederation segment).
  uint32_t FirstAs() const;
  // The rightmost AS (the origin) when the path ends in an AS_SEQUENCE; 0 otherwise.
  uint32_t OriginAs() const;
  // True when `as` appears anywhere in the path (sets and confederation segments included):
  // the loop check of RFC 4271 §9.1.2.
  bool Contains(uint32_t as) const;
  // True when any AS number needs 4 octets (> 65535).
  bool HasFourOctetAs() const;
  bool HasConfedSegments() const;

  // RFC 4271 §5.1.2: `as` prepended `count` times as the leftmost element of a leading
  // AS_SEQUENCE (a new AS_SEQUENCE when the path is empty, starts with another segment type, or
  // the leading sequence already holds 255 ASes).
  AsPath Prepended(uint32_t as, int count = 1) const;
  // The path without AS_CONFED_* segments (RFC 5065 §4.1, for a peer outside the confederation).
  AsPath WithoutConfedSegments() const;

  // Text form as printed by bgpdump: ASNs separated by spaces, "{a,b}" for AS_SET, "(a b)" for
  // AS_CONFED_SEQUENCE, "[a,b]" for AS_CONFED_SET.
  std::string ToString() const;

  // Wire form (the attribute value), `as_size` 2 or 4 octets per AS number.
  // Errors (InvalidArgument, naming the problem), per RFC 7606 §7.2: unknown segment type, a
  // segment of length 0, a segment that overruns the attribute, a trailing single octet.
  static absl::Status Decode(Bytes value, int as_size, AsPath* out);
  // Appends the attribute value. With as_size 2, AS numbers above 65535 become AS_TRANS (RFC 6793
  // §4.2.2). Segments longer than 255 ASNs are split.
  void Encode(int as_size, ByteWriter& out) const;
  // The same written at `out`, which has EncodedSize(as_size) octets of room; returns where the
  // value ends.
  uint8_t* Encode(int as_size, uint8_t* out) const;
  // Size in octets of Encode(as_size).
  size_t EncodedSize(int as_size) const;

  // RFC 6793 §4.2.3: the AS path of a route received from a 2-octet speaker, from its AS_PATH
  // (with AS_TRANS) and AS4_PATH. If AS_PATH counts fewer ASes than AS4_PATH, AS_PATH is used
  // alone; otherwise the leading part of AS_PATH (whole confederation segments, and enough ASes
  // to make up the difference) is prepended to AS4_PATH.
  static AsPath Reconcile(const AsPath& as_path, const AsPath& as4_path);

  friend bool operator==(const AsPath&, const AsPath&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const AsPath& p) {
    return H::combine(std::move(h), p.data_);
  }
  // Heap octets held (for memory accounting).
  size_t HeapBytes() const { return data_.capacity() * sizeof(uint32_t); }
  // The raw words (header word per segment, then its ASNs); see the file comment.
  std::span<const uint32_t> words() const { return data_; }

 private:
  std::vector<uint32_t> data_;
};

}  // namespace sluice::bgp
