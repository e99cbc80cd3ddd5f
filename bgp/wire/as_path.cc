#include "bgp/wire/as_path.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bgp/wire/constants.h"

namespace sluice::bgp {
namespace {

constexpr uint32_t Header(SegmentType type, size_t count) {
  return (uint32_t(type) << 16) | uint32_t(count);
}
bool IsConfed(SegmentType t) {
  return t == SegmentType::kConfedSequence || t == SegmentType::kConfedSet;
}
bool IsSet(SegmentType t) { return t == SegmentType::kSet || t == SegmentType::kConfedSet; }

}  // namespace

AsPath AsPath::Sequence(std::initializer_list<uint32_t> asns) {
  AsPath p;
  p.AppendSegment(SegmentType::kSequence, std::span<const uint32_t>(asns.begin(), asns.size()));
  return p;
}

size_t AsPath::segment_count() const {
  size_t n = 0;
  for (auto it = segments().begin(); it != segments().end(); ++it) ++n;
  return n;
}

void AsPath::AppendSegment(SegmentType type, std::span<const uint32_t> asns) {
  while (!asns.empty()) {
    size_t n = std::min<size_t>(asns.size(), 0xffff);
    data_.push_back(Header(type, n));
    data_.insert(data_.end(), asns.begin(), asns.begin() + n);
    asns = asns.subspan(n);
  }
}

int AsPath::PathLength() const {
  int length = 0;
  for (Segment s : segments()) {
    if (s.type == SegmentType::kSequence) length += int(s.asns.size());
    if (s.type == SegmentType::kSet) length += 1;
  }
  return length;
}

uint32_t AsPath::FirstAs() const {
  if (data_.empty()) return 0;
  Segment first = *segments().begin();
  return first.type == SegmentType::kSequence ? first.asns.front() : 0;
}

uint32_t AsPath::OriginAs() const {
  uint32_t origin = 0;
  for (Segment s : segments()) origin = s.type == SegmentType::kSequence ? s.asns.back() : 0;
  return origin;
}

bool AsPath::Contains(uint32_t as) const {
  for (Segment s : segments()) {
    if (std::find(s.asns.begin(), s.asns.end(), as) != s.asns.end()) return true;
  }
  return false;
}

bool AsPath::HasFourOctetAs() const {
  for (Segment s : segments()) {
    for (uint32_t a : s.asns) {
      if (a > 0xffff) return true;
    }
  }
  return false;
}

bool AsPath::HasConfedSegments() const {
  for (Segment s : segments()) {
    if (IsConfed(s.type)) return true;
  }
  return false;
}

AsPath AsPath::Prepended(uint32_t as, int count) const {
  AsPath out;
  if (count <= 0) return *this;
  std::vector<uint32_t> lead(size_t(count), as);
  auto it = segments().begin();
  bool merge = !data_.empty() && (*it).type == SegmentType::kSequence &&
               (*it).asns.size() + size_t(count) <= 255;
  if (merge) {
    lead.insert(lead.end(), (*it).asns.begin(), (*it).asns.end());
    ++it;
  }
  // A run longer than 255 becomes several segments, the leftmost one full.
  std::span<const uint32_t> rest(lead);
  while (!rest.empty()) {
    size_t n = rest.size() % 255 == 0 ? 255 : rest.size() % 255;
    out.AppendSegment(SegmentType::kSequence, rest.subspan(0, n));
    rest = rest.subspan(n);
  }
  for (; it != segments().end(); ++it) out.AppendSegment((*it).type, (*it).asns);
  return out;
}

AsPath AsPath::WithoutConfedSegments() const {
  AsPath out;
  for (Segment s : segments()) {
    if (!IsConfed(s.type)) out.AppendSegment(s.type, s.asns);
  }
  return out;
}

std::string AsPath::ToString() const {
  std::string out;
  bool first_segment = true;
  for (Segment s : segments()) {
    if (!first_segment) out += ' ';
    first_segment = false;
    char open = 0, close = 0, sep = ' ';
    switch (s.type) {
      case SegmentType::kSet:
        open = '{', close = '}', sep = ',';
        break;
      case SegmentType::kConfedSequence:
        open = '(', close = ')';
        break;
      case SegmentType::kConfedSet:
        open = '[', close = ']', sep = ',';
        break;
      case SegmentType::kSequence:
        break;
    }
    if (open) out += open;
    for (size_t i = 0; i < s.asns.size(); ++i) {
      if (i) out += sep;
      absl::StrAppend(&out, s.asns[i]);
    }
    if (close) out += close;
  }
  return out;
}

absl::Status AsPath::Decode(Bytes value, int as_size, AsPath* out) {
  out->data_.clear();
  const uint8_t* p = value.data();
  const uint8_t* end = p + value.size();
  out->data_.reserve(value.size() / size_t(as_size) + 2);
  while (p < end) {
    if (end - p < 2) {
      return absl::InvalidArgumentError("AS_PATH: a single octet after the last segment");
    }
    uint8_t type = p[0];
    uint8_t count = p[1];
    if (type < 1 || type > 4) {
      return absl::InvalidArgumentError(absl::StrFormat("AS_PATH: unknown segment type %d", type));
    }
    if (count == 0) return absl::InvalidArgumentError("AS_PATH: segment of length 0");
    p += 2;
    if (end - p < ptrdiff_t(count) * as_size) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "AS_PATH: segment of %d ASes overruns the attribute (%d octets left)", count, end - p));
    }
    out->data_.push_back(Header(SegmentType(type), count));
    if (as_size == 4) {
      for (int i = 0; i < count; ++i, p += 4) out->data_.push_back(LoadU32(p));
    } else {
      for (int i = 0; i < count; ++i, p += 2) out->data_.push_back(LoadU16(p));
    }
  }
  return absl::OkStatus();
}

