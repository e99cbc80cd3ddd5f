#include "fea/netlink_socket.h"

#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "absl/strings/str_cat.h"

namespace sluice::fea {

namespace {

constexpr size_t kReceiveBufferSize = 128 * 1024;

absl::Status ErrnoStatus(int error, std::string_view what) {
  if (error == EAGAIN || error == EWOULDBLOCK) {
    return absl::DeadlineExceededError(
        absl::StrCat("netlink: ", std::string(what), ": no reply from the kernel in time"));
  }
  return absl::ErrnoToStatus(error, absl::StrCat("netlink: ", std::string(what)));
}

// The kernel's extended-ACK text (NLMSGERR_ATTR_MSG) of an NLMSG_ERROR message, if any.
std::string ExtAckMessage(const nlmsghdr* nlh) {
  if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS)) return "";
  const auto* err = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
  size_t offset = sizeof(nlmsgerr);
  if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) offset += err->msg.nlmsg_len - sizeof(nlmsghdr);
  if (offset >= mnl_nlmsg_get_payload_len(nlh)) return "";
  std::string text;
  ForEachAttribute(nlh, offset, [&](const nlattr* attr) {
    if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
        mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0) {
      text = mnl_attr_get_str(attr);
      return false;
    }
    return true;
  });
  return text;
}

}  // namespace

bool NetlinkMessageOk(const nlmsghdr* nlh, int len) {
  return len >= static_cast<int>(sizeof(nlmsghdr)) && nlh->nlmsg_len >= sizeof(nlmsghdr) &&
         nlh->nlmsg_len <= static_cast<unsigned>(len);
}

void ForEachAttribute(const nlmsghdr* nlh, size_t offset,
                      const std::function<bool(const nlattr*)>& fn) {
  // The message's own end: its length rounded up to the alignment can lie past the buffer.
  const char* tail = reinterpret_cast<const char*>(nlh) + nlh->nlmsg_len;
  for (auto* attr = static_cast<const nlattr*>(mnl_nlmsg_get_payload_offset(nlh, offset));
       mnl_attr_ok(attr, static_cast<int>(tail - reinterpret_cast<const char*>(attr)));
       attr = mnl_attr_next(attr)) {
    if (!fn(attr)) return;
  }
}

std::string NetlinkErrorText(int error, const std::string& message) {
  const char* name = strerrorname_np(error);
  const char* desc = strerrordesc_np(error);
  std::string text = absl::StrCat(desc ? desc : "error", " (", name ? name : "?", ")");
  if (!message.empty()) absl::StrAppend(&text, ": ", message);
  return text;
}

absl::StatusOr<std::unique_ptr<NetlinkSocket>> NetlinkSocket::Open(uint32_t groups) {
  mnl_socket* nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
  if (nl == nullptr) return ErrnoStatus(errno, "cannot open a NETLINK_ROUTE socket");
  std::unique_ptr<NetlinkSocket> s(new NetlinkSocket(nl));
  if (mnl_socket_bind(nl, groups, MNL_SOCKET_AUTOPID) < 0) {
    return ErrnoStatus(errno, "cannot bind the NETLINK_ROUTE socket");
  }
  s->portid_ = mnl_socket_get_portid(nl);
  int on = 1;
  // Best effort: older kernels lack some of these; the answers are then only less detailed.
  mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &on, sizeof(on));
  mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &on, sizeof(on));
  mnl_socket_setsockopt(nl, NETLINK_GET_STRICT_CHK, &on, sizeof(on));
  s->seq_ = static_cast<uint32_t>(time(nullptr)) << 8;
  return s;
}

NetlinkSocket::NetlinkSocket(mnl_socket* socket)
    : socket_(socket), buffer_(new char[kReceiveBufferSize]) {}

NetlinkSocket::~NetlinkSocket() { mnl_socket_close(socket_); }

int NetlinkSocket::fd() const { return mnl_socket_get_fd(socket_); }

int NetlinkSocket::SetBufferSizes(int bytes) {
  int fd = this->fd();
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) < 0) {
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
  }
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof(bytes)) < 0) {
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
  }
  int got = 0;
  socklen_t len = sizeof(got);
  getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len);
  return got;
}

