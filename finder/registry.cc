#include "finder/registry.h"

#include <unistd.h>

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "ipc/caller.h"
#include "ipc/caller_key.h"
#include "ipc/grpc_status.h"
#include "ipc/method_name.h"

namespace sluice::finder {
namespace {

bool ValidComponentName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '-' || c == '.')) {
      return false;
    }
  }
  return true;
}

v1::ResolveReply ResolveError(uint64_t id, absl::StatusCode code, std::string message) {
  v1::ResolveReply reply;
  reply.set_id(id);
  reply.set_code(ipc::StatusCodeToWire(code));
  reply.set_message(std::move(message));
  return reply;
}

// "rib/1.0" when the service has an XRL name, else the service name.
std::string InterfaceText(const std::string& service) {
  auto iface = ipc::ServiceToInterface(service);
  if (!iface.ok()) return service;
  return iface->interface + "/" + iface->version;
}

}  // namespace

Registry::Registry(AccessList access_list, std::function<std::string()> random_key, bool in_grace,
                   Authority authority)
    : access_list_(std::move(access_list)),
      authority_(std::move(authority)),
      random_key_(std::move(random_key)),
      in_grace_(in_grace) {}

ipc::PeerIdentity Registry::LocalPeer() {
  ipc::PeerIdentity peer;
  peer.transport = ipc::PeerIdentity::Transport::kUnix;
  peer.pid = getpid();
  peer.uid = geteuid();
  peer.gid = getegid();
  return peer;
}

SessionId Registry::Open(SessionSink* sink, ipc::PeerIdentity peer) {
  SessionId id = next_session_++;
  Session& session = sessions_[id];
  session.sink = sink;
  session.peer = std::move(peer);
  return id;
}

std::string Registry::PickInstanceName(const std::string& class_name) const {
  if (!components_.contains(class_name)) return class_name;
  for (int n = 2;; ++n) {
    std::string name = absl::StrFormat("%s-%d", class_name, n);
    if (!components_.contains(name)) return name;
  }
}

absl::StatusOr<v1::Registered> Registry::Register(SessionId id,
                                                  const v1::Registration& registration) {
  auto session_it = sessions_.find(id);
  if (session_it == sessions_.end()) return absl::NotFoundError("unknown session");
  Session& session = session_it->second;
  if (!session.instance.empty()) {
    return absl::FailedPreconditionError(
        absl::StrFormat("this session already registered %s", session.instance));
  }
  const std::string& class_name = registration.class_name();
  if (!ValidComponentName(class_name)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bad class name \"%s\" (want 1-64 letters, digits, '_', '-', '.')", class_name));
  }
  std::string instance = registration.instance_name().empty() ? PickInstanceName(class_name)
                                                              : registration.instance_name();
  v1::Registration named = registration;
  named.set_instance_name(instance);
  auto principal = authority_.Admit(session.peer, named);
  if (!principal.ok()) return principal.status();
  RETURN_IF_ERROR(CheckNames(class_name, instance, registration));
  absl::flat_hash_map<std::string, std::string> previous;
  for (const auto& key : registration.previous_keys()) {
    if (key.key().size() == 16) previous[key.method()] = key.key();
  }
  Component component;
  component.session = id;
  component.order = next_order_++;
  component.registration = std::move(named);
  component.registration.clear_credential();
  component.principal = *principal;
  v1::Registered reply;
  reply.set_instance_name(instance);
  for (const auto& service : registration.services()) {
    for (const auto& rpc : service.methods()) {
      auto method = ipc::MethodName::FromService(service.name(), rpc);
      if (!method.ok()) return method.status();
      auto it = previous.find(method->path());
      std::string key = it != previous.end() ? it->second : random_key_();
      component.keys[method->path()] = key;
      auto* out = reply.add_keys();
      out->set_method(method->path());
      out->set_key(key);
    }
  }
  session.instance = instance;
  session.class_name = class_name;
  session.principal = *principal;
  instance_classes_.try_emplace(instance, class_name);
  auto [it, inserted] = components_.emplace(instance, std::move(component));
  SLUICE_LOG(kInfo) << "registered " << instance << " (class " << class_name << ", "
                    << it->second.keys.size() << " methods; "
                    << (principal->person ? absl::StrFormat("%s, role %s", session.peer.Describe(),
                                                            RoleName(principal->role))
                                          : session.peer.Describe())
                    << ")";
  return reply;
}

