#include "ipc/resync.h"

#include <utility>

#include "base/log.h"

namespace sluice::ipc {

Resync::Resync(boost::asio::io_context& io, std::string peer, std::function<void(bool)> sync)
    : timer_(io), peer_(std::move(peer)), sync_(std::move(sync)) {}

Resync::~Resync() { Stop(); }

void Resync::Stop() {
  stopped_ = true;
  pending_ = false;
  timer_.cancel();
}

void Resync::OnBirth() {
  alive_ = true;
  pending_ = false;
  timer_.cancel();  // this birth re-synchronises
  Sync(false);
}

void Resync::OnDeath() {
  alive_ = false;
  pending_ = false;
  timer_.cancel();
}

void Resync::OnLostCall() {
  if (stopped_ || !alive_ || pending_) return;
  const double wait_s = backoff_.Next();
  pending_ = true;
  SLUICE_LOG(kWarning) << peer_
                       << ": a call did not reach it while it is up; registering and sending "
                          "everything again in "
                       << wait_s << " s";
  timer_.expires_after(Backoff::Duration(wait_s));
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || !pending_) return;
    pending_ = false;
    if (!stopped_ && alive_) Sync(true);
  });
}

void Resync::Sync(bool after_lost_call) {
  if (!stopped_) sync_(after_lost_call);
}

}  // namespace sluice::ipc
