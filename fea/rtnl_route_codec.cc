#include "fea/rtnl_route_codec.h"

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "fea/netlink_socket.h"

namespace sluice::fea {

namespace {

// Reserves room for a message of at most `max_len` octets at the end of `buffer`; returns its
// header (zeroed). Finish() trims the buffer to the message actually written.
nlmsghdr* Start(std::vector<char>& buffer, size_t max_len, size_t* offset) {
  *offset = buffer.size();
  buffer.resize(*offset + max_len);
  return mnl_nlmsg_put_header(buffer.data() + *offset);
}

void Finish(std::vector<char>& buffer, size_t offset, const nlmsghdr* nlh) {
  buffer.resize(offset + NLMSG_ALIGN(nlh->nlmsg_len));
}

void PutAddress(nlmsghdr* nlh, uint16_t type, const net::IPAddress& a) {
  uint8_t bytes[16];
  if (a.is_v4()) {
    a.v4().ToBytes(bytes);
    mnl_attr_put(nlh, type, 4, bytes);
  } else {
    a.v6().ToBytes(bytes);
    mnl_attr_put(nlh, type, 16, bytes);
  }
}

rtmsg* PutRtmsg(nlmsghdr* nlh, const net::Prefix& prefix, const KernelRouteTarget& target) {
  auto* rtm = static_cast<rtmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(rtmsg)));
  rtm->rtm_family = prefix.is_v4() ? AF_INET : AF_INET6;
  rtm->rtm_dst_len = static_cast<uint8_t>(prefix.length());
  rtm->rtm_table =
      target.table < 256 ? static_cast<uint8_t>(target.table) : uint8_t{RT_TABLE_UNSPEC};
  rtm->rtm_protocol = target.protocol;
  mnl_attr_put_u32(nlh, RTA_TABLE, target.table);
  if (prefix.length() > 0) PutAddress(nlh, RTA_DST, prefix.address());
  return rtm;
}

absl::StatusOr<uint32_t> IfIndex(const Nexthop& nh, const FibRoute& route,
                                 const InterfaceTree& interfaces) {
  if (nh.interface.empty()) return 0;
  const Interface* i = interfaces.FindByName(nh.interface);
  if (i == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("route ", route.ToString(), ": interface \"", nh.interface, "\" is gone"));
  }
  return i->index;
}

std::optional<net::IPAddress> ReadAddress(const nlattr* attr, int family) {
  if (family == AF_INET && mnl_attr_get_payload_len(attr) == 4) {
    return net::IPAddress(
        net::IPv4Address::FromBytes(static_cast<const uint8_t*>(mnl_attr_get_payload(attr))));
  }
  if (family == AF_INET6 && mnl_attr_get_payload_len(attr) == 16) {
    return net::IPAddress(
        net::IPv6Address::FromBytes(static_cast<const uint8_t*>(mnl_attr_get_payload(attr))));
  }
  return std::nullopt;
}

}  // namespace

uint32_t KernelMetric(const net::Prefix& prefix, uint32_t metric) {
  return prefix.is_v6() && metric == 0 ? 1024 : metric;
}

