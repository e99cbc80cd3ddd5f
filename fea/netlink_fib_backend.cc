#include "fea/netlink_fib_backend.h"

#include <linux/rtnetlink.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "base/log.h"

namespace sluice::fea {

namespace {

// Requests being gathered into one sendmsg: their bytes, and for each the index of the change
// it belongs to.
class Batch {
 public:
  Batch(NetlinkSocket& socket, bool ack_all)
      : socket_(socket), ack_all_(ack_all), first_seq_(socket.NextSeq(0)) {}

  uint32_t next_seq() const { return first_seq_ + static_cast<uint32_t>(owners_.size()); }
  uint16_t flags() const { return ack_all_ ? NLM_F_ACK : 0; }
  std::vector<char>& buffer() { return buffer_; }
  size_t size() const { return owners_.size(); }
  // Call before appending a request for change `owner`; Appended() after it was appended.
  void Begin() { begin_ = buffer_.size(); }
  void Appended(size_t owner) {
    last_ = begin_;
    owners_.push_back(owner);
  }

  // Sends the requests; on_result(owner, result) for each, in order; error -1 marks an
  // unknown outcome. Returns the channel's error (then some outcomes are unknown).
  absl::Status Send(const std::function<void(size_t, const NetlinkResult&)>& on_result) {
    if (owners_.empty()) return absl::OkStatus();
    reinterpret_cast<nlmsghdr*>(buffer_.data() + last_)->nlmsg_flags |= NLM_F_ACK;
    socket_.NextSeq(static_cast<uint32_t>(owners_.size()));
    results_.assign(owners_.size(), NetlinkResult{});
    absl::Status status = socket_.SendBatch(buffer_, first_seq_, results_);
    for (size_t j = 0; j < owners_.size(); ++j) {
      NetlinkResult r = results_[j];
      if (!status.ok() && !r.answered) {
        r.error = -1;
        r.message = std::string(status.message());
      }
      on_result(owners_[j], r);
    }
    buffer_.clear();
    owners_.clear();
    first_seq_ = socket_.NextSeq(0);
    return status;
  }

