#pragma once
// Registry: the Finder's state and rules, apart from gRPC (finder_server.h adapts it).
//
// It keeps the live components (class, instance, endpoints, services, method secrets), admits
// registrations as the Authority says (finder/authority.h), answers resolutions as the access
// list allows with keys derived for the resolver alone (ipc/caller_key.h), decides which
// people's calls it relays, and tells watchers of births and deaths and resolvers of
// invalidations (XORP NSDI'05 §6.2; the protocol is in ipc/proto/finder.proto). An instance
// name belongs to the class that registered it first, for the Finder's lifetime. Everything
// runs on the Finder's one event loop: no locks.
//
// A session is one Finder.Session stream. Events for it go to its SessionSink, in order.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "finder/access_list.h"
#include "finder/authority.h"
#include "ipc/peer_identity.h"
#include "ipc/proto/finder.pb.h"

namespace sluice::finder {

using SessionId = uint64_t;

// Where a session's events go (the adapter writes them to the stream).
class SessionSink {
 public:
  virtual ~SessionSink() = default;
  virtual void Send(v1::SessionEvent event) = 0;
};

class Registry {
 public:
  // `random_key` returns a fresh 16-octet method secret (tests may pass a deterministic one).
  // `in_grace`: the Finder has just started and components may be re-registering after a
  // Finder restart; WatchSynced is held back until EndGrace().
  Registry(AccessList access_list, std::function<std::string()> random_key, bool in_grace,
           Authority authority = Authority());

  // A new session from `peer` (default: a process of the Finder's own user); events for it go
  // to `sink` (which must outlive Close(id)).
  SessionId Open(SessionSink* sink, ipc::PeerIdentity peer = LocalPeer());
  // Registers the session's component and reserves its name. Errors (the adapter ends the
  // stream with them): PermissionDenied (the Authority refuses this identity, or the instance
  // name belongs to another class), FailedPrecondition (registered twice), InvalidArgument (bad
  // names), AlreadyExists (the instance name is taken, or a sole-instance class already has an
  // instance). The component is not visible until Ready().
  absl::StatusOr<v1::Registered> Register(SessionId id, const v1::Registration& registration);
  // The session's component has installed its keys: it becomes resolvable and listed, it gets
  // `visible`, and its watchers get `birth`.
  void Ready(SessionId id);
  // Resolves for the session's component; remembers the resolver for invalidation.
  v1::ResolveReply Resolve(SessionId id, const v1::ResolveRequest& request);
  // Resolve, except that while the Finder is in its recovery grace a target that has not
  // re-registered yet is no error: the answer is held back (nullopt) and sent to the session's
  // sink as `resolved` once the target is ready, or when the grace ends (then NotFound). So a
  // call made just after a Finder restart waits for its target instead of failing.
  std::optional<v1::ResolveReply> ResolveOrDefer(SessionId id, const v1::ResolveRequest& request);
  // Sends `birth` for every live match now, then `synced` (after the grace period).
  void Watch(SessionId id, const v1::WatchRequest& request);
  void Unwatch(SessionId id, uint64_t watch_id);
  // The session's stream closed: its component (if any) is deregistered; watchers get `death`,
  // resolvers `invalidate`.
  void Close(SessionId id);
  // Sends the held-back `synced` events and answers the held-back resolves.
  void EndGrace();

  // Where to send a person's call of gRPC path `method` ("/sluice.rib.v1.Rib/ListRoutes") to
  // `target` (an instance or class name), and with what. Errors: NotFound (no such target or
  // method), PermissionDenied (a WRITE method and the person is not admin).
  struct RelayTarget {
    std::string instance;
    std::vector<std::string> endpoints;
    std::string certificate;  // the target's TLS certificate name, if any
    std::string caller_id;    // "user/NAME"
    std::string key;          // the method key derived for caller_id
  };
  absl::StatusOr<RelayTarget> Relay(const Principal& person, const std::string& target,
                                    const std::string& method);

  v1::ListTargetsReply ListTargets() const;
  // Errors: NotFound when no live component implements `service`.
  absl::StatusOr<v1::GetDescriptorsReply> GetDescriptors(const std::string& service) const;

  // Replaces the access list (e.g. re-read on SIGHUP); applies to later resolutions.
  void SetAccessList(AccessList access_list) { access_list_ = std::move(access_list); }
  const Authority& authority() const { return authority_; }

  size_t component_count() const { return components_.size(); }
  // A peer of the Finder's own user on a Unix socket.
  static ipc::PeerIdentity LocalPeer();

 private:
  struct Component {
    SessionId session = 0;
    uint64_t order = 0;  // registration order: a class resolves to its oldest instance
    bool ready = false;  // visible: resolvable, listed, born to watchers
    v1::Registration registration;
    Principal principal;
    absl::flat_hash_map<std::string, std::string> keys;  // method path -> secret
    absl::flat_hash_set<SessionId> resolvers;
  };
  struct WatchSpec {
    bool by_class = true;
    std::string name;
  };
  struct Session {
    SessionSink* sink = nullptr;
    ipc::PeerIdentity peer;
    Principal principal;   // once registered
    std::string instance;  // empty until registered
    std::string class_name;
    std::map<uint64_t, WatchSpec> watches;
  };

  Component* FindTarget(const std::string& name);
  std::string PickInstanceName(const std::string& class_name) const;
  absl::Status CheckNames(const std::string& class_name, const std::string& instance,
                          const v1::Registration& registration) const;
  v1::ResolveReply ResolveForPerson(uint64_t id, const Component& target,
                                    const v1::ServiceInfo& service) const;
  void Notify(const Component& component, v1::LifetimeEvent::Kind kind);
  // Answers the held-back resolves whose target is ready now (all of them with `all`).
  void AnswerDeferredResolves(bool all);
  static bool WatchMatches(const WatchSpec& watch, const v1::Registration& registration);

  AccessList access_list_;
  Authority authority_;
  std::function<std::string()> random_key_;
  bool in_grace_;
  std::vector<std::pair<SessionId, uint64_t>> pending_synced_;
  std::vector<std::pair<SessionId, v1::ResolveRequest>> deferred_resolves_;
  SessionId next_session_ = 1;
  uint64_t next_order_ = 1;
  absl::flat_hash_map<SessionId, Session> sessions_;
  std::map<std::string, Component> components_;                     // by instance name
  absl::flat_hash_map<std::string, std::string> instance_classes_;  // first holder's class
};

}  // namespace sluice::finder
