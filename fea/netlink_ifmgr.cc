#include "fea/netlink_ifmgr.h"

#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <cstring>
#include <optional>

#include "base/log.h"
#include "fea/netlink_socket.h"

namespace sluice::fea {

namespace {

// An RTM_NEWLINK as an Interface (no addresses); nullopt for other families' link messages.
std::optional<Interface> ParseLink(const nlmsghdr* nlh) {
  if (mnl_nlmsg_get_payload_len(nlh) < sizeof(ifinfomsg)) return std::nullopt;
  const auto* ifi = static_cast<const ifinfomsg*>(mnl_nlmsg_get_payload(nlh));
  if (ifi->ifi_family != AF_UNSPEC && ifi->ifi_family != AF_PACKET) return std::nullopt;
  if (ifi->ifi_index <= 0) return std::nullopt;
  Interface i;
  i.index = static_cast<uint32_t>(ifi->ifi_index);
  i.enabled = ifi->ifi_flags & IFF_UP;
  i.carrier = ifi->ifi_flags & IFF_RUNNING;
  ForEachAttribute(nlh, sizeof(ifinfomsg), [&](const nlattr* attr) {
    switch (mnl_attr_get_type(attr)) {
      case IFLA_IFNAME:
        if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0) i.name = mnl_attr_get_str(attr);
        break;
      case IFLA_MTU:
        if (mnl_attr_get_payload_len(attr) == 4) i.mtu = mnl_attr_get_u32(attr);
        break;
      case IFLA_ADDRESS:
        if (mnl_attr_get_payload_len(attr) == 6) {
          std::array<uint8_t, 6> mac;
          std::memcpy(mac.data(), mnl_attr_get_payload(attr), 6);
          i.mac = MacAddress(mac);
        }
        break;
      default:
        break;
    }
    return true;
  });
  if (i.name.empty()) return std::nullopt;
  return i;
}

struct AddressMessage {
  uint32_t index;
  InterfaceAddress address;
};

std::optional<AddressMessage> ParseAddress(const nlmsghdr* nlh) {
  if (mnl_nlmsg_get_payload_len(nlh) < sizeof(ifaddrmsg)) return std::nullopt;
  const auto* ifa = static_cast<const ifaddrmsg*>(mnl_nlmsg_get_payload(nlh));
  const int family = ifa->ifa_family;
  if (family != AF_INET && family != AF_INET6) return std::nullopt;
  std::optional<net::IPAddress> local, address;
  ForEachAttribute(nlh, sizeof(ifaddrmsg), [&](const nlattr* attr) {
    uint16_t type = mnl_attr_get_type(attr);
    if (type != IFA_LOCAL && type != IFA_ADDRESS) return true;
    const auto* bytes = static_cast<const uint8_t*>(mnl_attr_get_payload(attr));
    std::optional<net::IPAddress> a;
    if (family == AF_INET && mnl_attr_get_payload_len(attr) == 4) {
      a = net::IPAddress(net::IPv4Address::FromBytes(bytes));
    } else if (family == AF_INET6 && mnl_attr_get_payload_len(attr) == 16) {
      a = net::IPAddress(net::IPv6Address::FromBytes(bytes));
    }
    (type == IFA_LOCAL ? local : address) = a;
    return true;
  });
  std::optional<net::IPAddress> own = local ? local : address;
  int bits = family == AF_INET ? 32 : 128;
  if (!own || ifa->ifa_prefixlen > bits) return std::nullopt;
  return AddressMessage{ifa->ifa_index, InterfaceAddress{*own, ifa->ifa_prefixlen}};
}

// Applies one notification or dump message to `tree`; returns the events.
std::vector<InterfaceEvent> Apply(InterfaceTree& tree, const nlmsghdr* nlh) {
  switch (nlh->nlmsg_type) {
    case RTM_NEWLINK:
      if (auto i = ParseLink(nlh)) return tree.SetInterface(*i);
      break;
    case RTM_DELLINK:
      if (auto i = ParseLink(nlh)) return tree.RemoveInterface(i->index);
      break;
    case RTM_NEWADDR:
      if (auto a = ParseAddress(nlh)) return tree.AddAddress(a->index, a->address);
      break;
    case RTM_DELADDR:
      if (auto a = ParseAddress(nlh)) return tree.RemoveAddress(a->index, a->address.address);
      break;
    default:
      break;
  }
  return {};
}

}  // namespace

