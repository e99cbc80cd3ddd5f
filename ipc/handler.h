#pragma once
// Type-erased method handlers and outgoing calls (internal to ipc/; processes use
// ipc/xrl_router.h). Templates live here so that the router's call path costs one allocation
// per call and no std::function.

#include <exception>
#include <memory>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "ipc/caller.h"
#include "ipc/method_name.h"
#include "ipc/responder.h"

namespace sluice::ipc::internal {

// A registered method implementation. Run() is called on the router's loop thread with a
// request of request_prototype()'s type and an empty reply of reply_prototype()'s type, both
// owned by the transport until `done->Complete()`, and the authenticated caller (valid during
// Run() only). An exception escaping the implementation fails only this call (INTERNAL).
class Handler {
 public:
  Handler(MethodName name, const google::protobuf::Message& request_prototype,
          const google::protobuf::Message& reply_prototype)
      : name_(std::move(name)),
        request_prototype_(request_prototype),
        reply_prototype_(reply_prototype) {}
  virtual ~Handler() = default;

  virtual void Run(const google::protobuf::Message& request, google::protobuf::Message* reply,
                   const Caller& caller, CallCompletion* done) = 0;

  const MethodName& name() const { return name_; }
  const google::protobuf::Message& request_prototype() const { return request_prototype_; }
  const google::protobuf::Message& reply_prototype() const { return reply_prototype_; }

 private:
  MethodName name_;
  const google::protobuf::Message& request_prototype_;
  const google::protobuf::Message& reply_prototype_;
};

// Logs an exception that escaped a handler and returns the status its call fails with
// (INTERNAL): the call fails, the process goes on.
absl::Status HandlerException(const MethodName& name, const char* what);

// F: absl::StatusOr<Reply>(const Request&) or absl::StatusOr<Reply>(const Request&, const
// Caller&)
template <typename Request, typename Reply, typename F>
class SyncHandler final : public Handler {
 public:
  SyncHandler(MethodName name, F fn)
      : Handler(std::move(name), Request::default_instance(), Reply::default_instance()),
        fn_(std::move(fn)) {}
  void Run(const google::protobuf::Message& request, google::protobuf::Message* reply,
           const Caller& caller, CallCompletion* done) override {
    absl::StatusOr<Reply> result;
    try {
      if constexpr (std::is_invocable_v<F&, const Request&, const Caller&>) {
        result = fn_(static_cast<const Request&>(request), caller);
      } else {
        result = fn_(static_cast<const Request&>(request));
      }
    } catch (const std::exception& e) {
      result = HandlerException(name(), e.what());
    } catch (...) {
      result = HandlerException(name(), "unknown exception");
    }
    if (result.ok()) *static_cast<Reply*>(reply) = *std::move(result);
    done->Complete(result.status());
  }

 private:
  F fn_;
};

// F: void(const Request&, Responder<Reply>) or void(const Request&, const Caller&,
// Responder<Reply>). An exception escaping the implementation is logged; the Responder it
// dropped on the way answers INTERNAL (ipc/responder.h).
template <typename Request, typename Reply, typename F>
class AsyncHandler final : public Handler {
 public:
  AsyncHandler(MethodName name, F fn)
      : Handler(std::move(name), Request::default_instance(), Reply::default_instance()),
        fn_(std::move(fn)) {}
  void Run(const google::protobuf::Message& request, google::protobuf::Message* reply,
           const Caller& caller, CallCompletion* done) override {
    Responder<Reply> responder(static_cast<Reply*>(reply), done);
    try {
      if constexpr (std::is_invocable_v<F&, const Request&, const Caller&, Responder<Reply>>) {
        fn_(static_cast<const Request&>(request), caller, std::move(responder));
      } else {
        fn_(static_cast<const Request&>(request), std::move(responder));
      }
    } catch (const std::exception& e) {
      (void)HandlerException(name(), e.what());
    } catch (...) {
      (void)HandlerException(name(), "unknown exception");
    }
  }

 private:
  F fn_;
};

// A distinct address per (Request, Reply) pair: lets the router check a call's types against a
// method once per pair instead of reading protobuf descriptors on every call.
template <typename Request, typename Reply>
inline constexpr char kTypeTag = 0;

// One call made by this router: owns the request, the reply being received, and the caller's
// callback. The router finishes it exactly once, on the caller's loop thread, then deletes it.
class OutgoingCall {
 public:
  virtual ~OutgoingCall() = default;
  // &kTypeTag<Request, Reply> for generated types; null when the types are only known at run
  // time (dynamic messages), which are then checked on every call.
  virtual const void* type_tag() const { return nullptr; }
  virtual const google::protobuf::Message& request() const = 0;
  virtual google::protobuf::Message* reply() = 0;
  // Runs the callback with *reply() (OK) or the error.
  virtual void Finish(absl::Status status) = 0;
};

// F: void(absl::StatusOr<Reply>)
template <typename Request, typename Reply, typename F>
class TypedCall final : public OutgoingCall {
 public:
  TypedCall(Request request, F callback)
      : request_(std::move(request)), callback_(std::move(callback)) {}
  const void* type_tag() const override { return &kTypeTag<Request, Reply>; }
  const google::protobuf::Message& request() const override { return request_; }
  google::protobuf::Message* reply() override { return &reply_; }
  void Finish(absl::Status status) override {
    if (status.ok()) {
      callback_(absl::StatusOr<Reply>(std::move(reply_)));
    } else {
      callback_(absl::StatusOr<Reply>(std::move(status)));
    }
  }

 private:
  Request request_;
  Reply reply_;
  F callback_;
};

// F: void(absl::Status, std::unique_ptr<google::protobuf::Message> reply)
template <typename F>
class DynamicCall final : public OutgoingCall {
 public:
  DynamicCall(std::unique_ptr<google::protobuf::Message> request,
              std::unique_ptr<google::protobuf::Message> reply, F callback)
      : request_(std::move(request)), reply_(std::move(reply)), callback_(std::move(callback)) {}
  const google::protobuf::Message& request() const override { return *request_; }
  google::protobuf::Message* reply() override { return reply_.get(); }
  void Finish(absl::Status status) override {
    if (!status.ok()) reply_.reset();
    callback_(std::move(status), std::move(reply_));
  }

 private:
  std::unique_ptr<google::protobuf::Message> request_;
  std::unique_ptr<google::protobuf::Message> reply_;
  F callback_;
};

}  // namespace sluice::ipc::internal
