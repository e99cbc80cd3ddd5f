#include "bgp/wire/update_encoder.h"

#include <algorithm>
#include <array>
#include <memory>

#include "absl/strings/str_format.h"
#include "bgp/wire/notification.h"

namespace sluice::bgp {
namespace {

// Octets of an UPDATE with nothing in it: header, Withdrawn Routes Length, Total Path Attribute
// Length.
constexpr size_t kEmptyUpdate = kHeaderSize + 4;
// MP_UNREACH_NLRI overhead (a 4-octet attribute header counted, to be safe): header, AFI, SAFI.
constexpr size_t kUnreachFixed = 4 + 3;

struct Range {
  const Nlri* begin = nullptr;
  size_t count = 0;
  void Extend(const Nlri* n) {
    if (count == 0) begin = n;
    ++count;
  }
  std::span<const Nlri> span() const { return {begin, count}; }
};

// One message being filled.
struct Draft {
  Range withdrawn;  // classic Withdrawn Routes
  bool has_unreach = false;
  AfiSafi unreach_family;
  Range unreach;
  bool has_attrs = false;  // announcements present
  bool reach_mp = false;   // announcements in MP_REACH_NLRI (else the classic NLRI field)
  AfiSafi reach_family;
  Range reach;  // MP_REACH_NLRI or classic NLRI, per reach_mp
  size_t size = kEmptyUpdate;
  bool empty() const { return withdrawn.count == 0 && !has_unreach && !has_attrs; }
};

struct EncodedAttrs {
  std::vector<uint8_t> pre;   // type codes 0..13
  std::vector<uint8_t> post;  // type codes 16..255
};

size_t NlriBytes(std::span<const Nlri> v, bool add_path) {
  size_t n = 0;
  for (const Nlri& x : v) n += NlriWireSize(x, add_path);
  return n;
}

// Writes `n` as NlriWireSize says at `p`; returns where it ends.
uint8_t* PutNlri(const Nlri& n, bool add_path, uint8_t* p) {
  if (add_path) {
    StoreU32(p, n.path_id);
    p += 4;
  }
  const int bits = n.prefix.length();
  *p++ = uint8_t(bits);
  const size_t octets = size_t((bits + 7) / 8);
  if (n.prefix.is_v4()) {  // 0 to 4 octets, stored one by one rather than by a call to memcpy
    const uint32_t address = n.prefix.v4().value();
    for (size_t i = 0; i < octets; ++i) p[i] = uint8_t(address >> (24 - 8 * i));
  } else {
    uint8_t b[16];
    n.prefix.v6().ToBytes(b);
    std::copy(b, b + octets, p);
  }
  return p + octets;
}

// Appends `v`, `octets` (NlriBytes) in all: the buffer grows once, not per prefix.
void WriteNlri(std::span<const Nlri> v, bool add_path, size_t octets, ByteWriter& w) {
  std::vector<uint8_t>& out = *w.buffer();
  const size_t at = out.size();
  out.resize(at + octets);
  uint8_t* p = out.data() + at;
  for (const Nlri& x : v) p = PutNlri(x, add_path, p);
}

// Appends `gap` zero octets, then the message `d` describes.
void WriteDraft(const Draft& d, const EncodedAttrs* attrs, const MpNextHop* nh,
                const SessionParams& params, size_t gap, std::vector<uint8_t>* out) {
  // d.size is the message's size: grow once (geometrically) rather than octet by octet.
  if (out->capacity() - out->size() < gap + d.size) {
    out->reserve(std::max(out->capacity() * 2, out->size() + gap + d.size));
  }
  out->resize(out->size() + gap);
  ByteWriter w(out);
  const size_t start = w.size();
  AppendHeader(MessageType::kUpdate, 0, w);
  const bool ap4 = params.add_path_send.Has(kIPv4Unicast);

  const size_t wlen_at = w.ReserveU16();
  WriteNlri(d.withdrawn.span(), ap4, NlriBytes(d.withdrawn.span(), ap4), w);
  w.PatchU16(wlen_at, uint16_t(w.size() - wlen_at - 2));

  const size_t alen_at = w.ReserveU16();
  if (d.has_attrs) w.Append(attrs->pre);
  if (d.has_attrs && d.reach_mp) {
    const bool ap = params.add_path_send.Has(d.reach_family);
    const size_t nlri = NlriBytes(d.reach.span(), ap);
    AppendAttributeHeader(kFlagOptional, uint8_t(AttrType::kMpReachNlri),
                          5 + MpNextHopSize(*nh) + nlri, w);
    w.U16(uint16_t(d.reach_family.afi));
    w.U8(uint8_t(d.reach_family.safi));
    AppendMpNextHop(*nh, w);
    w.U8(0);  // reserved
    WriteNlri(d.reach.span(), ap, nlri, w);
  }
  if (d.has_unreach) {
    const bool ap = params.add_path_send.Has(d.unreach_family);
    const size_t nlri = NlriBytes(d.unreach.span(), ap);
    AppendAttributeHeader(kFlagOptional, uint8_t(AttrType::kMpUnreachNlri), 3 + nlri, w);
    w.U16(uint16_t(d.unreach_family.afi));
    w.U8(uint8_t(d.unreach_family.safi));
    WriteNlri(d.unreach.span(), ap, nlri, w);
  }
  if (d.has_attrs) w.Append(attrs->post);
  w.PatchU16(alen_at, uint16_t(w.size() - alen_at - 2));

  if (d.has_attrs && !d.reach_mp) WriteNlri(d.reach.span(), ap4, NlriBytes(d.reach.span(), ap4), w);
  w.PatchU16(start + kMarkerSize, uint16_t(w.size() - start));
}

// `v` split by family (AfiSafi::Index()), order kept within each. All of one family (the usual
// case: a PeerOut is per family) is a view of `v` itself, no copy; mixed families are copied
// apart.
class ByFamily {
 public:
  explicit ByFamily(std::span<const Nlri> v) {
    if (v.empty()) return;
    const int first = v.front().family().Index();
    const bool mixed = std::any_of(v.begin(), v.end(),
                                   [first](const Nlri& n) { return n.family().Index() != first; });
    if (!mixed) {
      groups_[first] = v;
      return;
    }
    copies_ = std::make_unique<std::array<std::vector<Nlri>, AfiSafi::kCount>>();
    for (const Nlri& n : v) (*copies_)[n.family().Index()].push_back(n);
    for (int i = 0; i < AfiSafi::kCount; ++i) groups_[i] = (*copies_)[i];
  }
  ByFamily(const ByFamily&) = delete;  // the groups may point into copies_
  ByFamily& operator=(const ByFamily&) = delete;