absl::Status Registry::CheckNames(const std::string& class_name, const std::string& instance,
                                  const v1::Registration& registration) const {
  if (!ValidComponentName(instance)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bad instance name \"%s\" (want 1-64 letters, digits, '_', '-', '.')", instance));
  }
  if (auto owner = instance_classes_.find(instance);
      owner != instance_classes_.end() && owner->second != class_name) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "instance name %s belongs to class %s, not %s", instance, owner->second, class_name));
  }
  if (components_.contains(instance)) {
    return absl::AlreadyExistsError(
        absl::StrFormat("instance name %s is already registered", instance));
  }
  for (const auto& [name, other] : components_) {
    if (other.registration.class_name() != class_name) continue;
    if (registration.sole_instance() || other.registration.sole_instance()) {
      return absl::AlreadyExistsError(
          absl::StrFormat("class %s allows one instance and %s is registered", class_name, name));
    }
  }
  return absl::OkStatus();
}

void Registry::Ready(SessionId id) {
  auto session = sessions_.find(id);
  if (session == sessions_.end() || session->second.instance.empty()) return;
  auto it = components_.find(session->second.instance);
  if (it == components_.end() || it->second.ready) return;
  it->second.ready = true;
  v1::SessionEvent visible;
  visible.mutable_visible();
  session->second.sink->Send(std::move(visible));
  Notify(it->second, v1::LifetimeEvent::BIRTH);
  if (!deferred_resolves_.empty()) AnswerDeferredResolves(false);
}

Registry::Component* Registry::FindTarget(const std::string& name) {
  if (auto it = components_.find(name); it != components_.end()) {
    return it->second.ready ? &it->second : nullptr;
  }
  Component* oldest = nullptr;
  for (auto& [instance, component] : components_) {
    if (component.ready && component.registration.class_name() == name &&
        (oldest == nullptr || component.order < oldest->order)) {
      oldest = &component;
    }
  }
  return oldest;
}

v1::ResolveReply Registry::Resolve(SessionId id, const v1::ResolveRequest& request) {
  auto session_it = sessions_.find(id);
  if (session_it == sessions_.end() || session_it->second.instance.empty()) {
    return ResolveError(request.id(), absl::StatusCode::kFailedPrecondition,
                        "register before resolving");
  }
  const Session& session = session_it->second;
  Component* target = FindTarget(request.target());
  if (target == nullptr) {
    return ResolveError(request.id(), absl::StatusCode::kNotFound,
                        absl::StrFormat("no such target: %s", request.target()));
  }
  const v1::Registration& reg = target->registration;
  if (!session.principal.person &&
      !access_list_.Allows({session.class_name, session.instance},
                           {reg.class_name(), reg.instance_name()}, request.service())) {
    SLUICE_LOG(kInfo) << "access list denies " << session.instance << " resolving "
                      << request.target() << "/" << InterfaceText(request.service());
    return ResolveError(
        request.id(), absl::StatusCode::kPermissionDenied,
        absl::StrFormat("the Finder's access list does not allow %s (class %s) to call %s on %s",
                        session.instance, session.class_name, InterfaceText(request.service()),
                        request.target()));
  }
  const v1::ServiceInfo* service = nullptr;
  for (const auto& s : reg.services()) {
    if (s.name() == request.service()) service = &s;
  }
  if (service == nullptr) {
    return ResolveError(request.id(), absl::StatusCode::kNotFound,
                        absl::StrFormat("target %s does not implement %s", request.target(),
                                        InterfaceText(request.service())));
  }
  target->resolvers.insert(id);
  if (session.principal.person) return ResolveForPerson(request.id(), *target, *service);
  v1::ResolveReply reply;
  reply.set_id(request.id());
  reply.set_instance_name(reg.instance_name());
  reply.set_class_name(reg.class_name());
  reply.set_incarnation(reg.incarnation());
  // Without a certificate of its own at registration, the name its TCP endpoints present.
  reply.set_certificate_name(target->principal.certificate.empty() ? reg.tls_name()
                                                                   : target->principal.certificate);
  *reply.mutable_endpoints() = reg.endpoints();
  const std::string caller_id = absl::StrFormat("%s/%s", session.class_name, session.instance);
  for (const auto& rpc : service->methods()) {
    std::string path = absl::StrFormat("/%s/%s", service->name(), rpc);
    auto* key = reply.add_keys();
    key->set_method(path);
    key->set_key(ipc::CallerKey(target->keys.at(path), caller_id));
  }
  return reply;
}