absl::Status AppendNewRoute(std::vector<char>& buffer, uint32_t seq, uint16_t flags,
                            RouteWrite write, const FibRoute& route,
                            const KernelRouteTarget& target, const InterfaceTree& interfaces) {
  std::vector<uint32_t> ifindex(route.nexthops.size());
  for (size_t i = 0; i < route.nexthops.size(); ++i) {
    absl::StatusOr<uint32_t> index = IfIndex(route.nexthops[i], route, interfaces);
    if (!index.ok()) return index.status();
    ifindex[i] = *index;
  }
  size_t offset;
  nlmsghdr* nlh = Start(buffer, 128 + 48 * route.nexthops.size(), &offset);
  nlh->nlmsg_type = RTM_NEWROUTE;
  nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | flags |
                     (write == RouteWrite::kCreate ? NLM_F_EXCL : NLM_F_REPLACE);
  nlh->nlmsg_seq = seq;
  rtmsg* rtm = PutRtmsg(nlh, route.prefix, target);
  rtm->rtm_type = RTN_UNICAST;
  bool any_gateway = false;
  for (const Nexthop& nh : route.nexthops) any_gateway |= nh.gateway.has_value();
  rtm->rtm_scope = any_gateway ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK;
  mnl_attr_put_u32(nlh, RTA_PRIORITY, KernelMetric(route.prefix, route.metric));
  if (route.nexthops.size() == 1) {
    const Nexthop& nh = route.nexthops[0];
    if (nh.gateway.has_value()) PutAddress(nlh, RTA_GATEWAY, *nh.gateway);
    if (ifindex[0] != 0) mnl_attr_put_u32(nlh, RTA_OIF, ifindex[0]);
    if (nh.onlink) rtm->rtm_flags |= RTNH_F_ONLINK;
  } else {
    nlattr* nest = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
    for (size_t i = 0; i < route.nexthops.size(); ++i) {
      const Nexthop& nh = route.nexthops[i];
      auto* rtnh = static_cast<rtnexthop*>(mnl_nlmsg_get_payload_tail(nlh));
      nlh->nlmsg_len += RTNH_ALIGN(sizeof(rtnexthop));
      std::memset(rtnh, 0, sizeof(rtnexthop));
      rtnh->rtnh_flags = nh.onlink ? RTNH_F_ONLINK : 0;
      rtnh->rtnh_hops = static_cast<uint8_t>(nh.weight - 1);
      rtnh->rtnh_ifindex = static_cast<int>(ifindex[i]);
      if (nh.gateway.has_value()) PutAddress(nlh, RTA_GATEWAY, *nh.gateway);
      rtnh->rtnh_len = static_cast<unsigned short>(
          static_cast<char*>(mnl_nlmsg_get_payload_tail(nlh)) - reinterpret_cast<char*>(rtnh));
    }
    mnl_attr_nest_end(nlh, nest);
  }
  Finish(buffer, offset, nlh);
  return absl::OkStatus();
}

void AppendDelRoute(std::vector<char>& buffer, uint32_t seq, uint16_t flags,
                    const net::Prefix& prefix, uint32_t kernel_metric,
                    const KernelRouteTarget& target) {
  size_t offset;
  nlmsghdr* nlh = Start(buffer, 128, &offset);
  nlh->nlmsg_type = RTM_DELROUTE;
  nlh->nlmsg_flags = NLM_F_REQUEST | flags;
  nlh->nlmsg_seq = seq;
  rtmsg* rtm = PutRtmsg(nlh, prefix, target);
  rtm->rtm_scope = RT_SCOPE_NOWHERE;  // any scope
  rtm->rtm_type = RTN_UNSPEC;         // any type
  mnl_attr_put_u32(nlh, RTA_PRIORITY, kernel_metric);
  Finish(buffer, offset, nlh);
}

void AppendRouteDumpRequest(std::vector<char>& buffer, uint32_t seq, net::Family family,
                            const KernelRouteTarget& target) {
  size_t offset;
  nlmsghdr* nlh = Start(buffer, 64, &offset);
  nlh->nlmsg_type = RTM_GETROUTE;
  nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  nlh->nlmsg_seq = seq;
  auto* rtm = static_cast<rtmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(rtmsg)));
  rtm->rtm_family = family == net::Family::kIPv4 ? AF_INET : AF_INET6;
  rtm->rtm_table =
      target.table < 256 ? static_cast<uint8_t>(target.table) : uint8_t{RT_TABLE_UNSPEC};
  rtm->rtm_protocol = target.protocol;
  mnl_attr_put_u32(nlh, RTA_TABLE, target.table);
  Finish(buffer, offset, nlh);
}

FibRoute KernelRoute::ToFibRoute(const InterfaceTree& interfaces) const {
  FibRoute r;
  r.prefix = prefix;
  r.metric = metric;
  for (const KernelNexthop& k : nexthops) {
    Nexthop nh;
    nh.gateway = k.gateway;
    nh.onlink = k.onlink;
    nh.weight = k.weight;
    if (k.ifindex != 0) {
      const Interface* i = interfaces.FindByIndex(k.ifindex);
      nh.interface = i ? i->name : absl::StrCat("if", k.ifindex);
    }
    r.nexthops.push_back(std::move(nh));
  }
  return r;
}

