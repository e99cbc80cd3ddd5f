#pragma once
// The AS_PATH as the policy language sees it (RFC 4271 §4.3 and §5.1.2, RFC 6793 4-octet ASNs,
// RFC 5065 confederation segments), in one flat encoding a protocol can keep as it is:
//
//   words = [header, asn, asn, ..., header, asn, ...]
//   header = (segment type << 24) | number of ASNs that follow (at most 255, as on the wire)
//
// AsPathView is a non-owning view a protocol's VarRW hands to the VM; AsPath owns its words.
// A view whose header counts run past its end is read up to its end (never beyond).
//
// Text form (as bgpdump and most routers print it): ASNs separated by spaces; an AS_SET in braces
// "{1 2}" or "{1,2}"; an AS_CONFED_SEQUENCE in parentheses "(65001 65002)"; an AS_CONFED_SET in
// square brackets "[65001 65002]". Example: "3856 1299 {64512,64513}".

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace sluice::policy {

enum class AsSegmentType : uint8_t {
  kSet = 1,             // AS_SET
  kSequence = 2,        // AS_SEQUENCE
  kConfedSequence = 3,  // AS_CONFED_SEQUENCE (RFC 5065)
  kConfedSet = 4,       // AS_CONFED_SET (RFC 5065)
};

inline constexpr int kMaxAsSegmentLength = 255;

constexpr uint32_t AsSegmentHeader(AsSegmentType type, int count) {
  return (static_cast<uint32_t>(type) << 24) | static_cast<uint32_t>(count);
}

struct AsSegment {
  AsSegmentType type;
  std::span<const uint32_t> asns;
};

class AsPathView {
 public:
  AsPathView() = default;
  // `intern_id`: a non-zero id that stays the same for every route carrying this same path (a
  // protocol that interns AS paths passes its handle); 0 when unknown. Lets AS-path regular
  // expression matches be cached per path, so an id must never name two different paths during
  // the life of the process (use a counter, not an address that can be reused).
  explicit AsPathView(std::span<const uint32_t> words, uint64_t intern_id = 0)
      : words_(words), intern_id_(intern_id) {}

  std::span<const uint32_t> words() const { return words_; }
  uint64_t intern_id() const { return intern_id_; }
  bool empty() const { return words_.empty(); }

  // Calls f(AsSegment) for each segment in order.
  template <typename F>
  void ForEachSegment(F&& f) const {
    size_t i = 0;
    while (i < words_.size()) {
      const uint32_t header = words_[i++];
      size_t count = header & 0xffffff;
      if (count > words_.size() - i) count = words_.size() - i;
      f(AsSegment{static_cast<AsSegmentType>(header >> 24), words_.subspan(i, count)});
      i += count;
    }
  }
  // The path length for route selection (RFC 4271 §9.1.2.2 a): each AS_SET counts 1,
  // confederation segments count 0 (RFC 5065 §5.3), AS_SEQUENCE counts each ASN.
  int Length() const;
  // The ASNs of every segment in path order, as the AS-path regular expressions see them.
  // Writes into *out (cleared first).
  void Symbols(std::vector<uint32_t>* out) const;
  // First ASN of the path (the neighbour AS), or 0 for an empty path.
  uint32_t FirstAs() const;
  std::string ToString() const;

  friend bool operator==(const AsPathView& a, const AsPathView& b) {
    return std::equal(a.words_.begin(), a.words_.end(), b.words_.begin(), b.words_.end());
  }

 private:
  std::span<const uint32_t> words_;
  uint64_t intern_id_ = 0;
};

class AsPath {
 public:
  AsPath() = default;
  explicit AsPath(std::vector<uint32_t> words) : words_(std::move(words)) {}

  // Parses the text form above. Errors (InvalidArgument): a non-number, an ASN above
  // 4294967295, an unclosed or nested bracket, a segment longer than 255 ASNs.
  static absl::StatusOr<AsPath> Parse(std::string_view text);

  // Replaces the words (reusing storage).
  void Assign(std::span<const uint32_t> words) { words_.assign(words.begin(), words.end()); }

  AsPathView view(uint64_t intern_id = 0) const { return AsPathView(words_, intern_id); }
  const std::vector<uint32_t>& words() const { return words_; }
  std::string ToString() const { return view().ToString(); }

  friend bool operator==(const AsPath&, const AsPath&) = default;

 private:
  std::vector<uint32_t> words_;
};

// Writes into *out the path `in` with `asn` prepended `count` times (RFC 4271 §5.1.2): into the
// leading AS_SEQUENCE while it has room for 255 ASNs, otherwise in new AS_SEQUENCE segments.
// `out` must not alias `in`.
void PrependAs(AsPathView in, uint32_t asn, int count, std::vector<uint32_t>* out);

}  // namespace sluice::policy