size_t AsPath::EncodedSize(int as_size) const {
  size_t n = 0;
  for (Segment s : segments()) {
    size_t chunks = (s.asns.size() + 254) / 255;
    n += chunks * 2 + s.asns.size() * size_t(as_size);
  }
  return n;
}

void AsPath::Encode(int as_size, ByteWriter& out) const {
  Encode(as_size, out.Extend(EncodedSize(as_size)));
}

uint8_t* AsPath::Encode(int as_size, uint8_t* out) const {
  for (Segment s : segments()) {
    std::span<const uint32_t> asns = s.asns;
    while (!asns.empty()) {
      const size_t n = std::min<size_t>(asns.size(), 255);
      *out++ = uint8_t(s.type);
      *out++ = uint8_t(n);
      if (as_size == 4) {
        for (size_t i = 0; i < n; ++i, out += 4) StoreU32(out, asns[i]);
      } else {
        for (size_t i = 0; i < n; ++i, out += 2) {
          StoreU16(out, uint16_t(asns[i] > 0xffff ? kAsTrans : asns[i]));
        }
      }
      asns = asns.subspan(n);
    }
  }
  return out;
}

AsPath AsPath::Reconcile(const AsPath& as_path, const AsPath& as4_path) {
  const int n = as_path.PathLength();
  const int n4 = as4_path.PathLength();
  if (n < n4) return as_path;
  int needed = n - n4;
  AsPath out;
  bool prev_taken = false;
  for (Segment s : as_path.segments()) {
    if (IsConfed(s.type)) {
      // Leading, or adjacent to a prepended segment.
      if (out.data_.empty() || prev_taken) {
        out.AppendSegment(s.type, s.asns);
        prev_taken = true;
        continue;
      }
      break;
    }
    if (needed == 0) break;
    if (IsSet(s.type)) {
      out.AppendSegment(s.type, s.asns);
      needed -= 1;
    } else {
      size_t take = std::min<size_t>(s.asns.size(), size_t(needed));
      out.AppendSegment(s.type, s.asns.subspan(0, take));
      needed -= int(take);
    }
    prev_taken = true;
  }
  // Join a trailing AS_SEQUENCE with a leading AS4_PATH sequence when the result fits a segment.
  auto it = as4_path.segments().begin();
  if (!out.data_.empty() && it != as4_path.segments().end()) {
    Segment last{};
    size_t last_header = 0;
    for (size_t i = 0; i < out.data_.size(); i += 1 + (out.data_[i] & 0xffff)) last_header = i;
    last.type = SegmentType((out.data_[last_header] >> 16) & 0xff);
    size_t last_count = out.data_[last_header] & 0xffff;
    Segment first = *it;
    if (last.type == SegmentType::kSequence && first.type == SegmentType::kSequence &&
        last_count + first.asns.size() <= 255) {
      out.data_[last_header] = Header(SegmentType::kSequence, last_count + first.asns.size());
      out.data_.insert(out.data_.end(), first.asns.begin(), first.asns.end());
      ++it;
    }
  }
  for (; it != as4_path.segments().end(); ++it) out.AppendSegment((*it).type, (*it).asns);
  return out;
}

}  // namespace sluice::bgp
