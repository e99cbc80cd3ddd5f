#include "tests/ipc/test_echo_service.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>

#include "base/status_macros.h"

namespace sluice::test_echo {
namespace {

// Runs `fn` after `ms` milliseconds on `io`.
template <typename F>
void After(boost::asio::io_context& io, uint32_t ms, F fn) {
  auto timer = std::make_shared<boost::asio::steady_timer>(io, std::chrono::milliseconds(ms));
  timer->async_wait(
      [timer, fn = std::move(fn)](const boost::system::error_code&) mutable { fn(); });
}

}  // namespace

absl::Status TestEchoService::Register() {
  RETURN_IF_ERROR(router_.Handle(
      kEcho, [this](const tv1::EchoRequest& request) -> absl::StatusOr<tv1::EchoReply> {
        tv1::EchoReply reply;
        *reply.mutable_atoms() = request.atoms();
        reply.set_note(request.note());
        reply.set_served_by(router_.instance_name());
        return reply;
      }));
  RETURN_IF_ERROR(
      router_.Handle(kAdd, [](const tv1::AddRequest& request) -> absl::StatusOr<tv1::AddReply> {
        tv1::AddReply reply;
        reply.set_sum(request.a() + request.b());
        return reply;
      }));
  RETURN_IF_ERROR(router_.HandleAsync(kRecord, [this](const tv1::RecordRequest& request,
                                                      ipc::Responder<tv1::RecordReply> r) {
    uint64_t& last = last_seq_[request.stream()];
    bool in_order = request.seq() == last + 1;
    if (!in_order) ++out_of_order_;
    ++records_;
    last = request.seq();
    r.reply()->set_seq(request.seq());
    r.reply()->set_in_order(in_order);
    if (request.delay_ms() == 0) {
      r.Finish(absl::OkStatus());
      return;
    }
    After(io_, request.delay_ms(), [r = std::move(r)]() mutable { r.Finish(absl::OkStatus()); });
  }));
  RETURN_IF_ERROR(router_.HandleAsync(
      kDelay, [this](const tv1::DelayRequest& request, ipc::Responder<tv1::DelayReply> r) {
        tv1::DelayReply reply;
        reply.set_tag(request.tag());
        After(io_, request.delay_ms(),
              [r = std::move(r), reply = std::move(reply)]() mutable { r.Send(std::move(reply)); });
      }));
  RETURN_IF_ERROR(
      router_.Handle(kFail, [](const tv1::FailRequest& request) -> absl::StatusOr<tv1::FailReply> {
        return absl::Status(static_cast<absl::StatusCode>(request.code()), request.message());
      }));
  RETURN_IF_ERROR(router_.Handle(
      kAddRoutes, [](const tv1::AddRoutesRequest& request) -> absl::StatusOr<tv1::AddRoutesReply> {
        tv1::AddRoutesReply reply;
        reply.set_count(request.routes_size());
        for (const auto& route : request.routes()) *reply.add_networks() = route.network();
        return reply;
      }));
  return absl::OkStatus();
}

}  // namespace sluice::test_echo
