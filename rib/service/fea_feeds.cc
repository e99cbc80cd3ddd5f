#include "rib/service/fea_feeds.h"

#include "absl/strings/str_cat.h"
#include "base/log.h"

namespace sluice::rib {

FeaFeeds::FeaFeeds(boost::asio::io_context& io, ipc::XrlRouter& router, Rib& rib,
                   FullPushGate& gate, XrlInterfaceSource& interfaces, Options options,
                   std::function<void(size_t)> on_change)
    : io_(io),
      router_(router),
      rib_(rib),
      gate_(gate),
      interfaces_(interfaces),
      options_(std::move(options)),
      on_change_(std::move(on_change)) {}

FeaFeeds::~FeaFeeds() {
  *alive_ = false;
  interfaces_.SetPerFea(nullptr, nullptr);
  for (const auto& [fea, client] : clients_) rib_.RemoveFea(fea).IgnoreError();
}

void FeaFeeds::Start() {
  interfaces_.SetPerFea([this](const std::string& fea) { return rib_.FeaInterfaceEvents(fea); },
                        [this](const std::string& fea) { OnInterfacesSynced(fea); });
  auto fn = [this](const ipc::TargetEvent& e) { OnEvent(e); };
  if (options_.instance.empty()) {
    router_.WatchClass("fea", fn);
  } else {
    router_.WatchInstance(options_.instance, fn);
  }
}

const XrlFibClient* FeaFeeds::client(const std::string& fea) const {
  auto it = clients_.find(fea);
  return it == clients_.end() ? nullptr : it->second.get();
}

std::string FeaFeeds::Describe() const {
  std::string out;
  for (const auto& [fea, client] : clients_) absl::StrAppend(&out, client->Describe(), "\n");
  if (clients_.empty()) out = "no FEA yet\n";
  absl::StrAppend(&out, "sweep gate ", gate_.Describe());
  return out;
}

void FeaFeeds::OnEvent(const ipc::TargetEvent& event) {
  if (event.kind == ipc::TargetEvent::kAbsent) return;  // not started yet: its birth will come
  if (event.kind == ipc::TargetEvent::kBirth) {
    if (live_.insert(event.instance_name).second) Born(event.instance_name);
  } else if (live_.erase(event.instance_name) > 0) {
    Died(event.instance_name);
  }
  if (on_change_) on_change_(live_.size());
}

XrlFibClient* FeaFeeds::Ensure(const std::string& fea) {
  std::unique_ptr<XrlFibClient>& client = clients_[fea];
  if (client != nullptr) return client.get();
  client = std::make_unique<XrlFibClient>(io_, router_, gate_);
  client->SetFlush([this, fea](std::function<void()> fn) { rib_.WhenSettled(std::move(fn), fea); });
  if (absl::Status s = rib_.AddFea(fea, client.get()); !s.ok()) {
    SLUICE_LOG(kError) << "FEA " << fea << ": " << s.message();
  }
  return client.get();
}

void FeaFeeds::Born(const std::string& fea) {
  SLUICE_LOG(kInfo) << "FEA " << fea << " born: feeding it the FIB";
  Ensure(fea)->FeaBorn(fea);  // start_full_push first, on the ordered stream
  if (interfaces_from_.empty()) {
    interfaces_from_ = fea;
    interfaces_.SetShared(fea);
  }
  SubscribeInterfaces(fea);
  FeedWhenInterfacesKnown(fea);
}

void FeaFeeds::SubscribeInterfaces(const std::string& fea) {
  std::unique_ptr<InterfaceSubscribe>& state = subscribes_[fea];
  if (state == nullptr) state = std::make_unique<InterfaceSubscribe>(io_);
  state->retry.cancel();
  const uint64_t id = state->id = ++subscribe_ids_;
  interfaces_.Subscribe(
      fea, [this, fea, id, alive = std::weak_ptr<bool>(alive_)](const absl::Status& status) {
        if (!status.ok() && !alive.expired()) SubscribeFailed(fea, id);
      });
}

void FeaFeeds::SubscribeFailed(const std::string& fea, uint64_t id) {
  auto it = subscribes_.find(fea);
  if (it == subscribes_.end() || it->second->id != id) return;  // dead, or replaced
  InterfaceSubscribe& state = *it->second;
  const double wait_s = state.backoff.Next();
  SLUICE_LOG(kInfo) << "subscribing to " << fea << "'s interfaces again in " << wait_s << " s";
  state.retry.expires_after(Backoff::Duration(wait_s));
  state.retry.async_wait([this, fea, id](const boost::system::error_code& error) {
    if (error) return;  // cancelled: a new subscribe, a death, or this is going away
    auto it = subscribes_.find(fea);
    if (it != subscribes_.end() && it->second->id == id) SubscribeInterfaces(fea);
  });
}

void FeaFeeds::FeedWhenInterfacesKnown(const std::string& fea) {
  if (rib_.FeaViewKnown(fea)) return rib_.FeaBorn(fea);
  auto timer = std::make_unique<boost::asio::steady_timer>(io_, options_.interfaces_wait);
  timer->async_wait([this, fea](const boost::system::error_code& error) {
    if (error) return;  // answered, dead, or this is going away
    awaiting_.erase(fea);
    SLUICE_LOG(kWarning) << "FEA " << fea << " reported no interfaces in "
                         << options_.interfaces_wait.count()
                         << " ms: feeding it every route until it does";
    rib_.FeaBorn(fea);
  });
  awaiting_[fea] = std::move(timer);
}

void FeaFeeds::OnInterfacesSynced(const std::string& fea) {
  if (awaiting_.erase(fea) > 0) rib_.FeaBorn(fea);
}

void FeaFeeds::Died(const std::string& fea) {
  SLUICE_LOG(kInfo) << "FEA " << fea << " died";
  awaiting_.erase(fea);
  subscribes_.erase(fea);
  clients_[fea]->FeaDied();
  rib_.FeaDied(fea);
  if (fea != interfaces_from_) return;
  interfaces_from_.clear();
  if (live_.empty()) return;
  interfaces_from_ = *live_.begin();
  interfaces_.SetShared(interfaces_from_);
  SubscribeInterfaces(interfaces_from_);
}

}  // namespace sluice::rib
