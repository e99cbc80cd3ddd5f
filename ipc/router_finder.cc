// RouterCore: the Finder session — registration, reconnection, resolutions and watches.

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <map>
#include <set>

#include "absl/strings/str_format.h"
#include "base/log.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "ipc/channel_client.h"
#include "ipc/finder_session.h"
#include "ipc/grpc_status.h"
#include "ipc/inproc.h"
#include "ipc/process_security.h"
#include "ipc/proto/access.pb.h"
#include "ipc/router_core.h"
#include "ipc/transport.h"

namespace sluice::ipc::internal {
namespace {

namespace fv1 = finder::v1;

constexpr int kMaxRetryMs = 500;

// Appends `file` and its dependencies, dependencies first, each once.
void AddFile(const google::protobuf::FileDescriptor* file, std::set<std::string>* seen,
             fv1::Registration* registration) {
  if (!seen->insert(file->name()).second) return;
  for (int i = 0; i < file->dependency_count(); ++i) {
    AddFile(file->dependency(i), seen, registration);
  }
  google::protobuf::FileDescriptorProto proto;
  file->CopyTo(&proto);
  registration->add_file_descriptors(proto.SerializeAsString());
}

bool IsRefusal(absl::StatusCode code) {
  return code == absl::StatusCode::kAlreadyExists || code == absl::StatusCode::kInvalidArgument ||
         code == absl::StatusCode::kFailedPrecondition ||
         code == absl::StatusCode::kPermissionDenied;
}

}  // namespace

fv1::Registration RouterCore::BuildRegistration() {
  fv1::Registration registration;
  registration.set_class_name(class_name_);
  registration.set_instance_name(instance_name_);
  registration.set_sole_instance(options_.sole_instance);
  registration.set_incarnation(incarnation_);
  registration.set_credential(options_.credential.empty() ? ProcessCredential()
                                                          : options_.credential);
  if (!inproc_endpoint_.empty()) registration.add_endpoints(inproc_endpoint_);
  for (const std::string& endpoint : endpoints_) registration.add_endpoints(endpoint);
  if (registration.endpoints().empty()) return registration;  // a pure client
  if (std::any_of(endpoints_.begin(), endpoints_.end(),
                  [](const std::string& e) { return e.rfind("tcp:", 0) == 0; })) {
    absl::StatusOr<std::string> name = OwnCertificateName();
    if (name.ok()) {
      registration.set_tls_name(*name);
    } else {
      SLUICE_LOG(kWarning) << class_name_ << ": " << name.status().message();
    }
  }
  std::map<std::string, std::vector<std::string>> services;
  for (const auto& [path, handler] : methods_.handlers()) {
    services[handler->name().service()].push_back(handler->name().rpc());
  }
  std::set<std::string> seen_files;
  for (auto& [service, rpcs] : services) {
    std::sort(rpcs.begin(), rpcs.end());
    auto* info = registration.add_services();
    info->set_name(service);
    for (const std::string& rpc : rpcs) info->add_methods(rpc);
    const auto* desc =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(service);
    if (desc == nullptr) continue;
    AddFile(desc->file(), &seen_files, &registration);
    for (const std::string& rpc : rpcs) {
      const auto* method = desc->FindMethodByName(rpc);
      if (method != nullptr && method->options().GetExtension(sluice::access) == sluice::READ) {
        info->add_read_methods(rpc);
      }
    }
  }
  for (const auto& [method, key] : keys_) {
    auto* previous = registration.add_previous_keys();
    previous->set_method(method);
    previous->set_key(key);
  }
  return registration;
}

void RouterCore::Connect() {
  finder_state_ = FinderState::kConnecting;
  uint64_t generation = ++session_generation_;
  session_ = FinderSession::Start(
      finder_address_, BuildRegistration(), loop_, reactors_,
      [this, generation](fv1::SessionEvent event) { OnSessionEvent(generation, std::move(event)); },
      [this, generation](absl::Status status) { OnSessionClosed(generation, std::move(status)); });
}

void RouterCore::OnSessionEvent(uint64_t generation, fv1::SessionEvent event) {
  if (generation != session_generation_) return;
  switch (event.kind_case()) {
    case fv1::SessionEvent::kRegistered:
      OnRegistered(event.registered());
      return;
    case fv1::SessionEvent::kResolved:
      OnResolved(event.resolved());
      return;
    case fv1::SessionEvent::kLifetime:
      OnLifetime(event.lifetime());
      return;
    case fv1::SessionEvent::kSynced:
      OnSynced(event.synced().watch_id());
      return;
    case fv1::SessionEvent::kInvalidate:
      Invalidate(event.invalidate().instance_name());
      return;
    case fv1::SessionEvent::kVisible:
      OnVisible();
      return;
    case fv1::SessionEvent::KIND_NOT_SET:
      return;
  }
}

void RouterCore::OnRegistered(const fv1::Registered& registered) {
  bool reconnect = ever_registered_;
  finder_state_ = FinderState::kRegistered;
  finder_error_ = absl::OkStatus();
  retry_delay_ms_ = 50;
  instance_name_ = registered.instance_name();
  caller_ = std::make_shared<const Caller>(Caller{class_name_, instance_name_});
  keys_.clear();
  absl::flat_hash_map<std::string, std::string> keys;
  for (const auto& key : registered.keys()) {
    keys_.emplace_back(key.method(), key.key());
    keys[key.method()] = key.key();
  }
  methods_.SetKeys(std::move(keys));
  // Keys installed: now the Finder may let others call us.
  fv1::SessionRequest ready;
  ready.mutable_ready();
  session_->Send(std::move(ready));
  SLUICE_LOG(kInfo) << instance_name_ << (reconnect ? " re-registered" : " registered")
                    << " with the Finder at " << finder_address_;
  if (reconnect) {
    // The Finder restarted and lost what it told us: ask again. Open streams stay open.
    for (auto& [name, target] : targets_) target.services.clear();
    for (auto& [id, watch] : watches_) {
      watch.resyncing = true;
      watch.seen.clear();
    }
  }
  for (const auto& [id, watch] : watches_) SendWatch(id, watch);
  for (auto& [name, target] : targets_) {
    if (!target.queue.empty()) RequestResolution(name, target.queue.front().method.service());
  }
  ever_registered_ = true;
}

void RouterCore::OnVisible() {
  visible_ = true;
  ReportReady(absl::OkStatus());
}

void RouterCore::OnSessionClosed(uint64_t generation, absl::Status status) {
  if (generation != session_generation_ || shut_down_) return;
  Retire(std::move(session_));
  session_.reset();
  visible_ = false;
  bool was_registered = finder_state_ == FinderState::kRegistered;
  finder_state_ = FinderState::kDown;
  finder_error_ = status;
  resolving_.clear();
  in_flight_.clear();
  if (was_registered) {
    SLUICE_LOG(kWarning) << instance_name_ << ": lost the Finder at " << finder_address_ << " ("
                         << status.message() << "); reconnecting";
  } else if (IsRefusal(status.code())) {
    SLUICE_LOG(kError) << class_name_
                       << ": the Finder refused the registration: " << status.message();
    retry_delay_ms_ = kMaxRetryMs;
  }
  if (ever_registered_ || waited_out_ || IsRefusal(status.code())) {
    FailUnresolved(MarkUnreached(absl::UnavailableError(absl::StrFormat(
        "cannot resolve through the Finder at %s: %s", finder_address_, status.message()))));
  }
  if (!ever_registered_ && IsRefusal(status.code())) ReportReady(status);
  retry_timer_->expires_after(std::chrono::milliseconds(retry_delay_ms_));
  retry_delay_ms_ = std::min(retry_delay_ms_ * 2, kMaxRetryMs);
  retry_timer_->async_wait([loop = loop_, this](const boost::system::error_code& error) {
    if (!error && loop->open() && !shut_down_) Connect();
  });
}

void RouterCore::RequestResolution(const std::string& target_name, const std::string& service) {
  TargetService key(target_name, service);
  if (in_flight_.contains(key)) return;
  if (finder_state_ == FinderState::kRegistered) {
    uint64_t id = next_resolve_id_++;
    resolving_.emplace(id, key);
    in_flight_.insert(key);
    fv1::SessionRequest request;
    request.mutable_resolve()->set_id(id);
    request.mutable_resolve()->set_target(target_name);
    request.mutable_resolve()->set_service(service);
    session_->Send(std::move(request));
    return;
  }
  if (finder_state_ == FinderState::kIdle || (!ever_registered_ && !waited_out_)) {
    return;  // asked for when the registration succeeds
  }
  auto target = targets_.find(target_name);
  if (target == targets_.end()) return;
  failed_[key] = MarkUnreached(absl::UnavailableError(
      absl::StrFormat("cannot resolve %s: the Finder at %s is unreachable (%s)", target_name,
                      finder_address_, finder_error_.message())));
  Drain(target_name, target->second);
  failed_.erase(key);
}

void RouterCore::OnResolved(const fv1::ResolveReply& reply) {
  auto it = resolving_.find(reply.id());
  if (it == resolving_.end()) return;
  TargetService key = std::move(it->second);
  resolving_.erase(it);
  in_flight_.erase(key);
  auto target = targets_.find(key.first);
  if (target == targets_.end()) return;
  absl::Status status = StatusFromWire(reply.code(), reply.message());
  std::shared_ptr<Resolution> resolution;
  if (status.ok() && reply.relay()) {
    // We are a person: the Finder makes our calls (ipc/proto/finder.proto).
    resolution = std::make_shared<Resolution>();
    resolution->instance = reply.instance_name();
    resolution->relay = true;
    for (const auto& k : reply.keys()) resolution->methods[k.method()].key = k.key();
    resolution->endpoint = finder_address_;
    resolution->channel = ChannelTo(finder_address_, "the Finder", "finder");
  } else if (status.ok()) {
    resolution = std::make_shared<Resolution>();
    resolution->instance = reply.instance_name();
    for (const auto& k : reply.keys()) resolution->methods[k.method()].key = k.key();
    std::string unix_endpoint, tcp_endpoint;
    for (const std::string& endpoint : reply.endpoints()) {
      if (endpoint.rfind("inproc:", 0) == 0) {
        if (!options_.allow_inproc || resolution->inproc != nullptr) continue;
        resolution->inproc = FindInprocRouter(endpoint);
        if (resolution->inproc != nullptr) resolution->endpoint = endpoint;
      } else if (endpoint.rfind("unix:", 0) == 0 && unix_endpoint.empty()) {
        unix_endpoint = endpoint;
      } else if (endpoint.rfind("tcp:", 0) == 0 && tcp_endpoint.empty()) {
        tcp_endpoint = endpoint;
      }
    }
    if (resolution->inproc == nullptr) {
      const bool tcp_first = options_.prefer_tcp || finder_address_.rfind("tcp:", 0) == 0;
      std::string endpoint = tcp_first && !tcp_endpoint.empty() ? tcp_endpoint
                             : !unix_endpoint.empty()           ? unix_endpoint
                                                                : tcp_endpoint;
      if (endpoint.empty()) {
        status = absl::UnavailableError(
            absl::StrFormat("%s has no endpoint this router can reach", key.first));
      } else {
        resolution->endpoint = endpoint;
        resolution->channel = ChannelTo(endpoint, key.first, reply.certificate_name());
      }
    }
  }
  if (!status.ok()) {
    failed_[key] = status;
    Drain(key.first, target->second);
    failed_.erase(key);
    return;
  }
  target->second.services[key.second] = std::move(resolution);
  Drain(key.first, target->second);
}

void RouterCore::FailUnresolved(const absl::Status& status) {
  for (auto& [name, target] : targets_) {
    std::deque<QueuedCall> queue = std::move(target.queue);
    target.queue.clear();
    for (QueuedCall& queued : queue) {
      auto resolution = target.services.find(queued.method.service());
      if (resolution != target.services.end()) {
        Dispatch(*resolution->second, queued.method, std::move(queued.call));
      } else {
        FailLater(std::move(queued.call), status);
      }
    }
  }
}

void RouterCore::ReportReady(const absl::Status& status) {
  if (!on_ready_) return;
  auto fn = std::move(on_ready_);
  on_ready_ = nullptr;
  fn(status);
}

// --- watches

WatchId RouterCore::Watch(bool by_class, std::string name,
                          std::function<void(const TargetEvent&)> fn) {
  WatchId id = next_watch_id_++;
  WatchState& watch = watches_[id];
  watch.by_class = by_class;
  watch.name = std::move(name);
  watch.fn = std::move(fn);
  if (finder_state_ == FinderState::kRegistered) SendWatch(id, watch);
  return id;
}

void RouterCore::Unwatch(WatchId id) {
  if (watches_.erase(id) == 0) return;
  if (finder_state_ != FinderState::kRegistered) return;
  fv1::SessionRequest request;
  request.mutable_unwatch()->set_watch_id(id);
  session_->Send(std::move(request));
}

void RouterCore::SendWatch(WatchId id, const WatchState& watch) {
  fv1::SessionRequest request;
  request.mutable_watch()->set_watch_id(id);
  if (watch.by_class) {
    request.mutable_watch()->set_class_name(watch.name);
  } else {
    request.mutable_watch()->set_instance_name(watch.name);
  }
  session_->Send(std::move(request));
}

void RouterCore::OnLifetime(const fv1::LifetimeEvent& event) {
  auto it = watches_.find(event.watch_id());
  if (it == watches_.end()) return;
  WatchState& watch = it->second;
  std::function<void(const TargetEvent&)> fn = watch.fn;  // the callback may Unwatch
  const std::string& instance = event.instance_name();
  if (event.kind() == fv1::LifetimeEvent::BIRTH) {
    if (watch.resyncing) watch.seen.insert(instance);
    auto live = watch.live.find(instance);
    if (live != watch.live.end() && live->second.first == event.incarnation()) return;  // known
    bool restarted = live != watch.live.end();
    watch.live[instance] = {event.incarnation(), event.class_name()};
    if (restarted) fn(TargetEvent{TargetEvent::kDeath, event.class_name(), instance});
    fn(TargetEvent{TargetEvent::kBirth, event.class_name(), instance});
    return;
  }
  if (event.kind() == fv1::LifetimeEvent::DEATH && watch.live.erase(instance) > 0) {
    fn(TargetEvent{TargetEvent::kDeath, event.class_name(), instance});
  }
}

void RouterCore::OnSynced(uint64_t watch_id) {
  auto it = watches_.find(watch_id);
  if (it == watches_.end()) return;
  WatchState& watch = it->second;
  if (!watch.synced) {
    watch.synced = true;
    if (!watch.by_class && watch.live.empty()) {
      std::function<void(const TargetEvent&)> fn = watch.fn;
      fn(TargetEvent{TargetEvent::kAbsent, "", watch.name});
    }
    return;
  }
  if (!watch.resyncing) return;
  std::vector<TargetEvent> gone;
  for (const auto& [instance, life] : watch.live) {
    if (!watch.seen.contains(instance)) {
      gone.push_back(TargetEvent{TargetEvent::kDeath, life.second, instance});
    }
  }
  for (const TargetEvent& event : gone) watch.live.erase(event.instance_name);
  watch.resyncing = false;
  watch.seen.clear();
  std::function<void(const TargetEvent&)> fn = watch.fn;
  for (const TargetEvent& event : gone) fn(event);
}

}  // namespace sluice::ipc::internal
