#pragma once
// XrlRouter: a process's door to every other Sluice process (XORP NSDI'05 §6; DESIGN.md § IPC).
//
// One router per component. It serves the component's methods (gRPC on a Unix socket by
// default, TCP when asked, and directly to routers in the same process), registers them with
// the Finder, calls other components' methods through the Finder, and reports their births and
// deaths. Everything the process sees — handlers, call callbacks, lifetime events — runs on the
// process's boost::asio::io_context thread; gRPC's own threads never touch process state.
//
// A process:
//
//   boost::asio::io_context io;
//   ipc::XrlRouter router(io, "rib", "rib");               // class, instance
//
//   // Serve a method (proto rpc Rib.AddRoute4; XRL rib/1.0/add_route4). Each service's methods
//   // are declared once, in ipc/methods/<service>.h:
//   namespace rib_methods = ipc::methods::rib;
//   router.Handle(rib_methods::kAddRoute4, [&](const rib::v1::AddRoute4Request& request)
//                                              -> absl::StatusOr<rib::v1::RouteReply> {
//     RETURN_IF_ERROR(table.Add(...));
//     return rib::v1::RouteReply();
//   });
//   router.SetShutdownHandler([&] { io.stop(); });          // common/1.0/shutdown
//   if (absl::Status s = router.Start(); !s.ok()) ...;      // serve and register
//
//   // Call another component (callback on the loop):
//   router.Call("fea", kAddRoute, request, [](absl::StatusOr<fea::v1::AddRouteReply> reply) {
//     if (!reply.ok()) ... reply.status() ...
//   });
//
//   // Watch a class (callback on the loop):
//   router.WatchClass("fea", [&](const ipc::TargetEvent& e) {
//     if (e.kind == ipc::TargetEvent::kDeath) ...;          // re-send the FIB on the next birth
//   });
//   io.run();
//
// Calls. Asynchronous: Call() returns at once and the callback runs later on the loop, never
// inside Call(). Targets are resolved through the Finder the first time and cached until the
// Finder says the target died or re-registered. A call to a router in the same process is
// handed to its handler directly (no serialization, no gRPC); other calls go over gRPC.
//
// Ordering. Calls from one router to one target name reach the target's handlers in the order
// Call() was made (across all interfaces of that target): they travel on one ordered stream
// per target endpoint (ipc/proto/channel.proto) or one event queue in-process, and the target
// runs them in arrival order. Replies may come back in any order (a handler may answer later).
// Calls made by class name and by instance name are ordered separately. Plain unary gRPC
// calls (RouterOptions::unary_calls, external clients, `sluice call`) are not ordered.
//
// Errors given to call callbacks (absl::Status):
//   NOT_FOUND          no such target, or it does not implement the interface
//   UNIMPLEMENTED      the target has no such method
//   PERMISSION_DENIED  the Finder's access list refuses, or the method key was wrong
//   UNAVAILABLE        the Finder or the target cannot be reached (nothing listens on its
//                      endpoint, or a connection could not be set up within
//                      ipc::kConnectTimeoutMs, ipc/transport.h: a stalled target is waited
//                      for that long), or the target died while the call was in flight
//   INVALID_ARGUMENT   bad method name, request/reply types that do not match the method
//   any status a handler returned, unchanged.
// IsUnreached() tells the UNAVAILABLE this router made because no answer came (the target
// could not be resolved or reached, or the connection was lost) from one a handler returned.
//
// Method keys and callers. The Finder draws a random 128-bit secret for every registered method
// and gives each caller its access list allows a key derived from the secret and the caller's
// identity (ipc/caller_key.h); every call carries the caller's identity and that key, the
// router checks the pair (PERMISSION_DENIED when missing or wrong) and hands handlers an
// authenticated ipc::Caller. Nobody can skip the Finder, nor call as someone else. People (a
// router the Finder registered as a person, finder/authority.h) call through the Finder's relay.
//
// The Finder. The router connects to RouterOptions::finder_address (default
// unix:$SLUICE_RUNDIR/finder.sock; see ipc/rundir.h), presenting its class credential
// (ipc/process_security.h). If the Finder goes away, the process keeps running: cached resolutions
// and open streams keep working, calls needing a new resolution fail with UNAVAILABLE, and the
// router reconnects (every 50-500 ms) and re-registers with the same instance name and the
// same method keys. Watches are re-sent; the watcher sees no duplicate births, and a death for
// every watched instance that died meanwhile (reported when the restarted Finder's grace
// period ends).
//
// Threads. Use the router on its loop thread only (construct, Handle, Start, Call, Watch,
// destroy). The io_context must outlive the router. From Start() until it is destroyed the
// router keeps the io_context busy, so io_context::run() does not return while calls are in
// flight inside gRPC: stop the loop with io_context::stop() (the default shutdown handler
// does). Destroying the router stops serving, cancels calls in flight (their callbacks do not
// run), and ends its Finder session (watchers elsewhere see its death).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/version.h"
#include "google/protobuf/message.h"
#include "ipc/caller.h"
#include "ipc/handler.h"
#include "ipc/method.h"
#include "ipc/method_name.h"
#include "ipc/proto/common.pb.h"
#include "ipc/responder.h"
#include "ipc/unix_listener.h"

