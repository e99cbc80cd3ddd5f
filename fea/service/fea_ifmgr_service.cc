#include "fea/service/fea_ifmgr_service.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "fea/service/fib_convert.h"
#include "ipc/methods/fea_ifmgr.h"
#include "ipc/methods/fea_ifmgr_client.h"
#include "ipc/proto/fea_ifmgr.pb.h"
#include "ipc/types_convert.h"

namespace sluice::fea {
namespace {

namespace pb = fea_ifmgr::v1;
namespace cpb = fea_ifmgr_client::v1;

using ipc::methods::fea_ifmgr::kAddAddress;
using ipc::methods::fea_ifmgr::kAddInterface;
using ipc::methods::fea_ifmgr::kGetInterface;
using ipc::methods::fea_ifmgr::kListInterfaces;
using ipc::methods::fea_ifmgr::kRemoveAddress;
using ipc::methods::fea_ifmgr::kRemoveInterface;
using ipc::methods::fea_ifmgr::kSetEnabled;
using ipc::methods::fea_ifmgr::kSetMtu;
using ipc::methods::fea_ifmgr::kSubscribe;
using ipc::methods::fea_ifmgr::kUnsubscribe;
using ipc::methods::fea_ifmgr_client::kInterfaceEvents;

}  // namespace

FeaIfmgrService::FeaIfmgrService(boost::asio::io_context& io, ipc::XrlRouter& router, IfMgr& ifmgr,
                                 DummyIfMgr* dummy)
    : io_(io), router_(router), ifmgr_(ifmgr), dummy_(dummy) {}

FeaIfmgrService::~FeaIfmgrService() {
  if (watcher_ != 0) ifmgr_.RemoveWatcher(watcher_);
}

std::string FeaIfmgrService::Describe() const {
  return absl::StrCat("fea_ifmgr/1.0: ", std::string(ifmgr_.backend_name()), " backend, ",
                      ifmgr_.tree().size(), " interfaces, ", subscribers_.size(), " subscribers, ",
                      events_sent_, " events sent, ", redumps(), " dumps sent again");
}

absl::StatusOr<DummyIfMgr*> FeaIfmgrService::Dummy() const {
  if (dummy_ == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("the ", std::string(ifmgr_.backend_name()),
                     " backend follows the kernel's interfaces: configure them with ip(8)"));
  }
  return dummy_;
}

void FeaIfmgrService::OnEvent(const InterfaceEvent& event) {
  if (subscribers_.empty()) return;
  EventToProto(event, pending_.add_events());
  if (flush_posted_) return;
  flush_posted_ = true;
  boost::asio::post(io_, [this, weak = std::weak_ptr<bool>(alive_)] {
    if (weak.lock()) Flush();
  });
}

void FeaIfmgrService::Flush() {
  flush_posted_ = false;
  if (pending_.events_size() == 0) return;
  cpb::InterfaceEventsRequest request;
  request.Swap(&pending_);
  std::vector<std::string> targets;  // waiting for a dump: it carries these events
  for (const auto& [target, subscriber] : subscribers_) {
    if (!subscriber->redump.pending()) targets.push_back(target);
  }
  for (const std::string& target : targets) Send(target, request);
}

void FeaIfmgrService::Send(const std::string& target, cpb::InterfaceEventsRequest request) {
  auto it = subscribers_.find(target);
  if (it == subscribers_.end()) return;  // dropped by a failure answered at once
  events_sent_ += request.events_size();
  router_.Call(target, kInterfaceEvents, std::move(request),
               [this, target, dump = it->second->redump.dump(), weak = std::weak_ptr<bool>(alive_)](
                   absl::StatusOr<cpb::InterfaceEventsReply> reply) {
                 if (!reply.ok() && weak.lock()) Failed(target, dump, reply.status());
               });
}

void FeaIfmgrService::Failed(const std::string& target, uint64_t dump, const absl::Status& status) {
  auto it = subscribers_.find(target);
  if (it == subscribers_.end()) return;
  if (it->second->redump.Failed(dump, status) == ipc::Redump::Outcome::kForget) Drop(target);
}

