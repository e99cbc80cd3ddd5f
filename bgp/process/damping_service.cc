#include "bgp/process/damping_service.h"

#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "ipc/methods/bgp.h"
#include "ipc/types_convert.h"

namespace sluice::bgp::process {

namespace {

using ipc::methods::bgp::kGetDamping;
using ipc::methods::bgp::kListDamped;
using ipc::methods::bgp::kSetDamping;
using ipc::methods::bgp::kSetPeerDamping;

absl::StatusOr<net::IPAddress> PeerAddress(const char* method, const char* field,
                                           const types::v1::IPAddress& a) {
  absl::StatusOr<net::IPAddress> r = ipc::FromProto(a);
  if (!r.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: %s: %s", method, field, r.status().message()));
  }
  return r;
}

}  // namespace

absl::Status ServeDamping(ipc::XrlRouter& router, DampingControl& damping) {
  RETURN_IF_ERROR(router.Handle(
      kSetDamping,
      [&damping](const v1::SetDampingRequest& r) -> absl::StatusOr<v1::SetDampingReply> {
        DampingParams p;
        if (r.half_life_s() != 0) p.half_life = absl::Seconds(r.half_life_s());
        if (r.reuse() != 0) p.reuse = r.reuse();
        if (r.suppress() != 0) p.suppress = r.suppress();
        if (r.max_suppress_s() != 0) p.max_suppress = absl::Seconds(r.max_suppress_s());
        absl::Status s = damping.SetParams(p);
        if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat("set_damping: ", s.message()));
        return v1::SetDampingReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      kGetDamping, [&damping](const v1::GetDampingRequest&) -> absl::StatusOr<v1::GetDampingReply> {
        v1::GetDampingReply reply;
        const DampingParams& p = damping.params();
        auto* out = reply.mutable_parameters();
        out->set_half_life_s(uint32_t(absl::ToInt64Seconds(p.half_life)));
        out->set_reuse(p.reuse);
        out->set_suppress(p.suppress);
        out->set_max_suppress_s(uint32_t(absl::ToInt64Seconds(p.max_suppress)));
        for (const net::IPAddress& a : damping.DampedPeers()) {
          ipc::ToProto(a, reply.add_damped_peers());
        }
        return reply;
      }));
  RETURN_IF_ERROR(router.Handle(
      kSetPeerDamping,
      [&damping](const v1::SetPeerDampingRequest& r) -> absl::StatusOr<v1::SetPeerDampingReply> {
        if (!r.has_address()) {
          return absl::InvalidArgumentError("set_peer_damping: address is required");
        }
        ASSIGN_OR_RETURN(net::IPAddress a, PeerAddress("set_peer_damping", "address", r.address()));
        RETURN_IF_ERROR(r.enabled() ? damping.Enable(a) : damping.Disable(a));
        return v1::SetPeerDampingReply();
      }));
  RETURN_IF_ERROR(router.HandleAsync(
      kListDamped,
      [&damping](const v1::ListDampedRequest& r, ipc::Responder<v1::ListDampedReply> responder) {
        std::optional<net::IPAddress> peer;
        if (r.has_peer()) {
          absl::StatusOr<net::IPAddress> a = PeerAddress("list_damped", "peer", r.peer());
          if (!a.ok()) return responder.Fail(a.status());
          peer = *a;
        }
        auto shared = std::make_shared<ipc::Responder<v1::ListDampedReply>>(std::move(responder));
        damping.ListAsync(r.suppressed_only(), peer, [shared](std::vector<PeerDampedPrefix> list) {
          for (const PeerDampedPrefix& d : list) {
            v1::DampedRoute* out = shared->reply()->add_routes();
            ipc::ToProto(d.peer, out->mutable_peer());
            ipc::ToProto(d.damped.prefix, out->mutable_prefix());
            out->set_penalty(uint32_t(std::lround(d.damped.penalty)));
            out->set_suppressed(d.damped.suppressed);
            out->set_reuse_in_s(uint32_t(std::ceil(absl::ToDoubleSeconds(d.damped.reuse_in))));
            out->set_has_route(d.damped.has_route);
          }
          shared->Finish(absl::OkStatus());
        });
      }));
  return absl::OkStatus();
}

}  // namespace sluice::bgp::process
