#include "rib/service/rib_clients.h"

#include <functional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "ipc/methods/rib_client.h"
#include "ipc/proto/rib_client.pb.h"
#include "ipc/redump.h"
#include "ipc/types_convert.h"
#include "rib/service/rib_convert.h"

namespace sluice::rib {
namespace {

namespace cpb = rib_client::v1;
using ipc::methods::rib_client::kRedistRoutes;
using ipc::methods::rib_client::kRouteInfoInvalid;

absl::StatusOr<net::Family> ParseFamily(std::string_view family) {
  if (family == "ipv4") return net::Family::kIPv4;
  if (family == "ipv6") return net::Family::kIPv6;
  return absl::InvalidArgumentError(
      absl::StrCat("family \"", std::string(family), "\": want ipv4 or ipv6"));
}

const char* FamilyText(net::Family family) {
  return family == net::Family::kIPv4 ? "ipv4" : "ipv6";
}

}  // namespace

// One component the RIB calls back: its interest registrations and redistribution streams.
class RibClients::Client : public InterestRegistrant, public RedistSubscriber {
 public:
  Client(RibClients* clients, std::string name)
      : clients_(clients),
        name_(std::move(name)),
        interest_repair_(clients->io_, "route_info_invalid to " + name_,
                         [this] { InvalidateEverything(); }),
        redist_repair_(clients->io_, "redist_routes to " + name_, [this] { DumpAgain(); }) {}

  const std::string& name() const { return name_; }
  ipc::WatchId watch = 0;
  std::string incarnation;  // the process's, from its register_protocol; empty: not known

  void OnInterestInvalidated(const net::Prefix& valid_subnet) override {
    cpb::RouteInfoInvalidRequest request;
    ipc::ToProto(valid_subnet, request.mutable_valid_subnet());
    Send(kRouteInfoInvalid, std::move(request),
         [this, dump = interest_repair_.dump()](const absl::Status& status) {
           (void)interest_repair_.Failed(dump, status);
         });
  }
  void OnInterestChanged(const InterestAnswer& answer) override {
    // rib_client/1.0 has no "changed": drop the registration and have the client ask again.
    (void)clients_->rib_.DeregisterInterest(this, answer.valid_subnet);
    OnInterestInvalidated(answer.valid_subnet);
  }
  void OnRedistChanges(net::Family family, Symbol protocol,
                       std::span<const RedistChange> changes) override {
    cpb::RedistRoutesRequest request = RedistRequest(family, protocol);
    for (const RedistChange& c : changes) RedistChangeToProto(c, request.add_changes());
    SendRedist(std::move(request));
  }
  void OnRedistDumpDone(net::Family family, Symbol protocol) override {
    cpb::RedistRoutesRequest request = RedistRequest(family, protocol);
    request.set_dump_done(true);
    SendRedist(std::move(request));
  }

  // A redist subscription of this component starts (its dump follows).
  absl::Status RedistSubscribe(net::Family family, std::string_view protocol) {
    RETURN_IF_ERROR(clients_->rib_.RedistSubscribe(this, family, protocol));
    redist_.emplace(family, std::string(protocol));
    dump_starting_.emplace(family, std::string(protocol));
    return absl::OkStatus();
  }
  absl::Status RedistUnsubscribe(net::Family family, std::string_view protocol) {
    redist_.erase({family, std::string(protocol)});
    dump_starting_.erase({family, std::string(protocol)});
    return clients_->rib_.RedistUnsubscribe(this, family, protocol);
  }

 private:
  using Stream = std::pair<net::Family, std::string>;  // a redist subscription

  // `on_failed` runs when the call failed otherwise than finding the component unknown to the
  // Finder (which forgets it).
  template <typename Request, typename Reply>
  void Send(const ipc::Method<Request, Reply>& method, Request request,
            std::function<void(const absl::Status&)> on_failed) {
    clients_->router_.Call(name_, method, std::move(request),
                           [clients = clients_, name = name_, weak = std::weak_ptr<bool>(alive_),
                            on_failed = std::move(on_failed)](absl::StatusOr<Reply> reply) {
                             if (reply.ok() || !weak.lock()) return;
                             if (reply.status().code() == absl::StatusCode::kNotFound) {
                               SLUICE_LOG(kWarning)
                                   << "rib_client call to " << name << ": " << reply.status();
                               clients->Gone(name, "is unknown to the Finder");
                             } else {
                               on_failed(reply.status());
                             }
                           });
  }

  // The first batch of each dump says so: the component then holds what it had of that stream
  // as stale until dump_done.
  cpb::RedistRoutesRequest RedistRequest(net::Family family, Symbol protocol) {
    cpb::RedistRoutesRequest request;
    request.set_family(FamilyText(family));
    request.set_protocol(protocol.name());
    request.set_dump_start(dump_starting_.erase({family, protocol.name()}) > 0);
    return request;
  }
  void SendRedist(cpb::RedistRoutesRequest request) {
    Send(kRedistRoutes, std::move(request),
         [this, dump = redist_repair_.dump()](const absl::Status& status) {
           if (redist_repair_.Failed(dump, status) != ipc::Redump::Outcome::kForget) return;
           clients_->rib_.RedistUnsubscribeAll(this);
           redist_.clear();
           dump_starting_.clear();
         });
  }

