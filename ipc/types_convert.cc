#include "ipc/types_convert.h"

#include <cassert>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace sluice::ipc {

void ToProto(net::IPv4Address a, types::v1::IPv4Address* out) { out->set_address(a.value()); }

void ToProto(const net::IPv6Address& a, types::v1::IPv6Address* out) {
  out->set_hi(a.hi());
  out->set_lo(a.lo());
}

void ToProto(const net::IPAddress& a, types::v1::IPAddress* out) {
  if (a.is_v4()) {
    ToProto(a.v4(), out->mutable_v4());
  } else {
    ToProto(a.v6(), out->mutable_v6());
  }
}

void ToProto(const net::Prefix& p, types::v1::IPv4Prefix* out) {
  assert(p.is_v4());
  out->set_address(p.v4().value());
  out->set_length(static_cast<uint32_t>(p.length()));
}

void ToProto(const net::Prefix& p, types::v1::IPv6Prefix* out) {
  assert(p.is_v6());
  out->set_hi(p.v6().hi());
  out->set_lo(p.v6().lo());
  out->set_length(static_cast<uint32_t>(p.length()));
}

void ToProto(const net::Prefix& p, types::v1::IPPrefix* out) {
  if (p.is_v4()) {
    ToProto(p, out->mutable_v4());
  } else {
    ToProto(p, out->mutable_v6());
  }
}

void ToProto(MacAddress m, types::v1::MacAddress* out) { out->set_address(m.value()); }

net::IPv4Address FromProto(const types::v1::IPv4Address& a) {
  return net::IPv4Address(a.address());
}

net::IPv6Address FromProto(const types::v1::IPv6Address& a) {
  return net::IPv6Address(a.hi(), a.lo());
}

absl::StatusOr<net::IPAddress> FromProto(const types::v1::IPAddress& a) {
  switch (a.family_case()) {
    case types::v1::IPAddress::kV4:
      return net::IPAddress(FromProto(a.v4()));
    case types::v1::IPAddress::kV6:
      return net::IPAddress(FromProto(a.v6()));
    default:
      return absl::InvalidArgumentError("IPAddress has no address family set");
  }
}

absl::StatusOr<net::Prefix> FromProto(const types::v1::IPv4Prefix& p) {
  if (p.length() > 32) {
    return absl::InvalidArgumentError(
        absl::StrFormat("IPv4 prefix length %d is more than 32", p.length()));
  }
  return net::Prefix(net::IPv4Address(p.address()), static_cast<int>(p.length()));
}

absl::StatusOr<net::Prefix> FromProto(const types::v1::IPv6Prefix& p) {
  if (p.length() > 128) {
    return absl::InvalidArgumentError(
        absl::StrFormat("IPv6 prefix length %d is more than 128", p.length()));
  }
  return net::Prefix(net::IPv6Address(p.hi(), p.lo()), static_cast<int>(p.length()));
}

absl::StatusOr<net::Prefix> FromProto(const types::v1::IPPrefix& p) {
  switch (p.family_case()) {
    case types::v1::IPPrefix::kV4:
      return FromProto(p.v4());
    case types::v1::IPPrefix::kV6:
      return FromProto(p.v6());
    default:
      return absl::InvalidArgumentError("IPPrefix has no address family set");
  }
}

MacAddress FromProto(const types::v1::MacAddress& m) { return MacAddress(m.address()); }

void AppendWords(const net::IPAddress& a, google::protobuf::RepeatedField<uint32_t>* out) {
  if (a.is_v4()) {
    out->Add(a.v4().value());
    return;
  }
  const net::IPv6Address v6 = a.v6();
  out->Add(static_cast<uint32_t>(v6.hi() >> 32));
  out->Add(static_cast<uint32_t>(v6.hi()));
  out->Add(static_cast<uint32_t>(v6.lo() >> 32));
  out->Add(static_cast<uint32_t>(v6.lo()));
}

void AppendZeroWords(net::Family family, google::protobuf::RepeatedField<uint32_t>* out) {
  for (int i = 0; i < AddressWords(family); ++i) out->Add(0);
}

net::IPAddress AddressFromWords(net::Family family, const uint32_t* words) {
  if (family == net::Family::kIPv4) return net::IPAddress(net::IPv4Address(words[0]));
  return net::IPAddress(net::IPv6Address((uint64_t{words[0]} << 32) | words[1],
                                         (uint64_t{words[2]} << 32) | words[3]));
}

}  // namespace sluice::ipc
