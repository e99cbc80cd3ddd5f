#pragma once
// Linux socket options a BGP session uses: TCP MD5 signatures (RFC 2385) and the Generalized TTL
// Security Mechanism (RFC 5082). They work on raw descriptors so that both listening sockets and
// connecting sockets (before connect()) can be set up.
//
// Errors: Internal naming the option and errno (for example ENOENT when removing a key that was
// never set, or ENOPROTOOPT on a kernel built without CONFIG_TCP_MD5SIG).

#include <string>

#include "absl/status/status.h"
#include "net/ip_address.h"

namespace sluice::bgp {

// Sets the TCP MD5 signature key (at most 80 octets) for segments exchanged with `peer` on socket
// `fd` (Linux TCP_MD5SIG); an empty key removes it. On a listening socket the key applies to the
// peer's incoming connections (and is copied to the accepted sockets). The socket's family must be
// the peer's.
absl::Status SetTcpMd5Key(int fd, const net::IPAddress& peer, const std::string& key);

// The TTL (IPv4) or hop limit (IPv6) of the packets the socket sends; -1: the system default.
absl::Status SetOutgoingTtl(int fd, net::Family family, int ttl);

// GTSM: the socket drops received packets whose TTL / hop limit is below `min_ttl` (1..255;
// Linux IP_MINTTL / IPV6_MINHOPCOUNT). For a peer `hops` away: 256 - hops.
absl::Status SetMinimumTtl(int fd, net::Family family, int min_ttl);

}  // namespace sluice::bgp
