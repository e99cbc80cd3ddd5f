#pragma once
// NetlinkSocket: one rtnetlink (NETLINK_ROUTE) socket, built on libmnl, with the two exchanges
// the FEA needs: dumps (a request answered by many messages up to NLMSG_DONE) and batches (many
// requests in one sendmsg, each request's outcome read back from the kernel's NLMSG_ERROR
// replies, matched by sequence number). Extended ACKs are on, so a refusal carries the
// kernel's own explanation ("Nexthop device is not up") next to the errno.
//
// Blocking, used from the event loop; a socket that follows multicast groups hands its fd to
// Asio instead (fea/netlink_ifmgr.h).

#include <linux/netlink.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct mnl_socket;

namespace sluice::fea {

// The outcome of one request in a batch: 0 or a positive errno, and the kernel's extended-ACK
// message when it gave one.
struct NetlinkResult {
  int error = 0;
  std::string message;
  bool answered = false;  // a reply for this request arrived (always true in ack-all mode)
};

// True when `nlh` starts a whole message among the `len` octets left of a receive buffer (as
// mnl_nlmsg_ok, which also accepts a length field of 2 GiB or more and then walks off the
// buffer). Iterate with mnl_nlmsg_next.
bool NetlinkMessageOk(const nlmsghdr* nlh, int len);

// Calls `fn` for each whole attribute of `nlh` after the first `offset` payload octets (the
// family header) and within its nlmsg_len, until `fn` returns false.
void ForEachAttribute(const nlmsghdr* nlh, size_t offset,
                      const std::function<bool(const nlattr*)>& fn);

// "Network is down (ENETDOWN): Nexthop device is not up".
std::string NetlinkErrorText(int error, const std::string& message);

class NetlinkSocket {
 public:
  // Opens a NETLINK_ROUTE socket subscribed to `groups` (RTMGRP_* bits; 0: none), with
  // extended and capped ACKs and strict dump checking on. Errors: the errno text.
  static absl::StatusOr<std::unique_ptr<NetlinkSocket>> Open(uint32_t groups = 0);
  ~NetlinkSocket();
  NetlinkSocket(const NetlinkSocket&) = delete;
  NetlinkSocket& operator=(const NetlinkSocket&) = delete;

  int fd() const;
  uint32_t portid() const { return portid_; }
  // Reserves `count` consecutive sequence numbers and returns the first.
  uint32_t NextSeq(uint32_t count = 1) {
    uint32_t first = seq_;
    seq_ += count;
    return first;
  }

  // Asks for `bytes` of receive and send buffer (SO_*BUFFORCE when privileged, else the
  // system's limit). Returns the receive buffer size obtained, in octets.
  int SetBufferSizes(int bytes);
  absl::Status SetNonBlocking();
  // Makes a blocking receive give up after `seconds` (a reply the kernel never sends must not
  // hang the event loop forever); the exchange then fails with DeadlineExceeded.
  void SetReceiveTimeout(int seconds);

  // Sends `request` (a dump request with its sequence number set) and calls `on_message` for
  // each reply until NLMSG_DONE. Errors: the kernel's NLMSG_ERROR, Unavailable when the dump was
  // interrupted by a concurrent change (NLM_F_DUMP_INTR; retry), or `on_message`'s error.
  absl::Status Dump(const nlmsghdr* request,
                    const std::function<absl::Status(const nlmsghdr*)>& on_message);

  // Sends `bytes` holding results.size() requests with sequence numbers first_seq,
  // first_seq+1, ... in one sendmsg, and fills results[i] for the request with sequence number
  // first_seq+i. The last request must carry NLM_F_ACK (others may: with NLM_F_ACK on all of
  // them every result is answered; without, silence means success, since the kernel answers
  // every failure and replies in order). When the send fails nothing was applied and every
  // result carries the send's errno. Errors: receiving failed (the outcome of the requests not
  // answered is then unknown).
  absl::Status SendBatch(std::span<const char> bytes, uint32_t first_seq,
                         std::span<NetlinkResult> results);

  // Receives what is queued without blocking and calls `on_message` for each message.
  // Errors: ResourceExhausted when the kernel dropped messages (ENOBUFS: resynchronise), other
  // errno texts. Returns OK when nothing is left to read.
  absl::Status DrainNonBlocking(const std::function<void(const nlmsghdr*)>& on_message);

 private:
  explicit NetlinkSocket(mnl_socket* socket);

  mnl_socket* socket_;
  uint32_t portid_ = 0;
  uint32_t seq_ = 1;
  std::unique_ptr<char[]> buffer_;  // receive buffer
};

}  // namespace sluice::fea