namespace boost::asio {
class io_context;
}

namespace sluice::ipc {

namespace internal {
class RouterCore;
}

// True for an UNAVAILABLE this process's IPC layer made because the call got no answer from its
// target: the Finder could not resolve it, its endpoint could not be reached within
// kConnectTimeoutMs (ipc/transport.h), or the connection was lost before the answer (the call
// may then have run). False for a status a handler returned.
bool IsUnreached(const absl::Status& status);

struct RouterOptions {
  // The Finder: "unix:/path" or "tcp:127.0.0.1:PORT". Empty: DefaultFinderAddress().
  std::string finder_address;
  // Where to serve: "unix:/path", "tcp:127.0.0.1:PORT" (PORT 0 picks one; TCP needs TLS or
  // `insecure`, ipc/transport.h), "unix:default". Empty: one Unix socket, the default
  // unix:SOCKETDIR/INSTANCE.PID.sock (ipc/rundir.h).
  std::vector<std::string> listen;
  // False: a pure client (the `sluice` CLI) that serves nothing but common/1.0 in-process.
  bool serve = true;
  // Register an in-process endpoint and call routers of this process directly.
  bool allow_inproc = true;
  // Use TCP even when a Unix socket endpoint is registered (benchmarks). A router that reaches
  // the Finder over TCP always does: it may be on another host, where the callee's Unix
  // socket is not.
  bool prefer_tcp = false;
  // Make calls as plain unary gRPC calls instead of the ordered stream (the CLI does; calls
  // are then not ordered).
  bool unary_calls = false;
  // Refuse a second live instance of this class (Finder registration fails).
  bool sole_instance = false;
  // What common/1.0/get_version answers: the project version (base/version.h) unless set.
  std::string version = std::string(base::Version());
  // The class credential presented to the Finder (ipc/process_security.h). Empty: the one
  // the process inherited, if any.
  std::string credential;
  // Mode and group of the Unix socket the router serves on (default 0600, the process's group).
  SocketAccess socket_access;
  // Calls made before the first registration wait this long for the Finder, then fail with
  // UNAVAILABLE (the router keeps trying to connect in the background).
  int finder_wait_ms = 3000;
};

// A birth or death of a watched component.
// kAbsent: an instance watch found its instance not registered when the Finder answered the
// watch — it may have died before the watch reached the Finder, so a watcher that counts on the
// instance being alive should treat this as its death.
struct TargetEvent {
  enum Kind { kBirth, kDeath, kAbsent };
  Kind kind;
  std::string class_name;
  std::string instance_name;
};

using WatchId = uint64_t;

class XrlRouter {
 public:
  // `class_name`: the component class ("rib"); `instance_name`: unique among live components
  // ("rib"), or empty to let the Finder pick ("rib", "rib-2", ...). Nothing happens until
  // Start().
  XrlRouter(boost::asio::io_context& io, std::string class_name, std::string instance_name,
            RouterOptions options = {});
  ~XrlRouter();
  XrlRouter(const XrlRouter&) = delete;
  XrlRouter& operator=(const XrlRouter&) = delete;

  // --- Serving. Handlers are added before Start(). They run on the loop.

  // `fn`: absl::StatusOr<Reply>(const Request&) — answers at once; or
  // absl::StatusOr<Reply>(const Request&, const Caller&) to know who calls (ipc/caller.h).
  // Errors: InvalidArgument (the method is not in the linked protos with these types, or has no
  // XRL name), AlreadyExists, FailedPrecondition (after Start).
  template <typename Request, typename Reply, typename F>
  absl::Status Handle(const Method<Request, Reply>& method, F fn) {
    static_assert(
        std::is_invocable_r_v<absl::StatusOr<Reply>, F&, const Request&> ||
            std::is_invocable_r_v<absl::StatusOr<Reply>, F&, const Request&, const Caller&>,
        "Handle: fn must be absl::StatusOr<Reply>(const Request&[, const Caller&])");
    if (!method.status().ok()) return method.status();
    return AddHandler(
        std::make_unique<internal::SyncHandler<Request, Reply, F>>(method.name(), std::move(fn)));
  }
  // `fn`: void(const Request&, Responder<Reply>) — answers now or later through the Responder
  // (ipc/responder.h); or void(const Request&, const Caller&, Responder<Reply>).
  template <typename Request, typename Reply, typename F>
  absl::Status HandleAsync(const Method<Request, Reply>& method, F fn) {
    static_assert(std::is_invocable_v<F&, const Request&, Responder<Reply>> ||
                      std::is_invocable_v<F&, const Request&, const Caller&, Responder<Reply>>,
                  "HandleAsync: fn must be void(const Request&, [const Caller&,] "
                  "ipc::Responder<Reply>)");
    if (!method.status().ok()) return method.status();
    return AddHandler(
        std::make_unique<internal::AsyncHandler<Request, Reply, F>>(method.name(), std::move(fn)));
  }
  // The same with the method named by text ("rib/1.0/add_route4").
  template <typename Request, typename Reply, typename F>
  absl::Status Handle(std::string_view method, F fn) {
    return Handle(Method<Request, Reply>(method), std::move(fn));
  }
  template <typename Request, typename Reply, typename F>
  absl::Status HandleAsync(std::string_view method, F fn) {
    return HandleAsync(Method<Request, Reply>(method), std::move(fn));
  }