 private:
  NetlinkSocket& socket_;
  bool ack_all_;
  uint32_t first_seq_;
  std::vector<char> buffer_;
  std::vector<size_t> owners_;
  std::vector<NetlinkResult> results_;
  size_t begin_ = 0;
  size_t last_ = 0;
};

absl::Status ResultStatus(const NetlinkResult& r) {
  if (r.error == 0) return absl::OkStatus();
  if (r.error == -1) {
    return absl::DataLossError(absl::StrCat("outcome unknown: ", r.message));
  }
  return absl::ErrnoToStatus(r.error, NetlinkErrorText(r.error, r.message));
}

}  // namespace

NetlinkFibBackend::NetlinkFibBackend(NetlinkFibOptions options) : options_(options) {
  target_.table = options_.table;
  target_.protocol = options_.protocol;
}

NetlinkFibBackend::~NetlinkFibBackend() = default;

absl::Status NetlinkFibBackend::Start() {
  if (options_.table == 0 || options_.table == 255 || options_.table == 0xffffffffu) {
    return absl::InvalidArgumentError(
        absl::StrCat("netlink FIB: table ", options_.table, " cannot hold Sluice's routes"));
  }
  if (options_.protocol <= RTPROT_STATIC) {
    return absl::InvalidArgumentError(absl::StrCat(
        "netlink FIB: route protocol ", options_.protocol, " is the kernel's own; use 5..255"));
  }
  if (options_.routes_per_send < 1 || options_.routes_per_send > 10000) {
    return absl::InvalidArgumentError(absl::StrCat(
        "netlink FIB: routes_per_send ", options_.routes_per_send, " out of range 1..10000"));
  }
  absl::StatusOr<std::unique_ptr<NetlinkSocket>> socket = NetlinkSocket::Open();
  if (!socket.ok()) return socket.status();
  socket_ = std::move(*socket);
  socket_->SetReceiveTimeout(60);
  // Room for a reply to every request of a batch, should all fail (about 1 KiB each).
  int rcvbuf = socket_->SetBufferSizes(8 << 20);
  size_t fit = static_cast<size_t>(rcvbuf) / 1024;
  if (options_.routes_per_send > fit) {
    SLUICE_LOG(kWarning) << "netlink FIB: receive buffer of " << rcvbuf
                         << " octets: sending at most " << fit << " routes per batch";
    options_.routes_per_send = fit > 0 ? fit : 1;
  }
  absl::StatusOr<std::vector<KernelRoute>> leftovers = ReadKernelRoutes();
  if (!leftovers.ok()) return leftovers.status();
  stale_.clear();
  for (const KernelRoute& r : *leftovers) stale_.insert(Key{r.prefix, r.metric});
  if (!stale_.empty()) {
    SLUICE_LOG(kInfo) << "netlink FIB: " << stale_.size() << " routes of protocol "
                      << int{options_.protocol} << " left in table " << options_.table
                      << " by an earlier run; kept until the full FIB has been pushed again";
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<KernelRoute>> NetlinkFibBackend::ReadKernelRoutes() {
  if (!socket_) return absl::FailedPreconditionError("netlink FIB backend not started");
  std::vector<KernelRoute> routes;
  for (net::Family family : {net::Family::kIPv4, net::Family::kIPv6}) {
    absl::Status status;
    for (int attempt = 0; attempt < 5; ++attempt) {
      std::vector<KernelRoute> found;
      std::vector<char> request;
      AppendRouteDumpRequest(request, socket_->NextSeq(), family, target_);
      status = socket_->Dump(reinterpret_cast<const nlmsghdr*>(request.data()),
                             [&](const nlmsghdr* nlh) -> absl::Status {
                               auto r = ParseRoute(nlh);
                               if (!r.ok()) return r.status();
                               if (r->has_value() && (*r)->table == options_.table &&
                                   (*r)->protocol == options_.protocol) {
                                 found.push_back(std::move(**r));
                               }
                               return absl::OkStatus();
                             });
      if (status.ok()) {
        for (KernelRoute& r : found) routes.push_back(std::move(r));
        break;
      }
      if (status.code() != absl::StatusCode::kUnavailable) return status;
    }
    if (!status.ok()) return status;
  }
  return routes;
}

void NetlinkFibBackend::Apply(std::span<const FibOp> ops, const InterfaceTree& interfaces,
                              std::span<absl::Status> results) {
  auto in_kernel = [](const FibRoute* r) { return r->protocol != kKernelOwnedProtocol; };
  bool all_written = true;
  for (const FibOp& op : ops) {
    if (!in_kernel(op.route) || (op.old != nullptr && !in_kernel(op.old))) {
      all_written = false;
      break;
    }
  }
  if (all_written) return ApplyToKernel(ops, interfaces, results);
  // Connected routes are the kernel's own: what touches them becomes what the kernel needs.
  std::vector<FibOp> kernel_ops;
  std::vector<size_t> index;
  for (size_t i = 0; i < ops.size(); ++i) {
    FibOp op = ops[i];
    results[i] = absl::OkStatus();
    if (op.kind == FibOpKind::kReplace) {
      const bool now = in_kernel(op.route), before = in_kernel(op.old);
      if (!now && !before) continue;
      if (!before) {
        op = FibOp{FibOpKind::kAdd, op.route};
      } else if (!now) {
        op = FibOp{FibOpKind::kDelete, op.old};
      }
    } else if (!in_kernel(op.route)) {
      continue;
    }
    kernel_ops.push_back(op);
    index.push_back(i);
  }
  std::vector<absl::Status> kernel_results(kernel_ops.size());
  ApplyToKernel(kernel_ops, interfaces, std::span<absl::Status>(kernel_results));
  for (size_t k = 0; k < index.size(); ++k) results[index[k]] = std::move(kernel_results[k]);
}

void NetlinkFibBackend::ApplyToKernel(std::span<const FibOp> ops, const InterfaceTree& interfaces,
                                      std::span<absl::Status> results) {
  if (!socket_) {
    for (absl::Status& r : results) r = absl::FailedPreconditionError("netlink FIB not started");
    return;
  }
  for (absl::Status& r : results) r = absl::OkStatus();
  Batch batch(*socket_, options_.ack_every_message);
  auto on_result = [&](size_t i, const NetlinkResult& r) {
    const FibOp& op = ops[i];
    // A delete of a route the kernel already dropped (its interface went down) has its effect.
    bool is_delete = op.kind == FibOpKind::kDelete;
    if (r.error == ESRCH && (is_delete || op.kind == FibOpKind::kReplace)) return;
    if (results[i].ok()) results[i] = ResultStatus(r);
  };
  auto flush = [&] {
    absl::Status s = batch.Send(on_result);
    if (!s.ok()) {
      SLUICE_LOG(kError) << "netlink FIB: " << s.message();
    }
  };
  std::vector<size_t> old_to_delete;
  for (size_t i = 0; i < ops.size(); ++i) {
    const FibOp& op = ops[i];
    const FibRoute& route = *op.route;
    const uint32_t metric = KernelMetric(route.prefix, route.metric);
    if (op.kind == FibOpKind::kDelete) {
      batch.Begin();
      AppendDelRoute(batch.buffer(), batch.next_seq(), batch.flags(), route.prefix, metric,
                     target_);
      batch.Appended(i);
    } else {
      RouteWrite write = RouteWrite::kCreate;
      if (op.kind == FibOpKind::kReplace) {
        const uint32_t old_metric = KernelMetric(op.old->prefix, op.old->metric);
        if (old_metric == metric) write = RouteWrite::kReplace;
      }
      if (!stale_.empty() && stale_.contains(Key{route.prefix, metric})) {
        write = RouteWrite::kReplace;
      }
      batch.Begin();
      absl::Status built = AppendNewRoute(batch.buffer(), batch.next_seq(), batch.flags(), write,
                                          route, target_, interfaces);
      if (!built.ok()) {
        results[i] = built;
        continue;
      }
      batch.Appended(i);
      if (op.kind == FibOpKind::kReplace &&
          KernelMetric(op.old->prefix, op.old->metric) != metric) {
        old_to_delete.push_back(i);
      }
    }
    if (batch.size() >= options_.routes_per_send) flush();
  }
  flush();
  // A replace that changed the metric wrote a second route: delete the old one, but only once
  // the new one is in (else the prefix would have neither).
  for (size_t i : old_to_delete) {
    if (!results[i].ok()) continue;
    batch.Begin();
    AppendDelRoute(batch.buffer(), batch.next_seq(), batch.flags(), ops[i].old->prefix,
                   KernelMetric(ops[i].old->prefix, ops[i].old->metric), target_);
    batch.Appended(i);
    if (batch.size() >= options_.routes_per_send) flush();
  }
  flush();
  if (!stale_.empty()) {
    for (size_t i = 0; i < ops.size(); ++i) {
      if (results[i].ok() && ops[i].kind != FibOpKind::kDelete) {
        stale_.erase(
            Key{ops[i].route->prefix, KernelMetric(ops[i].route->prefix, ops[i].route->metric)});
      }
    }
  }
}

absl::StatusOr<size_t> NetlinkFibBackend::DeleteKeys(const std::vector<Key>& keys,
                                                     std::string_view why) {
  Batch batch(*socket_, options_.ack_every_message);
  size_t removed = 0;
  size_t failed = 0;
  std::string first_error;
  auto on_result = [&](size_t k, const NetlinkResult& r) {
    if (r.error == 0 || r.error == ESRCH) {
      ++removed;
      return;
    }
    if (failed++ == 0) {
      first_error = absl::StrCat(keys[k].first.ToString(), " metric ", keys[k].second, ": ",
                                 ResultStatus(r).message());
    }
  };
  for (size_t k = 0; k < keys.size(); ++k) {
    batch.Begin();
    AppendDelRoute(batch.buffer(), batch.next_seq(), batch.flags(), keys[k].first, keys[k].second,
                   target_);
    batch.Appended(k);
    if (batch.size() >= options_.routes_per_send) (void)batch.Send(on_result);
  }
  (void)batch.Send(on_result);
  if (failed > 0) {
    return absl::InternalError(
        absl::StrCat("netlink FIB: ", std::string(why), ": ", failed, " of ", keys.size(),
                     " routes could not be deleted, the first: ", first_error));
  }
  return removed;
}

absl::StatusOr<size_t> NetlinkFibBackend::RemoveStaleRoutes() {
  if (!socket_ || stale_.empty()) return 0;
  std::vector<Key> keys(stale_.begin(), stale_.end());
  stale_.clear();
  absl::StatusOr<size_t> removed = DeleteKeys(keys, "removing stale routes");
  if (removed.ok()) {
    SLUICE_LOG(kInfo) << "netlink FIB: removed " << *removed
                      << " stale routes left by an earlier run";
  }
  return removed;
}

absl::Status NetlinkFibBackend::Shutdown() {
  if (!socket_) return absl::OkStatus();
  stale_.clear();
  absl::StatusOr<std::vector<KernelRoute>> routes = ReadKernelRoutes();
  if (!routes.ok()) return routes.status();
  std::vector<Key> keys;
  keys.reserve(routes->size());
  for (const KernelRoute& r : *routes) keys.push_back(Key{r.prefix, r.metric});
  absl::StatusOr<size_t> removed = DeleteKeys(keys, "shutdown");
  socket_.reset();
  if (!removed.ok()) return removed.status();
  return absl::OkStatus();
}

}  // namespace sluice::fea
