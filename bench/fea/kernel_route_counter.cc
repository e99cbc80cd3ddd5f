// kernel_route_counter: counts the IPv4 routes of one kernel table as rtnetlink reports them,
// for bench/convergence (workload 5: a full router into the kernel).
//
// It keeps the set of the table's unicast prefixes not put there by the kernel itself (its
// connected routes): a dump at start, then the RTMGRP_IPV4_ROUTE notifications. A notification
// queue that overflows (ENOBUFS) is repaired by a new dump, and counted. It prints JSON lines on
// stdout, as sluice-replay --json does:
//   {"event": "progress", "mono": S, "held": N, "held_changed_mono": S, "first_mono": S|null,
//    "overruns": N}                                   every 100 ms
//   {"event": "held_all", "mono": S, "held": N, "overruns": N}     once, when --expect is held
// Times are CLOCK_MONOTONIC seconds of when a change was read (Python's time.monotonic()).
//
// The notifications of a full table arrive at the kernel's install rate (hundreds of thousands
// of routes a second on a small machine). Reading them must cost much less than producing them, or
// the counter, not the kernel, sets the pace it reports: hence a program, not a script.
//
// Runs until killed. Needs root for its 256 MiB socket buffer (SO_RCVBUFFORCE).
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "base/program_options.h"

namespace {

// recvmmsg reads up to kSlots notifications at once, each into its own kSlotBytes of the buffer
// (a notification fits a page); a dump's replies use the same buffer.
constexpr size_t kSlots = 256, kSlotBytes = 8192;
constexpr size_t kBufferBytes = kSlots * kSlotBytes;

struct Counter {
  uint32_t table = RT_TABLE_MAIN;      // the routing table counted
  absl::flat_hash_set<uint64_t> held;  // (prefix length << 32) | destination, network order
  size_t expect = 0;                   // held_all is due once this many are held (0: never)
  bool reached = false;                // held has held `expect` routes, if only for a moment
};

double Now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The key of an RTM_NEWROUTE or RTM_DELROUTE message for a route of `table` that is counted,
// or nullopt.
std::optional<uint64_t> RouteKey(const nlmsghdr* nlh, uint32_t table) {
  if (mnl_nlmsg_get_payload_len(nlh) < sizeof(rtmsg)) return std::nullopt;
  const auto* rtm = static_cast<const rtmsg*>(mnl_nlmsg_get_payload(nlh));
  if (rtm->rtm_family != AF_INET || rtm->rtm_type != RTN_UNICAST ||
      rtm->rtm_protocol == RTPROT_KERNEL) {
    return std::nullopt;
  }
  uint32_t in_table = rtm->rtm_table;
  uint32_t dst = 0;
  const auto* tail = static_cast<const char*>(mnl_nlmsg_get_payload_tail(nlh));
  for (auto* attr = static_cast<const nlattr*>(mnl_nlmsg_get_payload_offset(nlh, sizeof(rtmsg)));
       mnl_attr_ok(attr, static_cast<int>(tail - reinterpret_cast<const char*>(attr)));
       attr = mnl_attr_next(attr)) {
    if (mnl_attr_get_type(attr) == RTA_TABLE && mnl_attr_get_payload_len(attr) >= 4) {
      in_table = mnl_attr_get_u32(attr);
    } else if (mnl_attr_get_type(attr) == RTA_DST && mnl_attr_get_payload_len(attr) >= 4) {
      std::memcpy(&dst, mnl_attr_get_payload(attr), 4);
    }
  }
  if (in_table != table) return std::nullopt;
  return (uint64_t{rtm->rtm_dst_len} << 32) | dst;
}

int OnMessage(const nlmsghdr* nlh, void* data) {
  auto* counter = static_cast<Counter*>(data);
  if (nlh->nlmsg_type != RTM_NEWROUTE && nlh->nlmsg_type != RTM_DELROUTE) return MNL_CB_OK;
  if (std::optional<uint64_t> key = RouteKey(nlh, counter->table)) {
    if (nlh->nlmsg_type == RTM_NEWROUTE) {
      counter->held.insert(*key);
      if (counter->expect > 0 && counter->held.size() >= counter->expect) counter->reached = true;
    } else {
      counter->held.erase(*key);
    }
  }
  return MNL_CB_OK;
}

struct SocketCloser {
  void operator()(mnl_socket* s) const { mnl_socket_close(s); }
};
using Socket = std::unique_ptr<mnl_socket, SocketCloser>;

// Replaces counter.held with the table as a dump on a socket of its own reports it.
bool Dump(Counter& counter, std::vector<char>& buf) {
  Socket s(mnl_socket_open(NETLINK_ROUTE));
  if (!s || mnl_socket_bind(s.get(), 0, MNL_SOCKET_AUTOPID) < 0) return false;
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
  nlh->nlmsg_type = RTM_GETROUTE;
  nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  nlh->nlmsg_seq = 1;
  auto* rtm = static_cast<rtmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(rtmsg)));
  rtm->rtm_family = AF_INET;
  if (mnl_socket_sendto(s.get(), nlh, nlh->nlmsg_len) < 0) return false;
  counter.held.clear();
  const unsigned portid = mnl_socket_get_portid(s.get());
  for (;;) {
    const ssize_t n = mnl_socket_recvfrom(s.get(), buf.data(), buf.size());
    if (n < 0) return false;
    const int r = mnl_cb_run(buf.data(), static_cast<size_t>(n), 1, portid, OnMessage, &counter);
    if (r == MNL_CB_STOP) return true;
    if (r == MNL_CB_ERROR) return false;
  }
}