  // common/1.0: what get_status answers (default STARTUP until Start, then READY).
  void SetStatus(common::v1::ProcessStatus status, std::string reason = "");
  // common/1.0/shutdown runs `fn` on the loop after replying. Default: io_context::stop().
  void SetShutdownHandler(std::function<void()> fn);

  // Starts serving and registering with the Finder (asynchronously). Errors: a listening
  // endpoint that cannot be bound or is malformed (Unavailable / InvalidArgument).
  absl::Status Start();
  // Runs once on the loop when the first registration succeeds and the component is visible
  // to others (OK), or when the Finder refused the registration or could not be reached within
  // finder_wait_ms (the error; the router keeps trying).
  void OnReady(std::function<void(absl::Status)> fn);

  // --- Calling.

  // `callback`: void(absl::StatusOr<Reply>), run once on the loop.
  template <typename Request, typename Reply, typename F>
  void Call(std::string_view target, const Method<Request, Reply>& method, Request request,
            F callback) {
    static_assert(std::is_invocable_v<F&, absl::StatusOr<Reply>>,
                  "Call: callback must be void(absl::StatusOr<Reply>)");
    auto call = std::make_unique<internal::TypedCall<Request, Reply, F>>(std::move(request),
                                                                         std::move(callback));
    if (!method.status().ok()) return FailCall(std::move(call), method.status());
    CallMethod(target, method.name(), std::move(call));
  }
  // The method named by text: router.Call<Reply>("rib", "rib/1.0/add_route4", request, cb).
  // The request and reply types are checked against the method at run time (INVALID_ARGUMENT).
  template <typename Reply, typename Request, typename F>
  void Call(std::string_view target, std::string_view method, Request request, F callback) {
    static_assert(std::is_base_of_v<google::protobuf::Message, Request> &&
                      std::is_base_of_v<google::protobuf::Message, Reply>,
                  "Call: request and reply must be protobuf messages");
    static_assert(std::is_invocable_v<F&, absl::StatusOr<Reply>>,
                  "Call: callback must be void(absl::StatusOr<Reply>)");
    CallText(target, method,
             std::make_unique<internal::TypedCall<Request, Reply, F>>(std::move(request),
                                                                      std::move(callback)));
  }
  // Messages built by reflection (the CLI): `reply` is an empty message of the reply type;
  // `callback(status, reply)` gets it back filled when status is OK.
  using DynamicCallback =
      std::function<void(absl::Status, std::unique_ptr<google::protobuf::Message>)>;
  void CallDynamic(std::string_view target, std::string_view method,
                   std::unique_ptr<google::protobuf::Message> request,
                   std::unique_ptr<google::protobuf::Message> reply, DynamicCallback callback);

  // --- Lifetime events. `fn` runs on the loop: first a birth for every live match, then
  // births and deaths as they happen.
  WatchId WatchClass(std::string class_name, std::function<void(const TargetEvent&)> fn);
  WatchId WatchInstance(std::string instance_name, std::function<void(const TargetEvent&)> fn);
  void Unwatch(WatchId id);

  // --- State.
  const std::string& class_name() const;
  // The registered instance name ("" before the first registration when the Finder picks it).
  const std::string& instance_name() const;
  // 16 random octets drawn when this router was made, which the Finder knows it by: tell this
  // process from an earlier or later one of the same instance name (a restart).
  const std::string& incarnation() const;
  bool registered() const;  // registered with the Finder and visible to others right now
  // Where the router serves ("unix:/...", "tcp:127.0.0.1:PORT"), after Start().
  const std::vector<std::string>& endpoints() const;

 private:
  absl::Status AddHandler(std::unique_ptr<internal::Handler> handler);
  void CallMethod(std::string_view target, const MethodName& method,
                  std::unique_ptr<internal::OutgoingCall> call);
  void CallText(std::string_view target, std::string_view method,
                std::unique_ptr<internal::OutgoingCall> call);
  void FailCall(std::unique_ptr<internal::OutgoingCall> call, absl::Status status);

  std::shared_ptr<internal::RouterCore> core_;
};

}  // namespace sluice::ipc
