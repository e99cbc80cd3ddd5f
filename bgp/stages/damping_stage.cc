#include "bgp/stages/damping_stage.h"

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <cmath>

#include "absl/strings/str_format.h"

namespace sluice::bgp {

// ---- DampingParams ---------------------------------------------------------------------------

absl::Status DampingParams::Validate() const {
  if (half_life <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("damping: half-life must be positive");
  }
  if (reuse == 0) return absl::InvalidArgumentError("damping: reuse must be positive");
  if (suppress <= reuse) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "damping: the suppress threshold (%d) must be above the reuse threshold (%d)", suppress,
        reuse));
  }
  if (max_suppress < half_life) {
    return absl::InvalidArgumentError("damping: max-suppress is shorter than half-life");
  }
  if (absl::FDivDuration(max_suppress, half_life) > 30) {
    return absl::InvalidArgumentError("damping: max-suppress is over 30 half-lives");
  }
  if (suppress > ceiling()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "damping: suppress %d is above the ceiling reuse * 2^(max-suppress / half-life) = %.0f",
        suppress, ceiling()));
  }
  return absl::OkStatus();
}

double DampingParams::ceiling() const {
  return reuse * std::exp2(absl::FDivDuration(max_suppress, half_life));
}

// ---- The real clock --------------------------------------------------------------------------

namespace {

class AsioDampingClock : public DampingClock {
 public:
  explicit AsioDampingClock(boost::asio::io_context& io) : timer_(io) {}
  absl::Time Now() const override { return absl::Now(); }
  void Arm(absl::Time when, std::function<void()> fire) override {
    const absl::Duration wait = std::max(when - absl::Now(), absl::ZeroDuration());
    timer_.expires_after(absl::ToChronoMilliseconds(wait) + std::chrono::milliseconds(1));
    // A handler already queued when the timer is re-armed, disarmed or destroyed finds its
    // token gone and does nothing (cancel() cannot take back a handler already queued).
    token_ = std::make_shared<int>(0);
    std::weak_ptr<int> token = token_;
    timer_.async_wait([token, fire = std::move(fire)](const boost::system::error_code& ec) {
      if (!ec && token.lock()) fire();
    });
  }
  void Disarm() override {
    token_.reset();
    timer_.cancel();
  }

 private:
  boost::asio::steady_timer timer_;
  std::shared_ptr<int> token_;
};

}  // namespace

std::unique_ptr<DampingClock> MakeAsioDampingClock(boost::asio::io_context& io) {
  return std::make_unique<AsioDampingClock>(io);
}

// ---- DampingStage ----------------------------------------------------------------------------

DampingStage::DampingStage(std::string name, DampingParams params,
                           std::unique_ptr<DampingClock> clock)
    : BgpLinearStage(std::move(name)), params_(params), clock_(std::move(clock)) {}

DampingStage::~DampingStage() { clock_->Disarm(); }

std::string DampingStage::Status() const {
  return absl::StrFormat("prefixes=%d suppressed=%d flaps=%d", entries_.size(), suppressed_,
                         counters_.flaps);
}

double DampingStage::Decayed(const Entry& e, absl::Time now) const {
  if (now <= e.updated) return e.penalty;
  return e.penalty * std::exp2(-absl::FDivDuration(now - e.updated, params_.half_life));
}

void DampingStage::SetDeadline(const net::Prefix& prefix, Entry& e, absl::Time now) {
  deadlines_.erase({e.deadline, prefix});
  // The time the decayed penalty falls to `threshold`: now + half_life · log2(p / threshold).
  const double threshold = e.suppressed ? params_.reuse : params_.reuse / 2.0;
  const double p = Decayed(e, now);
  const double half_lives = p > threshold ? std::log2(p / threshold) : 0.0;
  e.deadline = now + params_.half_life * half_lives;
  deadlines_.insert({e.deadline, prefix});
}

bool DampingStage::Penalize(const net::Prefix& prefix, uint32_t amount) {
  const absl::Time now = clock_->Now();
  ++counters_.flaps;
  Entry& e = entries_[prefix];
  e.penalty = std::min(Decayed(e, now) + amount, params_.ceiling());
  e.updated = now;
  bool now_suppressed = false;
  if (!e.suppressed && e.penalty >= params_.suppress) {
    e.suppressed = true;
    now_suppressed = true;
    ++suppressed_;
    ++counters_.suppressions;
  }
  SetDeadline(prefix, e, now);
  Rearm();
  return now_suppressed;
}

void DampingStage::add_route(const BgpRoute& route, BgpStage*) {
  // A (re-)advertisement adds no penalty (RIPE-580): it is withheld while suppressed.
  auto it = entries_.find(route.net);
  if (it != entries_.end() && it->second.suppressed) {
    ++counters_.withheld;
    return;
  }
  if (downstream_ != nullptr) downstream_->add_route(route, this);
}

