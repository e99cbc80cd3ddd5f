#include "rpki/rpki_service.h"

#include "base/log.h"
#include "rpki/rpki_xrl.h"

namespace sluice::rpki {

RpkiService::RpkiService(boost::asio::io_context& io, ipc::XrlRouter* router, uint64_t epoch,
                         std::chrono::seconds expire)
    : router_(router),
      publisher_(io, router, &store_, epoch),
      caches_(io, &store_, [this] { OnChange(); }),
      expire_timer_(io),
      expire_(expire) {}

absl::Status RpkiService::Start() {
  expire_timer_.expires_after(expire_);
  expire_timer_.async_wait([this](const boost::system::error_code& error) {
    if (error || publisher_.complete()) return;
    SLUICE_LOG(kWarning) << "no RTR cache answered in " << expire_.count()
                         << " s: the VRP set is empty now";
    publisher_.SetComplete();
  });
  return ServeRpki(*router_, caches_, store_, publisher_);
}

void RpkiService::OnChange() {
  if (!publisher_.complete() && caches_.synchronized()) {
    expire_timer_.cancel();
    publisher_.SetComplete();
  }
  publisher_.Flush();
}

}  // namespace sluice::rpki
