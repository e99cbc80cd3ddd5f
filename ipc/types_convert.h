#pragma once
// Conversions between the shared protobuf value types (ipc/proto/types.proto) and Sluice's C++
// value types (net/ip_address.h, net/prefix.h, ipc/mac_address.h).
//
//   rib::v1::AddRoute4Request req;
//   ipc::ToProto(prefix, req.mutable_network());
//   ASSIGN_OR_RETURN(net::Prefix network, ipc::FromProto(req.network()));
//
// FromProto of a prefix fails (InvalidArgument) when the length is out of range (more than 32
// or 128); host bits past the length are cleared. FromProto of an IPAddress or IPPrefix fails
// when no family is set.

#include <cstdint>

#include "absl/status/statusor.h"
#include "google/protobuf/repeated_field.h"
#include "ipc/mac_address.h"
#include "ipc/proto/types.pb.h"
#include "net/ip_address.h"
#include "net/prefix.h"

namespace sluice::ipc {

void ToProto(net::IPv4Address a, types::v1::IPv4Address* out);
void ToProto(const net::IPv6Address& a, types::v1::IPv6Address* out);
void ToProto(const net::IPAddress& a, types::v1::IPAddress* out);
// `p` must be IPv4 for an IPv4Prefix and IPv6 for an IPv6Prefix (checked by assert).
void ToProto(const net::Prefix& p, types::v1::IPv4Prefix* out);
void ToProto(const net::Prefix& p, types::v1::IPv6Prefix* out);
void ToProto(const net::Prefix& p, types::v1::IPPrefix* out);
void ToProto(MacAddress m, types::v1::MacAddress* out);

net::IPv4Address FromProto(const types::v1::IPv4Address& a);
net::IPv6Address FromProto(const types::v1::IPv6Address& a);
absl::StatusOr<net::IPAddress> FromProto(const types::v1::IPAddress& a);
absl::StatusOr<net::Prefix> FromProto(const types::v1::IPv4Prefix& p);
absl::StatusOr<net::Prefix> FromProto(const types::v1::IPv6Prefix& p);
absl::StatusOr<net::Prefix> FromProto(const types::v1::IPPrefix& p);
MacAddress FromProto(const types::v1::MacAddress& m);

// Addresses in columns (the packed batches of rib/1.0 add_routes_packed and fea_fib/1.0
// apply_batch_packed): an address is AddressWords(family) words of 32 bits in host order, the
// most significant first — an IPv4 address one word (its value), an IPv6 address four
// (2001:db8::1 is 0x20010db8, 0, 0, 1).
constexpr int AddressWords(net::Family family) { return family == net::Family::kIPv4 ? 1 : 4; }
// Appends `a`'s words.
void AppendWords(const net::IPAddress& a, google::protobuf::RepeatedField<uint32_t>* out);
// Appends the words of `family`'s unspecified address (0.0.0.0 or ::).
void AppendZeroWords(net::Family family, google::protobuf::RepeatedField<uint32_t>* out);
// The address of `family` in words[0 .. AddressWords(family) - 1].
net::IPAddress AddressFromWords(net::Family family, const uint32_t* words);

}  // namespace sluice::ipc
