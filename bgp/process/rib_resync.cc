#include "bgp/process/rib_resync.h"

#include <utility>

#include "base/log.h"

namespace sluice::bgp::process {

RibResync::RibResync(boost::asio::io_context& io, std::function<void()> sync)
    : timer_(io), sync_(std::move(sync)) {}

RibResync::~RibResync() { Stop(); }

void RibResync::Stop() {
  stopped_ = true;
  pending_ = false;
  timer_.cancel();
}

void RibResync::OnBirth() {
  alive_ = true;
  pending_ = false;
  timer_.cancel();  // this birth re-synchronises
  Sync();
}

void RibResync::OnDeath() {
  alive_ = false;
  pending_ = false;
  timer_.cancel();
}

void RibResync::OnLostCall() {
  if (stopped_ || !alive_ || pending_) return;
  const double wait_s = backoff_.Next();
  pending_ = true;
  SLUICE_LOG(kWarning) << "RIB: a call did not reach it while it is up; registering and sending "
                          "every route again in "
                       << wait_s << " s";
  timer_.expires_after(Backoff::Duration(wait_s));
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || !pending_) return;
    pending_ = false;
    if (!stopped_ && alive_) Sync();
  });
}

void RibResync::Sync() {
  if (!stopped_) sync_();
}

}  // namespace sluice::bgp::process