void FeaIfmgrService::SendDump(const std::string& target) {
  auto it = subscribers_.find(target);
  if (it == subscribers_.end()) return;
  it->second->redump.Sending();
  cpb::InterfaceEventsRequest dump;
  dump.add_events()->set_kind(cpb::InterfaceEvent::SYNC_START);
  for (const Interface* i : ifmgr_.tree().interfaces()) {
    cpb::InterfaceEvent* e = dump.add_events();
    e->set_kind(cpb::InterfaceEvent::INTERFACE_ADDED);
    InterfaceToProto(*i, /*with_addresses=*/false, e->mutable_interface());
    for (const InterfaceAddress& a : i->addresses) {
      cpb::InterfaceEvent* ae = dump.add_events();
      ae->set_kind(cpb::InterfaceEvent::ADDRESS_ADDED);
      InterfaceToProto(*i, /*with_addresses=*/false, ae->mutable_interface());
      AddressToProto(a, ae->mutable_address());
    }
  }
  dump.add_events()->set_kind(cpb::InterfaceEvent::SYNC_DONE);
  Send(target, std::move(dump));
}

uint64_t FeaIfmgrService::redumps() const {
  uint64_t n = 0;
  for (const auto& [target, subscriber] : subscribers_) n += subscriber->redump.redumps();
  return n;
}

bool FeaIfmgrService::Drop(const std::string& target) {
  auto it = subscribers_.find(target);
  if (it == subscribers_.end()) return false;
  router_.Unwatch(it->second->watch);
  subscribers_.erase(it);
  return true;
}