void NetlinkSocket::SetReceiveTimeout(int seconds) {
  timeval tv{};
  tv.tv_sec = seconds;
  setsockopt(fd(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

absl::Status NetlinkSocket::SetNonBlocking() {
  int flags = fcntl(fd(), F_GETFL);
  if (flags < 0 || fcntl(fd(), F_SETFL, flags | O_NONBLOCK) < 0) {
    return ErrnoStatus(errno, "cannot make the socket non-blocking");
  }
  return absl::OkStatus();
}

absl::Status NetlinkSocket::Dump(const nlmsghdr* request,
                                 const std::function<absl::Status(const nlmsghdr*)>& on_message) {
  if (mnl_socket_sendto(socket_, request, request->nlmsg_len) < 0) {
    return ErrnoStatus(errno, "cannot send a dump request");
  }
  const uint32_t seq = request->nlmsg_seq;
  absl::Status result;
  bool interrupted = false;
  for (;;) {
    ssize_t n = mnl_socket_recvfrom(socket_, buffer_.get(), kReceiveBufferSize);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot receive a dump");
    }
    int len = static_cast<int>(n);
    for (const auto* nlh = reinterpret_cast<const nlmsghdr*>(buffer_.get());
         NetlinkMessageOk(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
      if (nlh->nlmsg_seq != seq) continue;  // a late answer to an earlier request
      if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) interrupted = true;
      if (nlh->nlmsg_type == NLMSG_DONE) {
        if (!result.ok()) return result;
        if (interrupted) {
          return absl::UnavailableError("netlink: dump interrupted by a concurrent change");
        }
        return absl::OkStatus();
      }
      if (nlh->nlmsg_type == NLMSG_ERROR) {
        const auto* err = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
        if (err->error == 0) continue;
        return absl::ErrnoToStatus(-err->error,
                                   absl::StrCat("netlink dump refused: ",
                                                NetlinkErrorText(-err->error, ExtAckMessage(nlh))));
      }
      if (result.ok()) result = on_message(nlh);
    }
  }
}

absl::Status NetlinkSocket::SendBatch(std::span<const char> bytes, uint32_t first_seq,
                                      std::span<NetlinkResult> results) {
  for (NetlinkResult& r : results) r = NetlinkResult{};
  if (results.empty()) return absl::OkStatus();
  if (mnl_socket_sendto(socket_, bytes.data(), bytes.size()) < 0) {
    // Nothing was applied: every request has a known outcome, this error.
    const int error = errno;
    for (NetlinkResult& r : results) {
      r.answered = true;
      r.error = error;
      r.message = absl::StrCat("cannot send a batch of ", results.size(), " requests (",
                               bytes.size(), " octets)");
    }
    return absl::OkStatus();
  }
  const uint32_t last_seq = first_seq + static_cast<uint32_t>(results.size()) - 1;
  for (bool done = false; !done;) {
    ssize_t n = mnl_socket_recvfrom(socket_, buffer_.get(), kReceiveBufferSize);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == ENOBUFS) {
        return absl::ResourceExhaustedError(
            "netlink: the kernel dropped replies to a batch (receive buffer full)");
      }
      return ErrnoStatus(errno, "cannot receive the replies to a batch");
    }
    int len = static_cast<int>(n);
    for (const auto* nlh = reinterpret_cast<const nlmsghdr*>(buffer_.get());
         NetlinkMessageOk(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
      if (nlh->nlmsg_type != NLMSG_ERROR) continue;
      uint32_t seq = nlh->nlmsg_seq;
      if (seq - first_seq > last_seq - first_seq) continue;  // not ours (wraps correctly)
      const auto* err = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
      NetlinkResult& r = results[seq - first_seq];
      r.answered = true;
      r.error = -err->error;
      if (r.error != 0) r.message = ExtAckMessage(nlh);
      if (seq == last_seq) done = true;
    }
  }
  return absl::OkStatus();
}

absl::Status NetlinkSocket::DrainNonBlocking(
    const std::function<void(const nlmsghdr*)>& on_message) {
  for (;;) {
    ssize_t n = recv(fd(), buffer_.get(), kReceiveBufferSize, MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return absl::OkStatus();
      if (errno == ENOBUFS) {
        return absl::ResourceExhaustedError("netlink: the kernel dropped notifications");
      }
      return ErrnoStatus(errno, "cannot receive notifications");
    }
    int len = static_cast<int>(n);
    for (const auto* nlh = reinterpret_cast<const nlmsghdr*>(buffer_.get());
         NetlinkMessageOk(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
      on_message(nlh);
    }
  }
}

}  // namespace sluice::fea