  std::span<const Nlri> operator[](int family_index) const { return groups_[family_index]; }

 private:
  std::array<std::span<const Nlri>, AfiSafi::kCount> groups_;
  std::unique_ptr<std::array<std::vector<Nlri>, AfiSafi::kCount>> copies_;  // when mixed
};

}  // namespace

UpdateEncoder::UpdateEncoder(const SessionParams& params, bool readvertise) : params_(params) {
  attr_options_.as_size = params.four_octet_as ? 4 : 2;
  attr_options_.readvertise = readvertise;
}

bool UpdateEncoder::EncodesLike(const UpdateEncoder& other) const {
  return attr_options_.as_size == other.attr_options_.as_size &&
         attr_options_.readvertise == other.attr_options_.readvertise &&
         params_.max_message_size() == other.params_.max_message_size() &&
         params_.add_path_send == other.params_.add_path_send && message_gap_ == other.message_gap_;
}

void UpdateEncoder::EndOfRib(AfiSafi family, std::vector<uint8_t>* out) const {
  Draft d;
  if (family != kIPv4Unicast) {
    d.has_unreach = true;
    d.unreach_family = family;
  }
  WriteDraft(d, nullptr, nullptr, params_, message_gap_, out);
}

absl::StatusOr<int> UpdateEncoder::Pack(const PathAttributes* attrs, std::span<const Nlri> announce,
                                        std::span<const Nlri> withdraw,
                                        std::vector<uint8_t>* out) const {
  if (!announce.empty() && attrs == nullptr) {
    return absl::InvalidArgumentError("UPDATE packing: announcements without path attributes");
  }
  const size_t max = params_.max_message_size();
  const ByFamily withdraw_groups(withdraw);
  const ByFamily announce_groups(announce);

  // Reused by every call on this thread: a Pack runs per attribute set, often per route, and the
  // two buffers would otherwise be allocated and freed each time.
  thread_local EncodedAttrs encoded;
  encoded.pre.clear();
  encoded.post.clear();
  if (!announce.empty()) {
    ByteWriter pre(&encoded.pre), post(&encoded.post);
    EncodeAttributes(*attrs, attr_options_, 0, 13, pre);
    EncodeAttributes(*attrs, attr_options_, 16, 255, post);
  }
  const size_t attrs_fixed = encoded.pre.size() + encoded.post.size();
  // Validate before writing anything, so that an error leaves `out` untouched.
  for (int i = 0; i < AfiSafi::kCount; ++i) {
    if (announce_groups[i].empty()) continue;
    const AfiSafi family = AfiSafi::FromIndex(i);
    size_t reach_fixed = 0;
    if (family == kIPv4Unicast) {
      if (!attrs->next_hop) {
        return absl::InvalidArgumentError("UPDATE packing: IPv4 unicast NLRI without NEXT_HOP");
      }
    } else {
      if (!attrs->mp_next_hop) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "UPDATE packing: %s NLRI without an MP_REACH_NLRI nexthop", family.ToString()));
      }
      reach_fixed = 4 + 5 + MpNextHopSize(*attrs->mp_next_hop);
    }
    if (kEmptyUpdate + attrs_fixed + reach_fixed + 4 + 17 > max) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "UPDATE packing: %d octets of path attributes leave no room for NLRI in %d", attrs_fixed,
          max));
    }
  }

  int messages = 0;
  Draft d;
  auto flush = [&] {
    if (!d.empty()) {
      WriteDraft(d, &encoded, attrs && attrs->mp_next_hop ? &*attrs->mp_next_hop : nullptr, params_,
                 message_gap_, out);
      ++messages;
    }
    d = Draft();
  };

  for (int i = 0; i < AfiSafi::kCount; ++i) {
    const AfiSafi family = AfiSafi::FromIndex(i);
    const bool classic = family == kIPv4Unicast;
    const bool ap = params_.add_path_send.Has(family);
    for (const Nlri& n : withdraw_groups[i]) {
      const size_t size = NlriWireSize(n, ap);
      if (!classic && d.has_unreach && d.unreach_family != family) flush();
      size_t extra = size + (!classic && !d.has_unreach ? kUnreachFixed : 0);
      if (d.size + extra > max) {
        flush();
        extra = size + (classic ? 0 : kUnreachFixed);
      }
      if (classic) {
        d.withdrawn.Extend(&n);
      } else {
        d.has_unreach = true;
        d.unreach_family = family;
        d.unreach.Extend(&n);
      }
      d.size += extra;
    }
  }
  for (int i = 0; i < AfiSafi::kCount; ++i) {
    const AfiSafi family = AfiSafi::FromIndex(i);
    const bool classic = family == kIPv4Unicast;
    const bool ap = params_.add_path_send.Has(family);
    if (announce_groups[i].empty()) continue;
    const size_t fixed = attrs_fixed + (classic ? 0 : 4 + 5 + MpNextHopSize(*attrs->mp_next_hop));
    for (const Nlri& n : announce_groups[i]) {
      const size_t size = NlriWireSize(n, ap);
      if (d.has_attrs && d.reach_family != family) flush();
      size_t extra = size + (d.has_attrs ? 0 : fixed);
      if (d.size + extra > max) {
        flush();
        extra = size + fixed;
      }
      d.has_attrs = true;
      d.reach_mp = !classic;
      d.reach_family = family;
      d.reach.Extend(&n);
      d.size += extra;
    }
  }
  flush();
  return messages;
}