// A time, or null for none (0).
std::string Mono(double t) { return t > 0 ? absl::StrFormat("%.6f", t) : "null"; }

void EmitProgress(double now, const Counter& counter, double changed, double first,
                  unsigned overruns) {
  std::printf(
      "{\"event\": \"progress\", \"mono\": %.6f, \"held\": %zu, \"held_changed_mono\": %.6f, "
      "\"first_mono\": %s, \"overruns\": %u}\n",
      now, counter.held.size(), changed, Mono(first).c_str(), overruns);
  std::fflush(stdout);
}

void EmitHeldAll(double changed, const Counter& counter, unsigned overruns) {
  std::printf("{\"event\": \"held_all\", \"mono\": %s, \"held\": %zu, \"overruns\": %u}\n",
              Mono(changed).c_str(), counter.held.size(), overruns);
  std::fflush(stdout);
}

// Reads what the notification socket holds, up to a few thousand messages at a time, into
// counter. Returns false on an overrun (ENOBUFS): notifications were lost.
bool Drain(int fd, Counter& counter, std::vector<char>& buf) {
  std::vector<iovec> iov(kSlots);
  std::vector<mmsghdr> msgs(kSlots);
  for (size_t i = 0; i < kSlots; ++i) {
    iov[i] = iovec{buf.data() + i * kSlotBytes, kSlotBytes};
    msgs[i] = mmsghdr{};
    msgs[i].msg_hdr.msg_iov = &iov[i];
    msgs[i].msg_hdr.msg_iovlen = 1;
  }
  for (int round = 0; round < 16; ++round) {
    const int got = recvmmsg(fd, msgs.data(), kSlots, MSG_DONTWAIT, nullptr);
    if (got < 0) return errno != ENOBUFS;
    for (int i = 0; i < got; ++i) {
      mnl_cb_run(iov[i].iov_base, msgs[i].msg_len, 0, 0, OnMessage, &counter);
    }
    if (static_cast<size_t>(got) < kSlots) break;
  }
  return true;
}

// A socket subscribed to the IPv4 route notifications, or null.
Socket OpenNotifications() {
  Socket s(mnl_socket_open(NETLINK_ROUTE));
  const int rcvbuf = 256 << 20;  // a burst of notifications
  if (!s ||
      setsockopt(mnl_socket_get_fd(s.get()), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) !=
          0 ||
      mnl_socket_bind(s.get(), RTMGRP_IPV4_ROUTE, MNL_SOCKET_AUTOPID) < 0) {
    return nullptr;
  }
  return s;
}

constexpr timespec kPause{0, 2'000'000};  // 2 ms: the resolution of the times reported

int Count(Counter& counter) {
  std::vector<char> buf(kBufferBytes);
  Socket s = OpenNotifications();
  if (!s || !Dump(counter, buf)) {
    std::fprintf(stderr, "kernel_route_counter: rtnetlink: %s\n", std::strerror(errno));
    return 1;
  }
  double changed = 0, first = 0, next_report = 0;
  unsigned overruns = 0;
  bool told_all = false;
  pollfd pfd{mnl_socket_get_fd(s.get()), POLLIN, 0};
  for (;;) {
    const size_t before = counter.held.size();
    const bool woken = poll(&pfd, 1, 100) > 0;
    if (woken && !Drain(pfd.fd, counter, buf)) {
      ++overruns;
      if (!Dump(counter, buf)) return 1;
    }
    const double now = Now();
    if (counter.held.size() != before) {
      changed = now;
      if (first == 0) first = now;
    }
    if (counter.reached && !told_all) {
      told_all = true;
      EmitHeldAll(changed, counter, overruns);
    }
    if (now >= next_report) {
      next_report = now + 0.1;
      EmitProgress(now, counter, changed, first, overruns);
    }
    // At most kPause apart, so that reading a burst wakes the counter a few hundred times a
    // second, not once per notification: each wake-up would take a CPU from the device.
    if (woken) nanosleep(&kPause, nullptr);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Counter counter;
  sluice::base::ProgramOptions options(
      "kernel_route_counter",
      "kernel_route_counter: the IPv4 unicast routes of a kernel table not added by the kernel "
      "itself, as rtnetlink reports them, in JSON lines (bench/convergence, workload 5)");
  CLI::App& app = options.app();
  app.add_option("--expect", counter.expect, "print held_all once this many routes are held");
  app.add_option("--table", counter.table, "the routing table (default main, 254)");
  if (std::optional<int> exit = options.Parse(argc, argv)) return *exit;
  return Count(counter);
}
