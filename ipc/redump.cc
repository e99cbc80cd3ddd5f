#include "ipc/redump.h"

#include <utility>

#include "base/log.h"
#include "base/lost_call.h"

namespace sluice::ipc {

Redump::Redump(boost::asio::io_context& io, std::string calls, std::function<void()> dump)
    : timer_(io), calls_(std::move(calls)), dump_(std::move(dump)) {}

Redump::~Redump() { timer_.cancel(); }

uint64_t Redump::Sending() {
  pending_ = false;
  timer_.cancel();
  return ++dumps_;
}

Redump::Outcome Redump::Failed(uint64_t dump, const absl::Status& status) {
  if (status.code() == absl::StatusCode::kNotFound ||
      status.code() == absl::StatusCode::kUnimplemented) {
    SLUICE_LOG(kWarning) << calls_ << ": " << status << "; forgetting the subscriber";
    return Outcome::kForget;
  }
  if (dump != dumps_ || pending_) return Outcome::kIgnored;
  pending_ = true;
  const double wait_s = backoff_.Next();
  SLUICE_LOG(kWarning) << calls_ << ": " << status << " ("
                       << (IsLostCall(status) ? "lost on the way" : "refused")
                       << "); sending the whole state again in " << wait_s << " s";
  timer_.expires_after(Backoff::Duration(wait_s));
  timer_.async_wait([this](const boost::system::error_code& error) {
    if (error || !pending_) return;
    pending_ = false;
    ++redumps_;
    dump_();
  });
  return Outcome::kRepair;
}

}  // namespace sluice::ipc
