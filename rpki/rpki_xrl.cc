#include "rpki/rpki_xrl.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "ipc/caller.h"
#include "ipc/method.h"
#include "ipc/methods/rpki.h"
#include "ipc/proto/rpki.pb.h"
#include "ipc/types_convert.h"

namespace sluice::rpki {
namespace {

namespace v1 = ::sluice::rpki::v1;

using ipc::methods::rpki::kAddCache;
using ipc::methods::rpki::kDeleteCache;
using ipc::methods::rpki::kGetStatus;
using ipc::methods::rpki::kListVrps;
using ipc::methods::rpki::kSubscribe;

constexpr uint16_t kRtrPort = 323;  // RFC 8210 §9, plain TCP

absl::StatusOr<uint16_t> Port(uint32_t port) {
  if (port > 65535) return absl::InvalidArgumentError(absl::StrCat("port: ", port, " > 65535"));
  return port == 0 ? kRtrPort : static_cast<uint16_t>(port);
}

absl::StatusOr<CacheConfig> ToCacheConfig(const v1::AddCacheRequest& r) {
  CacheConfig c;
  auto address = ipc::FromProto(r.address());
  if (!address.ok()) return absl::InvalidArgumentError("address: missing or malformed");
  c.address = *address;
  ASSIGN_OR_RETURN(c.port, Port(r.port()));
  if (r.preference() > 255) {
    return absl::InvalidArgumentError(absl::StrCat("preference: ", r.preference(), " > 255"));
  }
  c.preference = static_cast<uint8_t>(r.preference());
  if (r.refresh() != 0) c.intervals.refresh = r.refresh();
  if (r.retry() != 0) c.intervals.retry = r.retry();
  if (r.expire() != 0) c.intervals.expire = r.expire();
  if (!rtr::IntervalsValid(c.intervals)) {
    return absl::InvalidArgumentError(
        absl::StrCat("refresh/retry/expire: ", c.intervals.refresh, "/", c.intervals.retry, "/",
                     c.intervals.expire,
                     " s outside RFC 8210 §6 (refresh 1..86400, retry 1..7200, expire "
                     "600..172800 and above both)"));
  }
  return c;
}

void FillStatus(const RtrConnection& c, v1::CacheStatus* s) {
  const RtrSession& session = c.session();
  ipc::ToProto(c.config().address, s->mutable_address());
  s->set_port(c.config().port);
  s->set_preference(c.config().preference);
  s->set_state(c.running() ? RtrSession::StateName(session.state()) : "stopped");
  s->set_connected(c.connected());
  s->set_version(session.version());
  s->set_has_session(session.session_id().has_value());
  s->set_session_id(session.session_id().value_or(0));
  s->set_serial(session.serial().value_or(0));
  s->set_refresh(session.intervals().refresh);
  s->set_retry(session.intervals().retry);
  s->set_expire(session.intervals().expire);
  const auto last = session.last_sync();
  s->set_seconds_since_sync(
      last ? std::chrono::duration<double>(RtrSession::Clock::now() - *last).count() : -1);
  s->set_connects(c.connects());
  s->set_expiries(session.expiries());
  s->set_last_error(c.last_error());
}

absl::StatusOr<v1::ListVrpsReply> ListVrps(const v1::ListVrpsRequest& r, const VrpStore& store) {
  std::optional<net::Prefix> within, covering;
  if (r.has_within()) {
    ASSIGN_OR_RETURN(within, ipc::FromProto(r.within()));
  }
  if (r.has_covering()) {
    ASSIGN_OR_RETURN(covering, ipc::FromProto(r.covering()));
  }
  std::optional<Vrp> after;
  if (r.has_start_after()) {
    ASSIGN_OR_RETURN(net::Prefix p, ipc::FromProto(r.start_after().prefix()));
    after = Vrp{p, static_cast<uint8_t>(std::min(r.start_after().max_length(), 255u)),
                r.start_after().asn()};
  }
  const size_t max = r.max_vrps() == 0 ? 10000 : std::min<uint32_t>(r.max_vrps(), 100000);
  v1::ListVrpsReply reply;
  for (const Vrp& vrp : store.Snapshot()) {
    if (after && !(*after < vrp)) continue;
    if (within && !within->Contains(vrp.prefix)) continue;
    if (covering && !vrp.prefix.Contains(*covering)) continue;
    if (static_cast<size_t>(reply.vrps_size()) == max) {
      reply.set_more(true);
      break;
    }
    v1::Vrp* out = reply.add_vrps();
    ipc::ToProto(vrp.prefix, out->mutable_prefix());
    out->set_max_length(vrp.max_length);
    out->set_asn(vrp.asn);
  }
  return reply;
}

}  // namespace

absl::Status ServeRpki(ipc::XrlRouter& router, CacheSet& caches, VrpStore& store,
                       VrpPublisher& publisher) {
  RETURN_IF_ERROR(router.Handle(
      kAddCache, [&caches](const v1::AddCacheRequest& r) -> absl::StatusOr<v1::AddCacheReply> {
        ASSIGN_OR_RETURN(CacheConfig config, ToCacheConfig(r));
        RETURN_IF_ERROR(caches.Add(config));
        return v1::AddCacheReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      kDeleteCache,
      [&caches](const v1::DeleteCacheRequest& r) -> absl::StatusOr<v1::DeleteCacheReply> {
        auto address = ipc::FromProto(r.address());
        if (!address.ok()) return absl::InvalidArgumentError("address: missing or malformed");
        ASSIGN_OR_RETURN(uint16_t port, Port(r.port()));
        RETURN_IF_ERROR(caches.Remove(*address, port));
        return v1::DeleteCacheReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      kGetStatus, [&](const v1::GetStatusRequest&) -> absl::StatusOr<v1::GetStatusReply> {
        v1::GetStatusReply reply;
        for (const auto& c : caches.caches()) {
          v1::CacheStatus* s = reply.add_caches();
          FillStatus(*c, s);
          s->set_vrps(store.CacheSize(c->id()));
        }
        reply.set_vrps_ipv4(store.size_v4());
        reply.set_vrps_ipv6(store.size_v6());
        reply.set_subscribers(publisher.subscribers());
        reply.set_subscriber_redumps(publisher.redumps());
        return reply;
      }));
  RETURN_IF_ERROR(router.Handle(
      kListVrps, [&store](const v1::ListVrpsRequest& r) { return ListVrps(r, store); }));
  return router.Handle(
      kSubscribe,
      [&publisher](const v1::SubscribeRequest&,
                   const ipc::Caller& caller) -> absl::StatusOr<v1::SubscribeReply> {
        ASSIGN_OR_RETURN(std::string instance, ipc::CallerAsTarget("subscribe", "", caller));
        publisher.Subscribe(instance);
        return v1::SubscribeReply();
      });
}

}  // namespace sluice::rpki
