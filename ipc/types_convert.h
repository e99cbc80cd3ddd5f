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

#include "absl/status/statusor.h"
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

}  // namespace sluice::ipc
