#include "tests/bgp/process_fake_rib.h"

#include <boost/asio/post.hpp>
#include <future>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "ipc/methods/rib.h"
#include "ipc/methods/rib_client.h"
#include "ipc/types_convert.h"

namespace sluice::bgp::testing {

namespace rib_v1 = ::sluice::rib::v1;
namespace rib_client_v1 = ::sluice::rib_client::v1;
using ::sluice::ipc::methods::rib::kAddRoutes;
using ::sluice::ipc::methods::rib::kAddRoutesPacked;
using ::sluice::ipc::methods::rib::kDeleteRoutes;
using ::sluice::ipc::methods::rib::kDeregisterInterest;
using ::sluice::ipc::methods::rib::kEndOfRib;
using ::sluice::ipc::methods::rib::kRedistSubscribe;
using ::sluice::ipc::methods::rib::kRegisterInterest;
using ::sluice::ipc::methods::rib::kRegisterProtocol;
using ::sluice::ipc::methods::rib_client::kRouteInfoInvalid;

namespace {

const ipc::Method<rib_v1::ListRoutesRequest, rib_v1::ListRoutesReply> kRibListRoutes{
    "rib/1.0/list_routes"};

}  // namespace

FakeRib::FakeRib(boost::asio::io_context& io, ipc::RouterOptions options, std::string instance)
    : router_(std::make_unique<ipc::XrlRouter>(io, "rib", std::move(instance), options)) {}

FakeRib::~FakeRib() = default;

absl::Status FakeRib::Start() {
  ipc::XrlRouter& r = *router_;
  RETURN_IF_ERROR(r.Handle(kRegisterProtocol,
                           [this](const rib_v1::RegisterProtocolRequest& q)
                               -> absl::StatusOr<rib_v1::RegisterProtocolReply> {
                             std::lock_guard lock(mu_);
                             if (FailLocked()) return absl::UnavailableError("lost by the test");
                             protocols_.insert(q.protocol());
                             rib_v1::RegisterProtocolReply reply;
                             if (q.resync()) {
                               std::set<net::Prefix>& stale = stale_[q.protocol()];
                               for (const auto& [p, route] : tables_[q.protocol()]) {
                                 stale.insert(p);
                               }
                               reply.set_stale_routes(static_cast<uint32_t>(stale.size()));
                             }
                             return reply;
                           }));
  RETURN_IF_ERROR(r.Handle(kRedistSubscribe,
                           [this](const rib_v1::RedistSubscribeRequest& q)
                               -> absl::StatusOr<rib_v1::RedistSubscribeReply> {
                             std::lock_guard lock(mu_);
                             if (FailLocked()) return absl::UnavailableError("lost by the test");
                             redist_.insert(q.family() + " " + q.protocol());
                             return rib_v1::RedistSubscribeReply();
                           }));
  RETURN_IF_ERROR(r.Handle(
      kEndOfRib, [this](const rib_v1::EndOfRibRequest& q) -> absl::StatusOr<rib_v1::EndOfRibReply> {
        std::lock_guard lock(mu_);
        ++end_of_ribs_;
        rib_v1::EndOfRibReply reply;
        auto& table = tables_[q.protocol()];
        for (const net::Prefix& p : stale_[q.protocol()]) {
          reply.set_swept(reply.swept() + static_cast<uint32_t>(table.erase(p)));
        }
        stale_.erase(q.protocol());
        return reply;
      }));
  RETURN_IF_ERROR(r.Handle(
      kAddRoutes, [this](const rib_v1::RoutesRequest& q) -> absl::StatusOr<rib_v1::RoutesReply> {
        std::lock_guard lock(mu_);
        if (FailLocked()) return absl::UnavailableError("lost by the test");
        ++add_calls_;
        auto& table = tables_[q.protocol()];
        for (int i = 0; i < q.routes_size(); ++i) {
          const rib_v1::RouteEntry& e = q.routes(i);
          absl::StatusOr<net::Prefix> p = ipc::FromProto(e.network());
          absl::StatusOr<net::IPAddress> nh = ipc::FromProto(e.nexthop());
          if (!p.ok() || !nh.ok()) {
            return absl::InvalidArgumentError(absl::StrCat("route ", i, " is malformed"));
          }
          table[*p] = Route{*nh, e.metric()};
          stale_[q.protocol()].erase(*p);
        }
        rib_v1::RoutesReply reply;
        reply.set_applied(uint32_t(q.routes_size()));
        return reply;
      }));
  RETURN_IF_ERROR(r.Handle(
      kAddRoutesPacked,
      [this](const rib_v1::AddRoutesPackedRequest& q) -> absl::StatusOr<rib_v1::RoutesReply> {
        std::lock_guard lock(mu_);
        if (FailLocked()) return absl::UnavailableError("lost by the test");
        ++add_calls_;
        const net::Family family = q.ipv6() ? net::Family::kIPv6 : net::Family::kIPv4;
        const int words = ipc::AddressWords(family);
        const int n = q.lengths_size();
        if (q.networks_size() != n * words || q.nexthops_size() != n * words ||
            q.metrics_size() != n) {
          return absl::InvalidArgumentError("columns of different lengths");
        }
        auto& table = tables_[q.protocol()];
        for (int i = 0; i < n; ++i) {
          const net::Prefix p(ipc::AddressFromWords(family, q.networks().data() + i * words),
                              static_cast<int>(q.lengths(i)));
          table[p] =
              Route{ipc::AddressFromWords(family, q.nexthops().data() + i * words), q.metrics(i)};
          stale_[q.protocol()].erase(p);
        }
        rib_v1::RoutesReply reply;
        reply.set_applied(static_cast<uint32_t>(n));
        return reply;
      }));
  RETURN_IF_ERROR(
      r.Handle(kDeleteRoutes,
               [this](const rib_v1::DeleteRoutesRequest& q) -> absl::StatusOr<rib_v1::RoutesReply> {
                 std::lock_guard lock(mu_);
                 if (FailLocked()) return absl::UnavailableError("lost by the test");
                 ++delete_calls_;
                 auto& table = tables_[q.protocol()];
                 rib_v1::RoutesReply reply;
                 for (const auto& n : q.networks()) {
                   absl::StatusOr<net::Prefix> p = ipc::FromProto(n);
                   if (!p.ok()) return p.status();
                   if (table.erase(*p) == 0) {
                     *reply.add_not_found() = n;
                   } else {
                     reply.set_applied(reply.applied() + 1);
                   }
                 }
                 return reply;
               }));
  RETURN_IF_ERROR(r.Handle(kRegisterInterest,
                           [this](const rib_v1::RegisterInterestRequest& q)
                               -> absl::StatusOr<rib_v1::RegisterInterestReply> {
                             ASSIGN_OR_RETURN(net::IPAddress a, ipc::FromProto(q.address()));
                             std::lock_guard lock(mu_);
                             ++interest_calls_;
                             interests_.push_back(a);
                             bool resolvable = true;
                             uint32_t metric = 1;
                             if (auto it = answers_.find(a); it != answers_.end()) {
                               resolvable = it->second.first;
                               metric = it->second.second;
                             }
                             rib_v1::RegisterInterestReply reply;
                             reply.set_resolvable(resolvable);
                             reply.set_metric(metric);
                             ipc::ToProto(net::Prefix(a, a.bits()), reply.mutable_valid_subnet());
                             return reply;
                           }));
  RETURN_IF_ERROR(r.Handle(kDeregisterInterest,
                           [](const rib_v1::DeregisterInterestRequest&)
                               -> absl::StatusOr<rib_v1::DeregisterInterestReply> {
                             return rib_v1::DeregisterInterestReply();
                           }));
  RETURN_IF_ERROR(r.Handle(
      kRibListRoutes,
      [this](const rib_v1::ListRoutesRequest& q) -> absl::StatusOr<rib_v1::ListRoutesReply> {
        std::lock_guard lock(mu_);
        rib_v1::ListRoutesReply reply;
        const uint32_t max = q.max_routes() == 0 ? 1000 : q.max_routes();
        std::optional<net::Prefix> after;
        if (q.has_start_after()) {
          ASSIGN_OR_RETURN(after, ipc::FromProto(q.start_after()));
        }
        for (const auto& [protocol, table] : tables_) {
          if (!q.protocol().empty() && protocol != q.protocol()) continue;
          auto it = after ? table.upper_bound(*after) : table.begin();
          for (; it != table.end(); ++it) {
            if (q.family() == "ipv6" ? !it->first.is_v6() : !it->first.is_v4()) continue;
            if (uint32_t(reply.routes_size()) == max) {
              reply.set_more(true);
              break;
            }
            rib_v1::RibRoute* out = reply.add_routes();
            ipc::ToProto(it->first, out->mutable_network());
            ipc::ToProto(it->second.nexthop, out->mutable_nexthop());
            out->set_metric(it->second.metric);
            out->set_protocol(protocol);
          }
        }
        return reply;
      }));
  return r.Start();
}

size_t FakeRib::size(const std::string& protocol) const {
  std::lock_guard lock(mu_);
  auto it = tables_.find(protocol);
  return it == tables_.end() ? 0 : it->second.size();
}

std::map<net::Prefix, FakeRib::Route> FakeRib::routes(const std::string& protocol) const {
  std::lock_guard lock(mu_);
  auto it = tables_.find(protocol);
  return it == tables_.end() ? std::map<net::Prefix, Route>() : it->second;
}

std::set<std::string> FakeRib::protocols() const {
  std::lock_guard lock(mu_);
  return protocols_;
}
uint64_t FakeRib::add_calls() const {
  std::lock_guard lock(mu_);
  return add_calls_;
}
uint64_t FakeRib::delete_calls() const {
  std::lock_guard lock(mu_);
  return delete_calls_;
}
uint64_t FakeRib::interest_calls() const {
  std::lock_guard lock(mu_);
  return interest_calls_;
}
uint64_t FakeRib::end_of_ribs() const {
  std::lock_guard lock(mu_);
  return end_of_ribs_;
}
std::vector<net::IPAddress> FakeRib::interests() const {
  std::lock_guard lock(mu_);
  return interests_;
}

void FakeRib::FailNextCalls(int n) {
  std::lock_guard lock(mu_);
  fail_next_ = n;
}

std::set<std::string> FakeRib::redist_subscriptions() const {
  std::lock_guard lock(mu_);
  return redist_;
}

bool FakeRib::FailLocked() {
  if (fail_next_ == 0) return false;
  --fail_next_;
  return true;
}

void FakeRib::SetResolvable(const net::IPAddress& address, bool resolvable, uint32_t metric) {
  std::lock_guard lock(mu_);
  answers_[address] = {resolvable, metric};
}

void FakeRib::Invalidate(const std::string& client, const net::IPAddress& address) {
  rib_client_v1::RouteInfoInvalidRequest request;
  ipc::ToProto(net::Prefix(address, address.bits()), request.mutable_valid_subnet());
  router_->Call(client, kRouteInfoInvalid, std::move(request),
                [](absl::StatusOr<rib_client_v1::RouteInfoInvalidReply>) {});
}

// ---- FakeRibThread ----

FakeRibThread::FakeRibThread(ipc::RouterOptions options, std::string instance)
    : guard_(boost::asio::make_work_guard(io_)) {
  thread_ = std::thread([this] { io_.run(); });
  std::promise<absl::Status> started;
  boost::asio::post(io_, [&] {
    rib_ = std::make_unique<FakeRib>(io_, options, instance);
    started.set_value(rib_->Start());
  });
  status_ = started.get_future().get();
}

FakeRibThread::~FakeRibThread() { Stop(); }

void FakeRibThread::Stop() {
  if (!thread_.joinable()) return;
  std::promise<void> done;
  boost::asio::post(io_, [&] {
    rib_.reset();
    done.set_value();
  });
  done.get_future().get();
  guard_.reset();
  io_.stop();
  thread_.join();
}

}  // namespace sluice::bgp::testing
