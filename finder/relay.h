#pragma once
// RelayService: people's calls, made by the Finder on their behalf (DESIGN.md § Security).
//
// People reach Sluice through the Finder's socket only; the components' sockets are theirs
// alone. A person's resolution says `relay` (ipc/proto/finder.proto), and their router then
// calls the Finder itself: any gRPC path other than the Finder's own service, with the target
// instance in the "sluice-target" metadata. For each call the Finder
//   1. identifies the caller from the kernel (SO_PEERCRED), never from the call;
//   2. asks `decide` (on the Finder's loop: Authority and Registry::Relay) whether their role
//      allows the method and where the target is;
//   3. makes the same call to the target as "user/NAME" with the key derived for that identity,
//      and hands the answer back unchanged.
// Only plain unary calls are relayed; people's calls are few and small.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "finder/registry.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/generic/generic_stub.h"
#include "ipc/peer_identity.h"

namespace sluice::finder {

class RelayService final : public grpc::CallbackGenericService {
 public:
  using Answer = std::function<void(absl::StatusOr<Registry::RelayTarget>)>;
  // Called on a gRPC thread; must call `answer` once, from any thread.
  using Decide = std::function<void(ipc::PeerIdentity who, std::string target, std::string method,
                                    Answer answer)>;

  explicit RelayService(Decide decide);
  ~RelayService() override;

  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override;

  // Answers every call in flight with UNAVAILABLE and refuses new ones. Call before the
  // server's Shutdown().
  void Stop();

  class Call;  // one relayed call (relay.cc)

 private:
  friend class Call;
  // The stub for `endpoint`, made once. Errors: the transport's (ipc/transport.h).
  absl::StatusOr<std::shared_ptr<grpc::GenericStub>> StubFor(const std::string& endpoint,
                                                             const std::string& tls_name);
  // The endpoint's component went away: a later call makes a fresh channel.
  void ForgetStub(const std::string& endpoint);
  bool Track(Call* call);
  void Untrack(Call* call);

  Decide decide_;
  std::mutex mu_;
  bool stopping_ = false;
  std::set<Call*> calls_;
  std::map<std::string, std::shared_ptr<grpc::GenericStub>> stubs_;  // by endpoint
};

}  // namespace sluice::finder