absl::StatusOr<std::optional<KernelRoute>> ParseRoute(const nlmsghdr* nlh) {
  if (nlh->nlmsg_type != RTM_NEWROUTE && nlh->nlmsg_type != RTM_DELROUTE) return std::nullopt;
  if (mnl_nlmsg_get_payload_len(nlh) < sizeof(rtmsg)) {
    return absl::InvalidArgumentError("netlink route message shorter than struct rtmsg");
  }
  const auto* rtm = static_cast<const rtmsg*>(mnl_nlmsg_get_payload(nlh));
  if ((rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) || rtm->rtm_src_len != 0) {
    return std::nullopt;
  }
  const int family = rtm->rtm_family;
  const int bits = family == AF_INET ? 32 : 128;
  if (rtm->rtm_dst_len > bits) {
    return absl::InvalidArgumentError(
        absl::StrCat("netlink route with prefix length ", rtm->rtm_dst_len));
  }
  KernelRoute route;
  route.table = rtm->rtm_table;
  route.protocol = rtm->rtm_protocol;
  route.type = rtm->rtm_type;
  net::IPAddress dst =
      family == AF_INET ? net::IPAddress(net::IPv4Address()) : net::IPAddress(net::IPv6Address());
  KernelNexthop single;
  single.onlink = rtm->rtm_flags & RTNH_F_ONLINK;
  absl::Status error;
  ForEachAttribute(nlh, sizeof(rtmsg), [&](const nlattr* attr) {
    switch (mnl_attr_get_type(attr)) {
      case RTA_DST:
        if (auto a = ReadAddress(attr, family)) dst = *a;
        break;
      case RTA_TABLE:
        if (mnl_attr_get_payload_len(attr) == 4) route.table = mnl_attr_get_u32(attr);
        break;
      case RTA_PRIORITY:
        if (mnl_attr_get_payload_len(attr) == 4) route.metric = mnl_attr_get_u32(attr);
        break;
      case RTA_GATEWAY:
        single.gateway = ReadAddress(attr, family);
        break;
      case RTA_OIF:
        if (mnl_attr_get_payload_len(attr) == 4) single.ifindex = mnl_attr_get_u32(attr);
        break;
      case RTA_MULTIPATH: {
        const char* p = static_cast<const char*>(mnl_attr_get_payload(attr));
        size_t left = mnl_attr_get_payload_len(attr);
        while (left >= sizeof(rtnexthop)) {
          const auto* rtnh = reinterpret_cast<const rtnexthop*>(p);
          if (rtnh->rtnh_len < sizeof(rtnexthop) || rtnh->rtnh_len > left) {
            error = absl::InvalidArgumentError("netlink route with a malformed RTA_MULTIPATH");
            return false;
          }
          KernelNexthop nh;
          nh.ifindex = static_cast<uint32_t>(rtnh->rtnh_ifindex);
          nh.onlink = rtnh->rtnh_flags & RTNH_F_ONLINK;
          nh.weight = static_cast<uint16_t>(rtnh->rtnh_hops + 1);
          size_t attrs_len = rtnh->rtnh_len - RTNH_ALIGN(sizeof(rtnexthop));
          const char* a = p + RTNH_ALIGN(sizeof(rtnexthop));
          while (attrs_len >= sizeof(nlattr)) {
            const auto* na = reinterpret_cast<const nlattr*>(a);
            if (na->nla_len < sizeof(nlattr) || na->nla_len > attrs_len) break;
            if ((na->nla_type & NLA_TYPE_MASK) == RTA_GATEWAY) nh.gateway = ReadAddress(na, family);
            size_t step = NLA_ALIGN(na->nla_len);
            if (step > attrs_len) break;
            a += step;
            attrs_len -= step;
          }
          route.nexthops.push_back(nh);
          size_t step = RTNH_ALIGN(rtnh->rtnh_len);
          if (step >= left) break;
          p += step;
          left -= step;
        }
        break;
      }
      default:
        break;
    }
    return true;
  });
  if (!error.ok()) return error;
  // A gateway or interface makes a nexthop; attributes that named neither (a gateway of the
  // wrong size, interface 0) do not.
  if ((single.gateway || single.ifindex != 0) && route.nexthops.empty()) {
    route.nexthops.push_back(single);
  }
  route.prefix = net::Prefix(dst, rtm->rtm_dst_len);
  return std::optional<KernelRoute>(std::move(route));
}

}  // namespace sluice::fea