std::optional<v1::ResolveReply> Registry::ResolveOrDefer(SessionId id,
                                                         const v1::ResolveRequest& request) {
  auto session = sessions_.find(id);
  if (in_grace_ && session != sessions_.end() && !session->second.instance.empty() &&
      FindTarget(request.target()) == nullptr) {
    deferred_resolves_.emplace_back(id, request);
    return std::nullopt;
  }
  return Resolve(id, request);
}

void Registry::AnswerDeferredResolves(bool all) {
  std::vector<std::pair<SessionId, v1::ResolveRequest>> waiting;
  waiting.swap(deferred_resolves_);
  for (auto& [id, request] : waiting) {
    auto session = sessions_.find(id);
    if (session == sessions_.end()) continue;  // gone meanwhile
    if (!all && FindTarget(request.target()) == nullptr) {
      deferred_resolves_.emplace_back(id, std::move(request));
      continue;
    }
    v1::SessionEvent event;
    *event.mutable_resolved() = Resolve(id, request);
    session->second.sink->Send(std::move(event));
  }
}

v1::ResolveReply Registry::ResolveForPerson(uint64_t id, const Component& target,
                                            const v1::ServiceInfo& service) const {
  v1::ResolveReply reply;
  reply.set_id(id);
  reply.set_instance_name(target.registration.instance_name());
  reply.set_class_name(target.registration.class_name());
  reply.set_incarnation(target.registration.incarnation());
  reply.set_relay(true);
  for (const auto& rpc : service.methods()) {
    reply.add_keys()->set_method(absl::StrFormat("/%s/%s", service.name(), rpc));
  }
  return reply;
}

absl::StatusOr<Registry::RelayTarget> Registry::Relay(const Principal& person,
                                                      const std::string& target_name,
                                                      const std::string& method) {
  Component* target = FindTarget(target_name);
  if (target == nullptr) {
    return absl::NotFoundError(absl::StrFormat("no such target: %s", target_name));
  }
  auto name = ipc::MethodName::Parse(method);
  if (!name.ok()) return name.status();
  const v1::ServiceInfo* service = nullptr;
  for (const auto& s : target->registration.services()) {
    if (s.name() == name->service()) service = &s;
  }
  auto has = [](const auto& list, const std::string& rpc) {
    return std::find(list.begin(), list.end(), rpc) != list.end();
  };
  if (service == nullptr || !has(service->methods(), name->rpc())) {
    return absl::NotFoundError(
        absl::StrFormat("target %s has no method %s", target_name, name->full_name()));
  }
  const std::string shown = name->xrl().empty() ? name->full_name() : name->xrl();
  if (person.role != Role::kAdmin &&
      (person.role != Role::kOperator || !has(service->read_methods(), name->rpc()))) {
    SLUICE_LOG(kInfo) << "refused " << person.user_name << " (role " << RoleName(person.role)
                      << ") calling " << shown << " on " << target_name;
    return absl::PermissionDeniedError(
        absl::StrFormat("%s changes state and role %s may only read: %s needs role admin", shown,
                        RoleName(person.role), shown));
  }
  RelayTarget relay;
  relay.instance = target->registration.instance_name();
  relay.endpoints.assign(target->registration.endpoints().begin(),
                         target->registration.endpoints().end());
  relay.certificate = target->principal.certificate;
  relay.caller_id = ipc::Caller{std::string(ipc::kPersonClass), person.user_name}.id();
  relay.key = ipc::CallerKey(target->keys.at(name->path()), relay.caller_id);
  return relay;
}

bool Registry::WatchMatches(const WatchSpec& watch, const v1::Registration& registration) {
  return watch.by_class ? registration.class_name() == watch.name
                        : registration.instance_name() == watch.name;
}