void DampingStage::delete_route(const BgpRoute& route, BgpStage*) {
  auto it = entries_.find(route.net);
  const bool was_suppressed = it != entries_.end() && it->second.suppressed;
  Penalize(route.net, params_.withdrawal_penalty);
  // Downstream has the route unless the prefix was suppressed before this withdrawal.
  if (!was_suppressed && downstream_ != nullptr) downstream_->delete_route(route, this);
}

void DampingStage::replace_route(const BgpRoute& old_route, const BgpRoute& new_route, BgpStage*) {
  auto it = entries_.find(old_route.net);
  const bool was_suppressed = it != entries_.end() && it->second.suppressed;
  const bool suppressed_now = Penalize(old_route.net, params_.attribute_change_penalty);
  if (was_suppressed) {
    ++counters_.withheld;
  } else if (suppressed_now) {
    if (downstream_ != nullptr) downstream_->delete_route(old_route, this);
  } else if (downstream_ != nullptr) {
    downstream_->replace_route(old_route, new_route, this);
  }
}

std::optional<BgpRoute> DampingStage::lookup_route(const net::Prefix& prefix) const {
  auto it = entries_.find(prefix);
  if (it != entries_.end() && it->second.suppressed) return std::nullopt;
  return BgpLinearStage::lookup_route(prefix);
}

void DampingStage::Rearm() {
  if (deadlines_.empty()) {
    if (armed_) clock_->Disarm();
    armed_.reset();
    return;
  }
  const absl::Time first = deadlines_.begin()->first;
  if (armed_ && *armed_ == first) return;
  armed_ = first;
  clock_->Arm(first, [this] { OnTimer(); });
}

void DampingStage::OnTimer() {
  armed_.reset();
  const absl::Time now = clock_->Now();
  bool sent = false;
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    const net::Prefix prefix = deadlines_.begin()->second;
    deadlines_.erase(deadlines_.begin());
    auto it = entries_.find(prefix);
    if (it == entries_.end()) continue;
    Entry& e = it->second;
    if (!e.suppressed) {
      entries_.erase(it);  // decayed below reuse / 2: forgotten
      continue;
    }
    // Released: the penalty is below reuse (or max-suppress has passed since the last flap).
    e.suppressed = false;
    --suppressed_;
    ++counters_.releases;
    e.penalty = Decayed(e, now);
    e.updated = now;
    SetDeadline(prefix, e, now);
    if (downstream_ != nullptr && upstream_ != nullptr) {
      if (std::optional<BgpRoute> r = upstream_->lookup_route(prefix)) {
        downstream_->add_route(*r, this);
        sent = true;
      }
    }
  }
  if (sent && downstream_ != nullptr) downstream_->push(this);
  Rearm();
}

void DampingStage::SetParams(const DampingParams& params) {
  const absl::Time now = clock_->Now();
  for (auto& [prefix, e] : entries_) {
    e.penalty = std::min(Decayed(e, now), params.ceiling());
    e.updated = now;
  }
  params_ = params;
  for (auto& [prefix, e] : entries_) SetDeadline(prefix, e, now);
  armed_.reset();
  Rearm();
}

void DampingStage::ReleaseAll() {
  std::vector<net::Prefix> suppressed;
  for (const auto& [prefix, e] : entries_) {
    if (e.suppressed) suppressed.push_back(prefix);
  }
  std::sort(suppressed.begin(), suppressed.end());
  entries_.clear();
  deadlines_.clear();
  suppressed_ = 0;
  Rearm();
  bool sent = false;
  for (const net::Prefix& prefix : suppressed) {
    if (downstream_ == nullptr || upstream_ == nullptr) break;
    if (std::optional<BgpRoute> r = upstream_->lookup_route(prefix)) {
      downstream_->add_route(*r, this);
      sent = true;
    }
  }
  if (sent) downstream_->push(this);
}

DampedPrefix DampingStage::View(const net::Prefix& prefix, const Entry& e, absl::Time now) const {
  DampedPrefix d;
  d.prefix = prefix;
  d.penalty = Decayed(e, now);
  d.suppressed = e.suppressed;
  d.reuse_in =
      e.suppressed ? std::max(e.deadline - now, absl::ZeroDuration()) : absl::ZeroDuration();
  d.has_route = upstream_ != nullptr && upstream_->lookup_route(prefix).has_value();
  return d;
}

std::vector<DampedPrefix> DampingStage::List(bool suppressed_only) const {
  const absl::Time now = clock_->Now();
  std::vector<DampedPrefix> out;
  for (const auto& [prefix, e] : entries_) {
    if (suppressed_only && !e.suppressed) continue;
    out.push_back(View(prefix, e, now));
  }
  std::sort(out.begin(), out.end(),
            [](const DampedPrefix& a, const DampedPrefix& b) { return a.prefix < b.prefix; });
  return out;
}

std::optional<DampedPrefix> DampingStage::Get(const net::Prefix& prefix) const {
  auto it = entries_.find(prefix);
  if (it == entries_.end()) return std::nullopt;
  return View(prefix, it->second, clock_->Now());
}

}  // namespace sluice::bgp
