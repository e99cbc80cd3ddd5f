#include "rpki/cache_set.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"

namespace sluice::rpki {

CacheSet::CacheSet(boost::asio::io_context& io, VrpStore* store, std::function<void()> on_change)
    : io_(io), store_(store), on_change_(std::move(on_change)) {}

absl::Status CacheSet::Add(const CacheConfig& config) {
  for (const auto& c : caches_) {
    if (c->config().address == config.address && c->config().port == config.port) {
      return absl::AlreadyExistsError(absl::StrCat("RTR cache ", config.Name(), " exists"));
    }
  }
  caches_.push_back(
      std::make_unique<RtrConnection>(io_, config, store_, next_id_++, [this] { OnEvent(); }));
  std::stable_sort(caches_.begin(), caches_.end(), [](const auto& a, const auto& b) {
    return a->config().preference < b->config().preference;
  });
  Evaluate();
  return absl::OkStatus();
}

absl::Status CacheSet::Remove(const net::IPAddress& address, uint16_t port) {
  auto it = std::find_if(caches_.begin(), caches_.end(), [&](const auto& c) {
    return c->config().address == address && c->config().port == port;
  });
  if (it == caches_.end()) {
    return absl::NotFoundError(absl::StrCat("no RTR cache ", address.ToString(), " port ", port));
  }
  std::unique_ptr<RtrConnection> gone = std::move(*it);
  caches_.erase(it);
  evaluating_ = true;  // Stop's event must not re-enter Evaluate with `gone` half removed
  gone->Stop();
  evaluating_ = false;
  Evaluate();
  on_change_();
  return absl::OkStatus();
}

void CacheSet::OnEvent() {
  Evaluate();
  on_change_();
}

void CacheSet::Evaluate() {
  if (evaluating_) return;
  evaluating_ = true;
  std::optional<uint8_t> serving;  // the lowest preference with a cache in sync
  for (const auto& c : caches_) {
    if (c->connected() && c->session().has_data()) {
      serving = c->config().preference;
      synchronized_ = true;
      break;
    }
  }
  for (const auto& c : caches_) {
    if (!serving || c->config().preference <= *serving) {
      c->Start();
    } else {
      c->Stop();
    }
  }
  evaluating_ = false;
}

}  // namespace sluice::rpki