absl::Status FeaIfmgrService::Register() {
  watcher_ = ifmgr_.AddWatcher([this](const InterfaceEvent& e) { OnEvent(e); });

  RETURN_IF_ERROR(router_.Handle(
      kListInterfaces,
      [this](const pb::ListInterfacesRequest&) -> absl::StatusOr<pb::ListInterfacesReply> {
        pb::ListInterfacesReply reply;
        for (const Interface* i : ifmgr_.tree().interfaces()) {
          InterfaceToProto(*i, /*with_addresses=*/true, reply.add_interfaces());
        }
        return reply;
      }));
  RETURN_IF_ERROR(router_.Handle(
      kGetInterface,
      [this](const pb::GetInterfaceRequest& r) -> absl::StatusOr<pb::GetInterfaceReply> {
        const Interface* i = ifmgr_.tree().FindByName(r.ifname());
        if (i == nullptr) {
          return absl::NotFoundError(absl::StrCat("no interface \"", r.ifname(), "\""));
        }
        pb::GetInterfaceReply reply;
        InterfaceToProto(*i, /*with_addresses=*/true, reply.mutable_interface());
        return reply;
      }));

  // --- configuration (dummy backend) -------------------------------------------------------
  RETURN_IF_ERROR(router_.Handle(
      kAddInterface,
      [this](const pb::AddInterfaceRequest& r) -> absl::StatusOr<pb::AddInterfaceReply> {
        ASSIGN_OR_RETURN(DummyIfMgr * dummy, Dummy());
        DummyInterfaceConfig config;
        config.name = r.ifname();
        if (r.mtu() != 0) config.mtu = r.mtu();
        if (r.has_mac()) {
          std::array<uint8_t, 6> octets;
          for (int k = 0; k < 6; ++k) {
            octets[k] = static_cast<uint8_t>(r.mac().address() >> (8 * (5 - k)));
          }
          config.mac = MacAddress(octets);
        }
        RETURN_IF_ERROR(dummy->AddInterface(config).status());
        return pb::AddInterfaceReply();
      }));
  RETURN_IF_ERROR(router_.Handle(
      kRemoveInterface,
      [this](const pb::RemoveInterfaceRequest& r) -> absl::StatusOr<pb::RemoveInterfaceReply> {
        ASSIGN_OR_RETURN(DummyIfMgr * dummy, Dummy());
        RETURN_IF_ERROR(dummy->RemoveInterface(r.ifname()));
        return pb::RemoveInterfaceReply();
      }));
  RETURN_IF_ERROR(router_.Handle(
      kSetEnabled, [this](const pb::SetEnabledRequest& r) -> absl::StatusOr<pb::SetEnabledReply> {
        ASSIGN_OR_RETURN(DummyIfMgr * dummy, Dummy());
        RETURN_IF_ERROR(dummy->SetEnabled(r.ifname(), r.enabled()));
        return pb::SetEnabledReply();
      }));
  RETURN_IF_ERROR(router_.Handle(
      kSetMtu, [this](const pb::SetMtuRequest& r) -> absl::StatusOr<pb::SetMtuReply> {
        ASSIGN_OR_RETURN(DummyIfMgr * dummy, Dummy());
        RETURN_IF_ERROR(dummy->SetMtu(r.ifname(), r.mtu()));
        return pb::SetMtuReply();
      }));
  RETURN_IF_ERROR(router_.Handle(
      kAddAddress, [this](const pb::AddAddressRequest& r) -> absl::StatusOr<pb::AddAddressReply> {
        ASSIGN_OR_RETURN(DummyIfMgr * dummy, Dummy());
        ASSIGN_OR_RETURN(net::IPAddress address, ipc::FromProto(r.address()));
        if (r.prefix_length() > static_cast<uint32_t>(address.bits())) {
          return absl::InvalidArgumentError(absl::StrCat("prefix length ", r.prefix_length(),
                                                         " out of range for ", address.ToString()));
        }
        RETURN_IF_ERROR(
            dummy->AddAddress(r.ifname(), address, static_cast<int>(r.prefix_length())));
        return pb::AddAddressReply();
      }));
  RETURN_IF_ERROR(router_.Handle(
      kRemoveAddress,
      [this](const pb::RemoveAddressRequest& r) -> absl::StatusOr<pb::RemoveAddressReply> {
        ASSIGN_OR_RETURN(DummyIfMgr * dummy, Dummy());
        ASSIGN_OR_RETURN(net::IPAddress address, ipc::FromProto(r.address()));
        RETURN_IF_ERROR(dummy->RemoveAddress(r.ifname(), address));
        return pb::RemoveAddressReply();
      }));

  // --- subscribers -------------------------------------------------------------------------
  RETURN_IF_ERROR(router_.Handle(
      kSubscribe,
      [this](const pb::SubscribeRequest& r,
             const ipc::Caller& caller) -> absl::StatusOr<pb::SubscribeReply> {
        ASSIGN_OR_RETURN(const std::string target,
                         ipc::CallerAsTarget("subscribe", r.target(), caller));
        // Changes of this turn not yet sent go to the older subscribers; the new one gets them
        // in its dump.
        Flush();
        if (!subscribers_.contains(target)) {
          const ipc::WatchId watch =
              router_.WatchInstance(target, [this, target](const ipc::TargetEvent& e) {
                if (e.kind == ipc::TargetEvent::kBirth) return;
                SLUICE_LOG(kInfo) << "interface subscriber " << target << " died";
                Drop(target);
              });
          subscribers_[target] = std::make_unique<ipc::DumpSubscriber>(
              io_, watch, "interface_events to " + target, [this, target] { SendDump(target); });
        }
        SendDump(target);
        return pb::SubscribeReply();
      }));
  return router_.Handle(kUnsubscribe,
                        [this](const pb::SubscribeRequest& r,
                               const ipc::Caller& caller) -> absl::StatusOr<pb::SubscribeReply> {
                          ASSIGN_OR_RETURN(const std::string target,
                                           ipc::CallerAsTarget("unsubscribe", r.target(), caller));
                          if (!Drop(target)) {
                            return absl::NotFoundError(absl::StrCat(target, " is not subscribed"));
                          }
                          return pb::SubscribeReply();
                        });
}

}  // namespace sluice::fea