absl::Status UpdateEncoder::EncodeOne(const UpdateMessage& update,
                                      std::vector<uint8_t>* out) const {
  if (update.end_of_rib) {
    EndOfRib(*update.end_of_rib, out);
    return absl::OkStatus();
  }
  // Copies keep each part contiguous for the draft ranges.
  std::vector<Nlri> classic_w, mp_w, classic_a, mp_a;
  for (size_t i = 0; i < update.withdrawn.size(); ++i) {
    (i < update.classic_withdrawn ? classic_w : mp_w).push_back(update.withdrawn[i]);
  }
  for (size_t i = 0; i < update.announced.size(); ++i) {
    (i < update.classic_announced ? classic_a : mp_a).push_back(update.announced[i]);
  }
  for (const auto* v : {&mp_w, &mp_a}) {
    for (const Nlri& n : *v) {
      if (n.family() != v->front().family()) {
        return absl::InvalidArgumentError("one UPDATE cannot carry two MP families each way");
      }
    }
  }
  if (!classic_a.empty() && !mp_a.empty()) {
    return absl::InvalidArgumentError("announcements both classic and in MP_REACH_NLRI");
  }
  const PathAttributes* attrs = update.attributes.get();
  if (!update.announced.empty() && attrs == nullptr) {
    return absl::InvalidArgumentError("announcements without path attributes");
  }
  if (!mp_a.empty() && !attrs->mp_next_hop) {
    return absl::InvalidArgumentError("MP_REACH_NLRI announcements without a nexthop");
  }
  EncodedAttrs encoded;
  Draft d;
  for (const Nlri& n : classic_w) d.withdrawn.Extend(&n);
  if (!mp_w.empty()) {
    d.has_unreach = true;
    d.unreach_family = mp_w.front().family();
    for (const Nlri& n : mp_w) d.unreach.Extend(&n);
  }
  if (attrs) {
    ByteWriter pre(&encoded.pre), post(&encoded.post);
    AttributeEncodeOptions exact = attr_options_;
    exact.readvertise = false;
    EncodeAttributes(*attrs, exact, 0, 13, pre);
    EncodeAttributes(*attrs, exact, 16, 255, post);
    d.has_attrs = true;
    d.reach_mp = !mp_a.empty();
    d.reach_family = d.reach_mp ? mp_a.front().family() : kIPv4Unicast;
    for (const Nlri& n : d.reach_mp ? mp_a : classic_a) d.reach.Extend(&n);
  }
  std::vector<uint8_t> message;
  WriteDraft(d, &encoded, attrs && attrs->mp_next_hop ? &*attrs->mp_next_hop : nullptr, params_,
             /*gap=*/0, &message);
  if (message.size() > params_.max_message_size()) {
    return absl::InvalidArgumentError(absl::StrFormat("UPDATE of %d octets exceeds %d",
                                                      message.size(), params_.max_message_size()));
  }
  out->insert(out->end(), message.begin(), message.end());
  return absl::OkStatus();
}

}  // namespace sluice::bgp
