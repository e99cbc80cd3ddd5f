#pragma once
// NetlinkIfMgr: the Linux kernel's interfaces and addresses (rtnetlink(7)). Start() subscribes
// to the link and address multicast groups (RTMGRP_LINK, RTMGRP_IPV4_IFADDR,
// RTMGRP_IPV6_IFADDR), then dumps links and addresses; from then on the notification socket is
// read on the event loop (Asio waits on its fd) and each change that alters the tree is
// reported to watchers there. Applying a notification that overlaps the dump twice changes
// nothing, so none is reported twice. When the kernel drops notifications (ENOBUFS), the tree
// is read again and the differences are reported.
//
// Mapping: enabled = IFF_UP, carrier = IFF_RUNNING, MTU = IFLA_MTU, MAC = IFLA_ADDRESS (6
// octets), an address = IFA_LOCAL (else IFA_ADDRESS) with ifa_prefixlen.

#include <memory>

#include "absl/status/status.h"
#include "fea/ifmgr.h"

namespace boost::asio {
class io_context;
}

namespace sluice::fea {

class NetlinkSocket;

class NetlinkIfMgr : public IfMgr {
 public:
  // `io` is the loop watchers are called on; it must outlive this object.
  explicit NetlinkIfMgr(boost::asio::io_context& io);
  ~NetlinkIfMgr() override;

  std::string_view backend_name() const override { return "netlink"; }
  // Errors: the socket's errno text (e.g. no NETLINK_ROUTE in a restricted sandbox).
  absl::Status Start() override;
  void Stop() override;
  // Reads every link and address again and reports the differences.
  absl::Status Resync();

 private:
  struct Reader;
  absl::Status DumpInto(InterfaceTree& tree);
  void OnNotifications();

  boost::asio::io_context& io_;
  std::unique_ptr<NetlinkSocket> requests_;
  std::unique_ptr<Reader> reader_;
};

}  // namespace sluice::fea
