#pragma once
// Conversions between bgp/1.0 messages (ipc/proto/bgp.proto) and the BGP process's C++ types:
// peer configuration and status, originated route attributes, routes of the RIB views, address
// family names and community text. The adapter (bgp_service.h) is these plus one core call per
// method.
//
// Errors are InvalidArgument naming the field ("add_peer: hold_time 2: ..."); a request is
// checked whole before anything is applied.

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "bgp/process/bgp_process.h"
#include "ipc/proto/bgp.pb.h"

namespace sluice::bgp::process {

// "ipv4" → IPv4 unicast, "ipv6" → IPv6 unicast; "" → nullopt (every family).
absl::StatusOr<std::optional<AfiSafi>> FamilyFromText(std::string_view text);
std::string FamilyText(AfiSafi family);  // "ipv4", "ipv6", else AfiSafi::ToString()

// "65000:100" (two 16-bit halves), a decimal 32-bit value, or "no-export", "no-advertise",
// "no-export-subconfed", "no-peer" (RFC 1997, RFC 3765).
absl::StatusOr<uint32_t> ParseCommunity(std::string_view text);
// "GLOBAL:LOCAL1:LOCAL2" in decimal (RFC 8092).
absl::StatusOr<LargeCommunity> ParseLargeCommunity(std::string_view text);

// add_peer's request → the session's and the routing side's settings. Defaults are the
// session's (hold time 90 s, connect retry 120 s, ...) and RFC 8212 on.
absl::StatusOr<std::pair<PeerConfig, RoutingPeerConfig>> PeerFromProto(
    const bgp::v1::AddPeerRequest& request);

void ToProto(const PeerView& peer, bgp::v1::PeerInfo* out);

// originate_route's request → the attributes (nexthop of the network's family required).
absl::StatusOr<PathAttributes> AttributesFromProto(const bgp::v1::OriginateRouteRequest& request,
                                                   const net::Prefix& network);

void ToProto(const BgpRoute& route, bgp::v1::Route* out);

}  // namespace sluice::bgp::process