  // A route_info_invalid that failed (ipc/redump.h): the answers the component keeps may no
  // longer hold. Every registration of it is dropped and it is told that 0.0.0.0/0 and ::/0 are
  // invalid, so that it asks again about every nexthop.
  void InvalidateEverything() {
    interest_repair_.Sending();
    clients_->rib_.DeregisterAllInterest(this);
    OnInterestInvalidated(*net::Prefix::Parse("0.0.0.0/0"));
    OnInterestInvalidated(*net::Prefix::Parse("::/0"));
  }
  // A redist_routes that failed: the component's copy of its streams is unknown. Each stream
  // starts again with a dump (dump_start ... dump_done), which withdraws what it does not carry.
  void DumpAgain() {
    redist_repair_.Sending();
    for (const auto& [family, protocol] : redist_) {
      (void)clients_->rib_.RedistUnsubscribe(this, family, protocol);
      if (absl::Status s = clients_->rib_.RedistSubscribe(this, family, protocol); !s.ok()) {
        SLUICE_LOG(kWarning) << "redist to " << name_ << ": " << s;
      }
      dump_starting_.emplace(family, protocol);
    }
  }

  RibClients* clients_;
  std::string name_;
  ipc::Redump interest_repair_;
  ipc::Redump redist_repair_;
  std::set<Stream> redist_;         // its subscriptions
  std::set<Stream> dump_starting_;  // streams whose next batch starts a dump
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

RibClients::RibClients(boost::asio::io_context& io, ipc::XrlRouter& router, Rib& rib)
    : io_(io), router_(router), rib_(rib) {}

RibClients::~RibClients() {
  for (auto& [name, client] : clients_) {
    rib_.DeregisterAllInterest(client.get());
    rib_.RedistUnsubscribeAll(client.get());
  }
}

std::string RibClients::Describe() const {
  std::string s = absl::StrCat("clients: ", clients_.size(), " (", deaths_, " died)");
  for (const auto& [protocol, owner] : owners_) {
    absl::StrAppend(&s, "; ", protocol, " owned by ", owner.instance);
  }
  return s;
}

RibClients::Client* RibClients::Find(std::string_view name) const {
  auto it = clients_.find(name);
  return it == clients_.end() ? nullptr : it->second.get();
}

RibClients::Client* RibClients::Ensure(std::string_view name) {
  if (Client* c = Find(name)) return c;
  auto client = std::make_unique<Client>(this, std::string(name));
  Client* c = client.get();
  clients_.emplace(std::string(name), std::move(client));
  c->watch = router_.WatchInstance(std::string(name),
                                   [this, n = std::string(name)](const ipc::TargetEvent& e) {
                                     if (e.kind == ipc::TargetEvent::kDeath) Gone(n, "died");
                                     if (e.kind == ipc::TargetEvent::kAbsent) {
                                       Gone(n, "is not registered (any more)");
                                     }
                                   });
  return c;
}

void RibClients::Gone(const std::string& name, const char* why) {
  auto it = clients_.find(name);
  if (it == clients_.end()) return;
  std::unique_ptr<Client> client = std::move(it->second);
  clients_.erase(it);
  ++deaths_;
  rib_.DeregisterAllInterest(client.get());
  rib_.RedistUnsubscribeAll(client.get());
  router_.Unwatch(client->watch);
  std::vector<std::pair<std::string, Owner>> owned;
  for (auto o = owners_.begin(); o != owners_.end();) {
    if (o->second.instance == name) {
      owned.emplace_back(o->first, o->second);
      o = owners_.erase(o);
    } else {
      ++o;
    }
  }
  SLUICE_LOG(kInfo) << "client " << name << " " << why;
  for (const auto& [protocol, owner] : owned) OwnerGone(protocol, owner);
}

void RibClients::Supersede(const std::string& name, std::string_view incarnation) {
  const Client* c = Find(name);
  if (c == nullptr || incarnation.empty() || c->incarnation.empty() ||
      c->incarnation == incarnation) {
    return;
  }
  Gone(name, "was succeeded by a new incarnation before the Finder said it died");
}

void RibClients::OwnerGone(const std::string& protocol, const Owner& owner) {
  absl::Status s;
  if (owner.restart_time.count() > 0) {
    s = rib_.ProtocolStale(protocol, owner.restart_time);
    SLUICE_LOG(kInfo) << "protocol " << protocol << ": " << rib_.StaleRoutes(protocol)
                      << " routes stale for up to " << owner.restart_time.count()
                      << " s, until its next owner's end-of-RIB";
  } else {
    s = rib_.ProtocolDied(protocol);
    SLUICE_LOG(kInfo) << "protocol " << protocol << ": withdrawing its routes";
  }
  if (!s.ok()) {
    SLUICE_LOG(kWarning) << "protocol " << protocol << ": " << s;
  }
}

absl::StatusOr<size_t> RibClients::RegisterProtocol(std::string_view protocol,
                                                    const ipc::Caller& caller,
                                                    std::string_view target,
                                                    std::chrono::seconds restart_time, bool resync,
                                                    std::string_view incarnation) {
  RETURN_IF_ERROR(ValidateProtocolName(protocol));
  if (protocol == kConnectedProtocol) {
    return absl::InvalidArgumentError("protocol \"connected\" belongs to the RIB");
  }
  if (caller.person()) {
    return absl::PermissionDeniedError(absl::StrCat(
        "register_protocol: ", caller.instance_name,
        " is a person, not a component: only a component owns a protocol (its routes leave "
        "when it dies)"));
  }
  if (!target.empty() && target != caller.instance_name) {
    return absl::PermissionDeniedError(
        absl::StrCat("register_protocol: target ", std::string(target), " is not the caller (",
                     caller.id(), "); a component registers its protocols for itself"));
  }
  Supersede(caller.instance_name, incarnation);  // before looking at what it owns
  auto it = owners_.find(protocol);
  if (it != owners_.end() && it->second.class_name != caller.class_name) {
    return absl::PermissionDeniedError(
        absl::StrCat("protocol ", std::string(protocol), " belongs to ", it->second.instance,
                     " (class ", it->second.class_name, "), not to ", caller.id()));
  }
  Client* client = Ensure(caller.instance_name);
  if (!incarnation.empty()) client->incarnation = std::string(incarnation);
  Owner owner{caller.instance_name, caller.class_name, restart_time};
  if (it == owners_.end()) {
    owners_.emplace(std::string(protocol), owner);
  } else {
    if (it->second.instance != caller.instance_name) {
      // A successor of its class took over: what its predecessor sent is stale until it has
      // re-sent it, as if the predecessor had died.
      SLUICE_LOG(kInfo) << "protocol " << protocol << " moves from " << it->second.instance
                        << " to " << caller.instance_name;
      OwnerGone(std::string(protocol), it->second);
    }
    it->second = owner;
  }
  if (resync) {
    RETURN_IF_ERROR(rib_.ProtocolStale(protocol, ResyncStaleTime(restart_time)));
    SLUICE_LOG(kInfo) << "protocol " << protocol << ": " << caller.instance_name
                      << " sends its routes again; " << rib_.StaleRoutes(protocol)
                      << " routes stale until its end-of-RIB";
  }
  return rib_.StaleRoutes(protocol);
}

absl::Status RibClients::DeregisterProtocol(std::string_view protocol, const ipc::Caller& caller) {
  auto it = owners_.find(protocol);
  if (it == owners_.end()) {
    return absl::NotFoundError(absl::StrCat("protocol ", std::string(protocol), " has no owner"));
  }
  RETURN_IF_ERROR(CheckWriter(protocol, caller));
  owners_.erase(it);
  SLUICE_LOG(kInfo) << "protocol " << protocol << " deregistered by " << caller.id()
                    << ": withdrawing its routes";
  return rib_.ProtocolDied(protocol);
}

absl::Status RibClients::CheckWriter(std::string_view protocol, const ipc::Caller& caller) const {
  auto it = owners_.find(protocol);
  if (it == owners_.end() || it->second.class_name == caller.class_name) {
    return absl::OkStatus();
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "protocol ", std::string(protocol), " belongs to ", it->second.instance, " (class ",
      it->second.class_name, "): its routes come from there, not from ", caller.id()));
}

std::string RibClients::OwnerOf(std::string_view protocol) const {
  auto it = owners_.find(protocol);
  return it == owners_.end() ? "" : it->second.instance;
}

absl::StatusOr<InterestAnswer> RibClients::RegisterInterest(std::string_view client,
                                                            const net::IPAddress& address) {
  if (client.empty()) return absl::InvalidArgumentError("register_interest: no client");
  return rib_.RegisterInterest(Ensure(client), address);
}

absl::Status RibClients::DeregisterInterest(std::string_view client,
                                            const net::Prefix& valid_subnet) {
  Client* c = Find(client);
  if (c == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("client ", std::string(client), " has no registrations"));
  }
  return rib_.DeregisterInterest(c, valid_subnet);
}

absl::Status RibClients::RedistSubscribe(std::string_view target, std::string_view family,
                                         std::string_view protocol) {
  if (target.empty()) return absl::InvalidArgumentError("redist_subscribe: no target");
  ASSIGN_OR_RETURN(net::Family f, ParseFamily(family));
  if (!protocol.empty()) RETURN_IF_ERROR(ValidateProtocolName(protocol));
  return Ensure(target)->RedistSubscribe(f, protocol);
}

absl::Status RibClients::RedistUnsubscribe(std::string_view target, std::string_view family,
                                           std::string_view protocol) {
  ASSIGN_OR_RETURN(net::Family f, ParseFamily(family));
  Client* c = Find(target);
  if (c == nullptr) {
    return absl::NotFoundError(absl::StrCat(std::string(target), " is not subscribed"));
  }
  return c->RedistUnsubscribe(f, protocol);
}

}  // namespace sluice::rib
