#include "bgp/process/rib_ipc_client.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/lost_call.h"
#include "ipc/methods/rib.h"
#include "ipc/types_convert.h"
#include "stage/route_arrival.h"

namespace sluice::bgp::process {

namespace {

namespace rib_v1 = ::sluice::rib::v1;

using ipc::methods::rib::kAddRoutes;
using ipc::methods::rib::kAddRoutesPacked;
using ipc::methods::rib::kDeleteRoutes;
using ipc::methods::rib::kDeregisterInterest;
using ipc::methods::rib::kDeregisterProtocol;
using ipc::methods::rib::kEndOfRib;
using ipc::methods::rib::kRedistSubscribe;
using ipc::methods::rib::kRedistUnsubscribe;
using ipc::methods::rib::kRegisterInterest;
using ipc::methods::rib::kRegisterProtocol;

const char* ProtocolName(bool ibgp) { return ibgp ? "ibgp" : "ebgp"; }

// Whether adds batch[begin, end) fit add_routes_packed, whose columns hold one family: every
// prefix and nexthop is of `family`.
bool Packable(net::Family family, const std::vector<RibRouteChange>& batch, size_t begin,
              size_t end) {
  for (size_t j = begin; j < end; ++j) {
    if (batch[j].prefix.family() != family || batch[j].nexthop.family() != family) return false;
  }
  return true;
}

// Adds batch[begin, end) as add_routes_packed: nothing per route to allocate on either side.
rib_v1::AddRoutesPackedRequest PackedAdds(net::Family family, const char* protocol, int64_t arrival,
                                          const std::vector<RibRouteChange>& batch, size_t begin,
                                          size_t end) {
  rib_v1::AddRoutesPackedRequest request;
  request.set_protocol(protocol);
  request.set_ipv6(family == net::Family::kIPv6);
  request.set_arrival_ns(static_cast<uint64_t>(arrival));
  const int n = static_cast<int>(end - begin);
  const int words = ipc::AddressWords(family);
  request.mutable_lengths()->Reserve(n);
  request.mutable_networks()->Reserve(n * words);
  request.mutable_nexthops()->Reserve(n * words);
  request.mutable_metrics()->Reserve(n);
  for (size_t j = begin; j < end; ++j) {
    request.add_lengths(static_cast<uint32_t>(batch[j].prefix.length()));
    ipc::AppendWords(batch[j].prefix.address(), request.mutable_networks());
    ipc::AppendWords(batch[j].nexthop, request.mutable_nexthops());
    request.add_metrics(batch[j].med);
  }
  return request;
}

// Adds batch[begin, end) as add_routes, one message per route (any mix of families).
rib_v1::RoutesRequest Adds(const char* protocol, int64_t arrival,
                           const std::vector<RibRouteChange>& batch, size_t begin, size_t end) {
  rib_v1::RoutesRequest request;
  request.set_protocol(protocol);
  request.set_arrival_ns(static_cast<uint64_t>(arrival));
  request.mutable_routes()->Reserve(static_cast<int>(end - begin));
  for (size_t j = begin; j < end; ++j) {
    rib_v1::RouteEntry* e = request.add_routes();
    ipc::ToProto(batch[j].prefix, e->mutable_network());
    ipc::ToProto(batch[j].nexthop, e->mutable_nexthop());
    e->set_metric(batch[j].med);
  }
  return request;
}

// The calls of one batch: `done` runs when the last answers, with the first error.
struct BatchState {
  size_t pending = 0;
  absl::Status status;
  RibRouteClient::Done done;
  void Answer(absl::Status s) {
    if (!s.ok() && status.ok()) status = std::move(s);
    if (--pending == 0 && done) std::exchange(done, nullptr)(status);
  }
};

}  // namespace

RibIpcClient::RibIpcClient(boost::asio::io_context& io, ipc::XrlRouter* router,
                           std::string rib_target, std::string client_name)
    : io_(io),
      router_(router),
      rib_target_(std::move(rib_target)),
      client_name_(std::move(client_name)) {}

RibIpcClient::~RibIpcClient() { *alive_ = false; }

void RibIpcClient::Failed(uint64_t session, const absl::Status& status) {
  ++counters_.failed_calls;
  if (IsLostCall(status) && session == session_ && !deregistered_ && on_lost_call_) on_lost_call_();
}

void RibIpcClient::RegisterInterest(const net::IPAddress& nexthop, Answer answer) {
  ++counters_.interest_calls;
  rib_v1::RegisterInterestRequest request;
  request.set_client(client_name_);
  ipc::ToProto(nexthop, request.mutable_address());
  router_->Call(rib_target_, kRegisterInterest, std::move(request),
                [this, alive = std::weak_ptr<bool>(alive_), nexthop, session = session_,
                 answer = std::move(answer)](absl::StatusOr<rib_v1::RegisterInterestReply> reply) {
                  auto live = alive.lock();
                  if (!live || !*live) return;
                  if (!reply.ok()) {
                    Failed(session, reply.status());
                    return answer(reply.status());
                  }
                  NexthopInfo info;
                  info.resolvable = reply->resolvable();
                  info.metric = reply->metric();
                  info.valid_subnet = net::Prefix(nexthop, nexthop.bits());
                  if (reply->has_valid_subnet()) {
                    absl::StatusOr<net::Prefix> subnet = ipc::FromProto(reply->valid_subnet());
                    if (subnet.ok() && subnet->Contains(nexthop)) {
                      info.valid_subnet = *subnet;
                    } else {
                      SLUICE_LOG(kWarning)
                          << "RIB: register_interest " << nexthop.ToString()
                          << " answered a valid subnet that does not hold it; using "
                          << info.valid_subnet.ToString();
                    }
                  }
                  answer(info);
                });
}

void RibIpcClient::DeregisterInterest(const net::Prefix& valid_subnet) {
  ++counters_.interest_calls;
  rib_v1::DeregisterInterestRequest request;
  request.set_client(client_name_);
  ipc::ToProto(valid_subnet, request.mutable_valid_subnet());
  router_->Call(rib_target_, kDeregisterInterest, std::move(request),
                [](absl::StatusOr<rib_v1::DeregisterInterestReply>) {});
}

void RibIpcClient::SendRoutes(net::Family family, std::vector<RibRouteChange> batch, Done done) {
  if (batch.empty() || deregistered_) {  // deregistered: the RIB dropped our routes already
    boost::asio::post(io_, [done = std::move(done)] { done(absl::OkStatus()); });
    return;
  }
  auto state = std::make_shared<BatchState>();
  state->done = std::move(done);
  state->pending = 1;  // held until every call is made
  auto answer = [this, alive = std::weak_ptr<bool>(alive_), state,
                 session = session_](absl::Status s) {
    auto live = alive.lock();
    if (!live || !*live) return;
    if (!s.ok()) Failed(session, s);
    state->Answer(std::move(s));
  };
  size_t i = 0;
  while (i < batch.size()) {
    const RibRouteChange::Op op = batch[i].op;
    const bool ibgp = batch[i].ibgp;
    size_t end = i;
    int64_t arrival = 0;  // the oldest of the call's changes
    while (end < batch.size() && batch[end].op == op && batch[end].ibgp == ibgp) {
      arrival = stage::OldestArrival(arrival, batch[end].arrival_ns);
      ++end;
    }
    ++state->pending;
    ++counters_.route_calls;
    counters_.routes_sent += end - i;
    if (op == RibRouteChange::Op::kAdd && Packable(family, batch, i, end)) {
      router_->Call(rib_target_, kAddRoutesPacked,
                    PackedAdds(family, ProtocolName(ibgp), arrival, batch, i, end),
                    [answer](absl::StatusOr<rib_v1::RoutesReply> r) { answer(r.status()); });
    } else if (op == RibRouteChange::Op::kAdd) {
      router_->Call(rib_target_, kAddRoutes, Adds(ProtocolName(ibgp), arrival, batch, i, end),
                    [answer](absl::StatusOr<rib_v1::RoutesReply> r) { answer(r.status()); });
    } else {
      rib_v1::DeleteRoutesRequest request;
      request.set_protocol(ProtocolName(ibgp));
      request.set_arrival_ns(static_cast<uint64_t>(arrival));
      request.mutable_networks()->Reserve(int(end - i));
      for (size_t j = i; j < end; ++j) ipc::ToProto(batch[j].prefix, request.add_networks());
      router_->Call(rib_target_, kDeleteRoutes, std::move(request),
                    [answer](absl::StatusOr<rib_v1::RoutesReply> r) { answer(r.status()); });
    }
    i = end;
  }
  state->Answer(absl::OkStatus());  // calls' callbacks never run inside Call()
}

void RibIpcClient::RegisterProtocols(uint32_t restart_time_s, bool resync,
                                     std::function<void(uint32_t)> registered) {
  deregistered_ = false;
  struct Pending {
    int answers = 2;
    uint32_t stale = 0;
    bool lost = false;
    std::function<void(uint32_t)> registered;
  };
  auto pending = std::make_shared<Pending>();
  pending->registered = std::move(registered);
  for (const bool ibgp : {false, true}) {
    rib_v1::RegisterProtocolRequest request;
    request.set_protocol(ProtocolName(ibgp));
    request.set_target(client_name_);
    request.set_restart_time(restart_time_s);
    request.set_resync(resync);
    request.set_incarnation(router_->incarnation());
    router_->Call(
        rib_target_, kRegisterProtocol, std::move(request),
        [this, protocol = std::string(ProtocolName(ibgp)), pending, session = session_,
         alive = std::weak_ptr<bool>(alive_)](absl::StatusOr<rib_v1::RegisterProtocolReply> r) {
          auto live = alive.lock();
          if (!r.ok()) {
            SLUICE_LOG(kWarning) << "RIB: register_protocol " << protocol << ": "
                                 << r.status().ToString();
            pending->lost = pending->lost || IsLostCall(r.status());
            if (live && *live) Failed(session, r.status());
          } else {
            pending->stale += r->stale_routes();
          }
          if (--pending->answers == 0 && live && *live && pending->registered && !pending->lost) {
            pending->registered(pending->stale);
          }
        });
  }
}

void RibIpcClient::EndOfRib() {
  if (deregistered_) return;
  for (const bool ibgp : {false, true}) {
    rib_v1::EndOfRibRequest request;
    request.set_protocol(ProtocolName(ibgp));
    router_->Call(rib_target_, kEndOfRib, std::move(request),
                  [this, protocol = std::string(ProtocolName(ibgp)), session = session_,
                   alive = std::weak_ptr<bool>(alive_)](absl::StatusOr<rib_v1::EndOfRibReply> r) {
                    auto live = alive.lock();
                    if (!r.ok()) {
                      SLUICE_LOG(kWarning)
                          << "RIB: end_of_rib " << protocol << ": " << r.status().ToString();
                      if (live && *live) Failed(session, r.status());
                    } else if (r->swept() > 0) {
                      SLUICE_LOG(kInfo) << "RIB: end_of_rib " << protocol << ": " << r->swept()
                                        << " stale routes withdrawn";
                    }
                  });
  }
}

void RibIpcClient::DeregisterProtocols() {
  deregistered_ = true;
  for (const bool ibgp : {false, true}) {
    rib_v1::DeregisterProtocolRequest request;
    request.set_protocol(ProtocolName(ibgp));
    router_->Call(rib_target_, kDeregisterProtocol, std::move(request),
                  [protocol = std::string(ProtocolName(ibgp))](
                      absl::StatusOr<rib_v1::DeregisterProtocolReply> r) {
                    if (!r.ok()) {
                      SLUICE_LOG(kWarning) << "RIB: deregister_protocol " << protocol << ": "
                                           << r.status().ToString();
                    }
                  });
  }
}

void RibIpcClient::RedistSubscribe(net::Family family, const std::string& protocol,
                                   bool subscribe) {
  rib_v1::RedistSubscribeRequest request;
  request.set_target(client_name_);
  request.set_family(family == net::Family::kIPv6 ? "ipv6" : "ipv4");
  request.set_protocol(protocol);
  // A lost subscribe is repaired by the re-synchronisation, which subscribes again; a lost
  // unsubscribe leaves a stream whose changes BgpRedist ignores.
  auto done = [this, alive = std::weak_ptr<bool>(alive_), protocol, subscribe,
               session = session_](absl::StatusOr<rib_v1::RedistSubscribeReply> r) {
    if (r.ok() || alive.expired()) return;
    SLUICE_LOG(kWarning) << "RIB: redist_" << (subscribe ? "subscribe " : "unsubscribe ")
                         << protocol << ": " << r.status().ToString();
    if (subscribe) Failed(session, r.status());
  };
  router_->Call(rib_target_, subscribe ? kRedistSubscribe : kRedistUnsubscribe, std::move(request),
                std::move(done));
}

}  // namespace sluice::bgp::process
