#include "bgp/wire/nlri.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::bgp {

std::string Nlri::ToString() const {
  std::string s = prefix.ToString();
  if (path_id != 0) absl::StrAppend(&s, " path-id ", path_id);
  if (safi == Safi::kMulticast) s += " multicast";
  return s;
}

absl::Status DecodeNlri(Bytes data, Afi afi, Safi safi, bool add_path, std::vector<Nlri>* out,
                        bool* host_bits) {
  const uint8_t* p = data.data();
  const uint8_t* end = p + data.size();
  const int max_bits = afi == Afi::kIPv4 ? 32 : 128;
  bool any_host_bits = false;
  while (p < end) {
    uint32_t path_id = 0;
    if (add_path) {
      if (end - p < 4) return absl::InvalidArgumentError("NLRI: path identifier cut short");
      path_id = LoadU32(p);
      p += 4;
      if (p == end) return absl::InvalidArgumentError("NLRI: prefix length missing");
    }
    const int bits = *p++;
    if (bits > max_bits) {
      return absl::InvalidArgumentError(
          absl::StrFormat("NLRI: prefix length %d exceeds %d", bits, max_bits));
    }
    const int octets = (bits + 7) / 8;
    if (end - p < octets) {
      return absl::InvalidArgumentError(
          absl::StrFormat("NLRI: /%d prefix needs %d octets, %d left", bits, octets, end - p));
    }
    Nlri& n = out->emplace_back();
    n.path_id = path_id;
    n.safi = safi;
    if (afi == Afi::kIPv4) {
      uint32_t v = 0;
      for (int i = 0; i < octets; ++i) v |= uint32_t(p[i]) << (24 - 8 * i);
      uint32_t masked = bits == 0 ? 0 : v & (~uint32_t{0} << (32 - bits));
      any_host_bits |= masked != v;
      n.prefix = net::Prefix(net::IPv4Address(masked), bits);
    } else {
      uint8_t b[16] = {};
      for (int i = 0; i < octets; ++i) b[i] = p[i];
      net::IPv6Address a = net::IPv6Address::FromBytes(b);
      net::IPv6Address masked = a.Masked(bits);
      any_host_bits |= masked != a;
      n.prefix = net::Prefix(masked, bits);
    }
    p += octets;
  }
  if (host_bits) *host_bits = any_host_bits;
  return absl::OkStatus();
}

void EncodeNlri(const Nlri& n, bool add_path, ByteWriter& out) {
  if (add_path) out.U32(n.path_id);
  const int bits = n.prefix.length();
  out.U8(uint8_t(bits));
  uint8_t b[16];
  if (n.prefix.is_v4()) {
    n.prefix.v4().ToBytes(b);
  } else {
    n.prefix.v6().ToBytes(b);
  }
  out.Append(b, size_t((bits + 7) / 8));
}

}  // namespace sluice::bgp