void Registry::Watch(SessionId id, const v1::WatchRequest& request) {
  auto session_it = sessions_.find(id);
  if (session_it == sessions_.end()) return;
  Session& session = session_it->second;
  WatchSpec watch;
  watch.by_class = request.target_case() == v1::WatchRequest::kClassName;
  watch.name = watch.by_class ? request.class_name() : request.instance_name();
  session.watches[request.watch_id()] = watch;
  std::vector<const Component*> matches;
  for (const auto& [instance, component] : components_) {
    if (component.ready && WatchMatches(watch, component.registration)) {
      matches.push_back(&component);
    }
  }
  std::sort(matches.begin(), matches.end(),
            [](const Component* a, const Component* b) { return a->order < b->order; });
  for (const Component* component : matches) {
    v1::SessionEvent event;
    auto* lifetime = event.mutable_lifetime();
    lifetime->set_watch_id(request.watch_id());
    lifetime->set_kind(v1::LifetimeEvent::BIRTH);
    lifetime->set_class_name(component->registration.class_name());
    lifetime->set_instance_name(component->registration.instance_name());
    lifetime->set_incarnation(component->registration.incarnation());
    session.sink->Send(std::move(event));
  }
  if (in_grace_) {
    pending_synced_.emplace_back(id, request.watch_id());
    return;
  }
  v1::SessionEvent synced;
  synced.mutable_synced()->set_watch_id(request.watch_id());
  session.sink->Send(std::move(synced));
}

void Registry::Unwatch(SessionId id, uint64_t watch_id) {
  auto session_it = sessions_.find(id);
  if (session_it != sessions_.end()) session_it->second.watches.erase(watch_id);
}

void Registry::EndGrace() {
  in_grace_ = false;
  for (const auto& [id, watch_id] : pending_synced_) {
    auto it = sessions_.find(id);
    if (it == sessions_.end() || !it->second.watches.contains(watch_id)) continue;
    v1::SessionEvent synced;
    synced.mutable_synced()->set_watch_id(watch_id);
    it->second.sink->Send(std::move(synced));
  }
  pending_synced_.clear();
  AnswerDeferredResolves(true);
}

void Registry::Notify(const Component& component, v1::LifetimeEvent::Kind kind) {
  for (auto& [id, session] : sessions_) {
    for (const auto& [watch_id, watch] : session.watches) {
      if (!WatchMatches(watch, component.registration)) continue;
      v1::SessionEvent event;
      auto* lifetime = event.mutable_lifetime();
      lifetime->set_watch_id(watch_id);
      lifetime->set_kind(kind);
      lifetime->set_class_name(component.registration.class_name());
      lifetime->set_instance_name(component.registration.instance_name());
      lifetime->set_incarnation(component.registration.incarnation());
      session.sink->Send(std::move(event));
    }
  }
}

void Registry::Close(SessionId id) {
  auto session_it = sessions_.find(id);
  if (session_it == sessions_.end()) return;
  std::string instance = session_it->second.instance;
  sessions_.erase(session_it);
  if (instance.empty()) return;
  auto it = components_.find(instance);
  if (it == components_.end()) return;
  Component component = std::move(it->second);
  components_.erase(it);
  SLUICE_LOG(kInfo) << "deregistered " << instance;
  if (!component.ready) return;  // never visible: nobody knows it
  for (SessionId resolver : component.resolvers) {
    auto r = sessions_.find(resolver);
    if (r == sessions_.end()) continue;
    v1::SessionEvent event;
    event.mutable_invalidate()->set_instance_name(instance);
    event.mutable_invalidate()->set_incarnation(component.registration.incarnation());
    r->second.sink->Send(std::move(event));
  }
  Notify(component, v1::LifetimeEvent::DEATH);
}

v1::ListTargetsReply Registry::ListTargets() const {
  std::vector<const Component*> all;
  for (const auto& [instance, component] : components_) {
    if (component.ready) all.push_back(&component);
  }
  std::sort(all.begin(), all.end(),
            [](const Component* a, const Component* b) { return a->order < b->order; });
  v1::ListTargetsReply reply;
  for (const Component* component : all) {
    const auto& reg = component->registration;
    auto* target = reply.add_targets();
    target->set_class_name(reg.class_name());
    target->set_instance_name(reg.instance_name());
    target->set_sole_instance(reg.sole_instance());
    *target->mutable_endpoints() = reg.endpoints();
    *target->mutable_services() = reg.services();
  }
  return reply;
}

absl::StatusOr<v1::GetDescriptorsReply> Registry::GetDescriptors(const std::string& service) const {
  for (const auto& [instance, component] : components_) {
    if (!component.ready) continue;
    for (const auto& s : component.registration.services()) {
      if (s.name() != service) continue;
      v1::GetDescriptorsReply reply;
      *reply.mutable_file_descriptors() = component.registration.file_descriptors();
      return reply;
    }
  }
  return absl::NotFoundError(absl::StrFormat("no registered component implements %s", service));
}

}  // namespace sluice::finder
