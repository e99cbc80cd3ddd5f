#include "rib/redist_stage.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "absl/strings/str_cat.h"

namespace sluice::rib {

struct RedistStage::Subscription {
  RedistSubscriber* subscriber = nullptr;
  RedistPolicy policy;
  // Dump state: prefixes after `cursor` have not been dumped yet.
  bool dumping = true;
  std::optional<net::Prefix> cursor;
  std::vector<RedistChange> pending;
  bool dump_done_pending = false;
  // Deliveries already posted check it: nothing reaches a subscriber after it unsubscribed.
  std::shared_ptr<bool> alive = std::make_shared<bool>(true);
  std::unique_ptr<stage::BackgroundTask> dump;

  std::optional<RibRoute> Filter(const RibRoute& route) const {
    if (!policy) return route;
    return policy(route);
  }
};

RedistStage::RedistStage(std::string name, net::Family family, Symbol protocol,
                         SourceRegistry* sources, boost::asio::io_context& io)
    : RibLinearStage(std::move(name)),
      family_(family),
      protocol_(protocol),
      sources_(sources),
      io_(io) {}

RedistStage::~RedistStage() = default;

size_t RedistStage::dumping_count() const {
  size_t dumping = 0;
  for (const auto& s : subscriptions_) dumping += s->dumping ? 1 : 0;
  return dumping;
}

std::string RedistStage::Status() const {
  const size_t dumping = dumping_count();
  std::string out = absl::StrCat("protocol=", protocol_.empty() ? "all" : protocol_.name(),
                                 " subscribers=", subscriptions_.size());
  if (dumping > 0) absl::StrAppend(&out, " dumping=", dumping);
  return out;
}

absl::Status RedistStage::Subscribe(RedistSubscriber* subscriber, RedistPolicy policy) {
  if (subscribed(subscriber)) {
    return absl::AlreadyExistsError(absl::StrCat("already subscribed to ",
                                                 std::string(net::FamilyName(family_)), " ",
                                                 protocol_.empty() ? "all" : protocol_.name()));
  }
  auto sub = std::make_unique<Subscription>();
  sub->subscriber = subscriber;
  sub->policy = std::move(policy);
  Subscription* raw = sub.get();
  sub->dump = std::make_unique<stage::BackgroundTask>(io_, name() + " dump",
                                                      [this, raw] { return DumpSlice(*raw); });
  subscriptions_.push_back(std::move(sub));
  raw->dump->Start();
  return absl::OkStatus();
}

absl::Status RedistStage::Unsubscribe(RedistSubscriber* subscriber) {
  for (auto it = subscriptions_.begin(); it != subscriptions_.end(); ++it) {
    if ((*it)->subscriber == subscriber) {
      subscriptions_.erase(it);
      return absl::OkStatus();
    }
  }
  return absl::NotFoundError(absl::StrCat("not subscribed to ",
                                          std::string(net::FamilyName(family_)), " ",
                                          protocol_.empty() ? "all" : protocol_.name()));
}

bool RedistStage::subscribed(RedistSubscriber* subscriber) const {
  for (const auto& s : subscriptions_) {
    if (s->subscriber == subscriber) return true;
  }
  return false;
}

void RedistStage::add_route(const RibRoute& route, RibStage* caller) {
  RibLinearStage::add_route(route, caller);
  for (auto& sub : subscriptions_) Offer(*sub, std::nullopt, route, route.network);
}

void RedistStage::delete_route(const RibRoute& route, RibStage* caller) {
  RibLinearStage::delete_route(route, caller);
  for (auto& sub : subscriptions_) Offer(*sub, route, std::nullopt, route.network);
}

void RedistStage::replace_route(const RibRoute& old_route, const RibRoute& new_route,
                                RibStage* caller) {
  RibLinearStage::replace_route(old_route, new_route, caller);
  for (auto& sub : subscriptions_) Offer(*sub, old_route, new_route, new_route.network);
}

void RedistStage::push(RibStage* caller) {
  RibLinearStage::push(caller);
  for (auto& sub : subscriptions_) Flush(*sub);
}

void RedistStage::Offer(Subscription& sub, const std::optional<RibRoute>& before,
                        const std::optional<RibRoute>& after, const net::Prefix& prefix) {
  if (sub.dumping && (!sub.cursor || *sub.cursor < prefix)) return;  // the dump will send it
  std::optional<RibRoute> b;
  std::optional<RibRoute> a;
  if (before && Matches(*before)) b = sub.Filter(*before);
  if (after && Matches(*after)) a = sub.Filter(*after);
  if (b && a) {
    if (!(*b == *a)) sub.pending.push_back({RedistChange::Op::kReplace, *a, *b});
  } else if (b) {
    sub.pending.push_back({RedistChange::Op::kDelete, *b, std::nullopt});
  } else if (a) {
    sub.pending.push_back({RedistChange::Op::kAdd, *a, std::nullopt});
  }
}

bool RedistStage::DumpSlice(Subscription& sub) {
  stage::SliceBudget budget;
  const std::vector<RouteSource*> sources = sources_->OfProtocol(protocol_);
  while (true) {
    const std::optional<net::Prefix> prefix = NextPrefix(sources, sub.cursor);
    if (!prefix) {
      sub.dumping = false;
      sub.cursor.reset();
      sub.dump_done_pending = true;
      Flush(sub);
      return false;
    }
    sub.cursor = *prefix;
    if (upstream_ != nullptr) {
      if (std::optional<RibRoute> r = upstream_->lookup_route(*prefix); r && Matches(*r)) {
        if (std::optional<RibRoute> out = sub.Filter(*r)) {
          sub.pending.push_back({RedistChange::Op::kAdd, std::move(*out), std::nullopt});
        }
      }
    }
    if (budget.Exhausted()) break;
  }
  Flush(sub);
  return true;
}

void RedistStage::Flush(Subscription& sub) {
  if (sub.pending.empty() && !sub.dump_done_pending) return;
  std::vector<RedistChange> changes;
  changes.swap(sub.pending);
  const bool done = sub.dump_done_pending;
  sub.dump_done_pending = false;
  boost::asio::post(
      io_, [weak = std::weak_ptr<bool>(sub.alive), subscriber = sub.subscriber, family = family_,
            protocol = protocol_, changes = std::move(changes), done] {
        if (!weak.lock()) return;
        if (!changes.empty()) subscriber->OnRedistChanges(family, protocol, changes);
        if (done && weak.lock()) subscriber->OnRedistDumpDone(family, protocol);
      });
}

}  // namespace sluice::rib
