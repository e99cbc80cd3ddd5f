#include "bgp/session/socket_options.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace sluice::bgp {
namespace {

absl::Status Errno(const char* what) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

}  // namespace

absl::Status SetTcpMd5Key(int fd, const net::IPAddress& peer, const std::string& key) {
  if (key.size() > TCP_MD5SIG_MAXKEYLEN) {
    return absl::InvalidArgumentError(
        absl::StrCat("TCP MD5 key of ", key.size(), " octets: at most ", TCP_MD5SIG_MAXKEYLEN));
  }
  struct tcp_md5sig sig;
  std::memset(&sig, 0, sizeof(sig));
  if (peer.is_v4()) {
    auto* sin = reinterpret_cast<sockaddr_in*>(&sig.tcpm_addr);
    sin->sin_family = AF_INET;
    sin->sin_addr.s_addr = htonl(peer.v4().value());
  } else {
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(&sig.tcpm_addr);
    sin6->sin6_family = AF_INET6;
    uint8_t bytes[16];
    peer.v6().ToBytes(bytes);
    std::memcpy(&sin6->sin6_addr, bytes, 16);
  }
  sig.tcpm_keylen = uint16_t(key.size());
  std::memcpy(sig.tcpm_key, key.data(), key.size());
  if (setsockopt(fd, IPPROTO_TCP, TCP_MD5SIG, &sig, sizeof(sig)) != 0) {
    return Errno(key.empty() ? "TCP_MD5SIG (remove)" : "TCP_MD5SIG");
  }
  return absl::OkStatus();
}

absl::Status SetOutgoingTtl(int fd, net::Family family, int ttl) {
  const int rc = family == net::Family::kIPv4
                     ? setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl))
                     : setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl, sizeof(ttl));
  if (rc != 0) return Errno(family == net::Family::kIPv4 ? "IP_TTL" : "IPV6_UNICAST_HOPS");
  return absl::OkStatus();
}

absl::Status SetMinimumTtl(int fd, net::Family family, int min_ttl) {
  const int rc = family == net::Family::kIPv4
                     ? setsockopt(fd, IPPROTO_IP, IP_MINTTL, &min_ttl, sizeof(min_ttl))
                     : setsockopt(fd, IPPROTO_IPV6, IPV6_MINHOPCOUNT, &min_ttl, sizeof(min_ttl));
  if (rc != 0) return Errno(family == net::Family::kIPv4 ? "IP_MINTTL" : "IPV6_MINHOPCOUNT");
  return absl::OkStatus();
}

}  // namespace sluice::bgp