struct NetlinkIfMgr::Reader {
  std::unique_ptr<NetlinkSocket> socket;
  boost::asio::posix::stream_descriptor descriptor;
  // Handlers hold a weak reference: one that runs after Stop() or destruction does nothing.
  std::shared_ptr<NetlinkIfMgr*> self;

  Reader(boost::asio::io_context& io, std::unique_ptr<NetlinkSocket> s, NetlinkIfMgr* owner)
      : socket(std::move(s)),
        descriptor(io, socket->fd()),
        self(std::make_shared<NetlinkIfMgr*>(owner)) {}
  ~Reader() {
    boost::system::error_code ignored;
    descriptor.cancel(ignored);
    descriptor.release();  // the NetlinkSocket closes the fd
  }

  void Wait() {
    std::weak_ptr<NetlinkIfMgr*> weak = self;
    descriptor.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                          [weak](const boost::system::error_code& ec) {
                            std::shared_ptr<NetlinkIfMgr*> owner = weak.lock();
                            if (ec || !owner) return;
                            (*owner)->OnNotifications();
                          });
  }
};

NetlinkIfMgr::NetlinkIfMgr(boost::asio::io_context& io) : io_(io) {}

NetlinkIfMgr::~NetlinkIfMgr() { Stop(); }

absl::Status NetlinkIfMgr::Start() {
  if (reader_) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<NetlinkSocket>> events =
      NetlinkSocket::Open(RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR);
  if (!events.ok()) return events.status();
  (*events)->SetBufferSizes(4 << 20);
  if (absl::Status s = (*events)->SetNonBlocking(); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<NetlinkSocket>> requests = NetlinkSocket::Open();
  if (!requests.ok()) return requests.status();
  requests_ = std::move(*requests);
  requests_->SetReceiveTimeout(60);
  // Subscribed before the dump: nothing that changes meanwhile is missed.
  reader_ = std::make_unique<Reader>(io_, std::move(*events), this);
  if (absl::Status s = Resync(); !s.ok()) {
    reader_.reset();
    return s;
  }
  reader_->Wait();
  return absl::OkStatus();
}

void NetlinkIfMgr::Stop() { reader_.reset(); }

absl::Status NetlinkIfMgr::DumpInto(InterfaceTree& tree) {
  for (uint16_t type : {uint16_t{RTM_GETLINK}, uint16_t{RTM_GETADDR}}) {
    absl::Status status;
    for (int attempt = 0; attempt < 5; ++attempt) {
      InterfaceTree scratch = tree;
      char buf[64] = {};
      nlmsghdr* nlh = mnl_nlmsg_put_header(buf);
      nlh->nlmsg_type = type;
      nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
      nlh->nlmsg_seq = requests_->NextSeq();
      if (type == RTM_GETLINK) {
        mnl_nlmsg_put_extra_header(nlh, sizeof(ifinfomsg));
      } else {
        mnl_nlmsg_put_extra_header(nlh, sizeof(ifaddrmsg));
      }
      status = requests_->Dump(nlh, [&](const nlmsghdr* m) {
        Apply(scratch, m);
        return absl::OkStatus();
      });
      if (status.ok()) {
        tree = std::move(scratch);
        break;
      }
      if (status.code() != absl::StatusCode::kUnavailable) return status;
    }
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status NetlinkIfMgr::Resync() {
  if (!requests_) return absl::FailedPreconditionError("netlink ifmgr not started");
  InterfaceTree fresh;
  if (absl::Status s = DumpInto(fresh); !s.ok()) return s;
  Publish(tree_.ReplaceWith(fresh));
  return absl::OkStatus();
}

void NetlinkIfMgr::OnNotifications() {
  std::vector<InterfaceEvent> events;
  absl::Status status = reader_->socket->DrainNonBlocking([&](const nlmsghdr* nlh) {
    for (InterfaceEvent& e : Apply(tree_, nlh)) events.push_back(std::move(e));
  });
  Publish(events);
  if (!reader_) return;  // a watcher stopped us
  if (status.code() == absl::StatusCode::kResourceExhausted) {
    SLUICE_LOG(kWarning) << "netlink ifmgr: " << status.message() << "; reading all again";
    if (absl::Status s = Resync(); !s.ok()) {
      SLUICE_LOG(kError) << "netlink ifmgr: resync failed: " << s.message();
    }
  } else if (!status.ok()) {
    SLUICE_LOG(kError) << "netlink ifmgr: " << status.message();
  }
  if (reader_) reader_->Wait();
}

}  // namespace sluice::fea
