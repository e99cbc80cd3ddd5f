#pragma once
// Responder<Reply>: how a handler answers a call, now or later.
//
// An asynchronous handler receives a Responder and may keep it (move it into a lambda, a map of
// pending work...) and answer when the work is done:
//
//   router.HandleAsync(kLookup, [&](const LookupRequest& request, ipc::Responder<LookupReply> r) {
//     table.LookupLater(request.key(), [r = std::move(r)](Value v) mutable {
//       r.reply()->set_value(v);
//       r.Finish(absl::OkStatus());
//     });
//   });
//
// Exactly one of Send, Finish or Fail answers the call; later calls are ignored. They may be
// made from any thread. A Responder destroyed without answering answers INTERNAL ("handler
// dropped the call"), so a caller never waits forever. The request the handler was given stays
// valid until the Responder answers.

#include <utility>

#include "absl/status/status.h"

namespace sluice::ipc {

// The transport's side of one incoming call (internal; implemented by ipc/).
class CallCompletion {
 public:
  // Called exactly once, from any thread. When `status` is OK the reply message given to the
  // handler holds the answer.
  virtual void Complete(absl::Status status) = 0;

 protected:
  ~CallCompletion() = default;
};

template <typename Reply>
class Responder {
 public:
  Responder(Reply* reply, CallCompletion* completion) : reply_(reply), completion_(completion) {}
  Responder(Responder&& other) noexcept
      : reply_(other.reply_), completion_(std::exchange(other.completion_, nullptr)) {}
  Responder& operator=(Responder&& other) noexcept {
    if (this != &other) {
      Drop();
      reply_ = other.reply_;
      completion_ = std::exchange(other.completion_, nullptr);
    }
    return *this;
  }
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;
  ~Responder() { Drop(); }

  // The reply to fill in before Finish(OkStatus()).
  Reply* reply() { return reply_; }
  // Answers with `reply`.
  void Send(Reply reply) {
    if (completion_ == nullptr) return;
    *reply_ = std::move(reply);
    Finish(absl::OkStatus());
  }
  // Answers with *reply() when `status` is OK, else with the error.
  void Finish(absl::Status status) {
    if (CallCompletion* c = std::exchange(completion_, nullptr)) c->Complete(std::move(status));
  }
  // Answers with an error (an OK status becomes UNKNOWN: use Finish to answer normally).
  void Fail(absl::Status status) {
    if (status.ok()) status = absl::UnknownError("handler failed with an OK status");
    Finish(std::move(status));
  }
  // True until the call is answered.
  bool pending() const { return completion_ != nullptr; }

 private:
  void Drop() { Finish(absl::InternalError("the handler dropped the call without answering")); }

  Reply* reply_;
  CallCompletion* completion_;
};

}  // namespace sluice::ipc
