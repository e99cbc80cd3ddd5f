#include "bgp/stages/nexthop_cache.h"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

namespace sluice::bgp {

NexthopCache::NexthopCache(boost::asio::io_context& io, NexthopInterestClient* client)
    : io_(io), client_(client), self_(std::make_shared<NexthopCache*>(this)) {}

NexthopCache::~NexthopCache() { *self_ = nullptr; }

std::optional<NexthopAnswer> NexthopCache::Lookup(const net::IPAddress& nexthop) {
  if (client_ == nullptr) return NexthopAnswer{true, 0};
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (const Entry* e = entries_.longest_match_value(nexthop)) return e->answer;
    if (const Entry* e = previous_.longest_match_value(nexthop)) return e->answer;
    if (!pending_.insert(nexthop).second) return std::nullopt;
    ++registrations_;
  }
  Register(nexthop);
  return std::nullopt;
}

void NexthopCache::Register(const net::IPAddress& nexthop) {
  // Lookup may run on any thread; the client is only ever called on the event loop.
  std::weak_ptr<NexthopCache*> weak = self_;
  boost::asio::post(io_, [weak, nexthop] {
    auto self = weak.lock();
    if (!self || *self == nullptr) return;
    (*self)->client_->RegisterInterest(nexthop, [weak, nexthop](absl::StatusOr<NexthopInfo> info) {
      auto self = weak.lock();
      if (self && *self != nullptr) (*self)->OnAnswer(nexthop, std::move(info));
    });
  });
}

void NexthopCache::Deregister(const net::Prefix& subnet) {
  std::weak_ptr<NexthopCache*> weak = self_;
  boost::asio::post(io_, [weak, subnet] {
    auto self = weak.lock();
    if (self && *self != nullptr) (*self)->client_->DeregisterInterest(subnet);
  });
}

void NexthopCache::OnAnswer(const net::IPAddress& nexthop, absl::StatusOr<NexthopInfo> info) {
  bool ask_again = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stale_.erase(nexthop) > 0) {
      ask_again = true;  // the subnet changed while the question was out
      ++registrations_;
    } else if (!pending_.erase(nexthop)) {
      return;  // not asked (any more): e.g. a RIB restart
    }
    if (pending_.empty()) previous_.clear();  // every used nexthop has the new RIB's answer
  }
  if (ask_again) {
    Register(nexthop);
    return;
  }
  net::Prefix subnet(nexthop, nexthop.bits());
  NexthopAnswer answer;
  if (info.ok()) {
    answer = NexthopAnswer{info->resolvable, info->resolvable ? info->metric : 0};
    if (info->valid_subnet.Contains(nexthop)) subnet = info->valid_subnet;
  }
  bool deregister = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    uint32_t users = 0;
    for (const auto& [address, count] : uses_) {
      if (subnet.Contains(address)) ++users;
    }
    if (users == 0) {
      deregister = true;  // nobody needs it any more
    } else {
      entries_.insert_or_assign(subnet, Entry{answer, users});
    }
  }
  if (deregister) {
    Deregister(subnet);
    return;
  }
  Notify(subnet);
}

void NexthopCache::Use(const net::IPAddress& nexthop) {
  std::lock_guard<std::mutex> lock(mu_);
  if (++uses_[nexthop] != 1) return;
  auto it = entries_.longest_match(nexthop);
  if (it != entries_.end()) ++it->users;
}

void NexthopCache::Release(const net::IPAddress& nexthop) {
  std::optional<net::Prefix> deregister;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto u = uses_.find(nexthop);
    if (u == uses_.end() || --u->second != 0) return;
    uses_.erase(u);
    auto it = entries_.longest_match(nexthop);
    if (it != entries_.end() && --it->users == 0) {
      deregister = it.key();
      entries_.erase(it);
    }
  }
  if (deregister && client_ != nullptr) Deregister(*deregister);
}

void NexthopCache::Subscribe(Subscriber* s, boost::asio::io_context* loop) {
  std::lock_guard<std::mutex> lock(mu_);
  subscribers_.push_back(Subscription{s, loop != nullptr ? loop : &io_});
}

void NexthopCache::Unsubscribe(Subscriber* s) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(subscribers_, [s](const Subscription& x) { return x.subscriber == s; });
}

void NexthopCache::OnInvalid(const net::Prefix& valid_subnet) {
  std::vector<net::Prefix> gone;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = entries_.subtree(valid_subnet).begin(); it != entries_.end(); ++it) {
      gone.push_back(it.key());
    }
    for (auto it = entries_.find_less_specific(valid_subnet); it != entries_.end();
         it = entries_.find_less_specific(it.key())) {
      gone.push_back(it.key());
    }
    for (const net::Prefix& p : gone) entries_.erase(p);
    std::vector<net::Prefix> old;
    for (auto it = previous_.begin(); it != previous_.end(); ++it) {
      if (valid_subnet.Contains(it.key()) || it.key().Contains(valid_subnet))
        old.push_back(it.key());
    }
    for (const net::Prefix& p : old) previous_.erase(p);
    for (const net::IPAddress& a : pending_) {
      if (valid_subnet.Contains(a)) stale_.insert(a);
    }
  }
  for (const net::Prefix& p : gone) Notify(p);
}

void NexthopCache::OnRibBorn() {
  if (client_ == nullptr) return;  // every nexthop resolves; nothing to ask
  std::vector<net::IPAddress> ask;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The old answers stand in until the new RIB's come; answers to the old RIB still out are
    // dropped (not pending any more), and every used nexthop is asked again.
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      previous_.insert_or_assign(it.key(), *it);
    }
    entries_.clear();
    pending_.clear();
    stale_.clear();
    for (const auto& [address, count] : uses_) {
      pending_.insert(address);
      ask.push_back(address);
      ++registrations_;
    }
    if (ask.empty()) previous_.clear();
  }
  for (const net::IPAddress& a : ask) Register(a);
}

size_t NexthopCache::cached_subnets() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

void NexthopCache::Notify(const net::Prefix& subnet) {
  std::vector<boost::asio::io_context*> loops;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Subscription& s : subscribers_) {
      if (std::find(loops.begin(), loops.end(), s.loop) == loops.end()) loops.push_back(s.loop);
    }
    // Posted under the lock: a subscriber that unsubscribes (before its loop goes away) is
    // sure no handler is posted to that loop for it afterwards.
    for (boost::asio::io_context* loop : loops) NotifyOn(loop, subnet);
  }
}

void NexthopCache::NotifyOn(boost::asio::io_context* loop, const net::Prefix& subnet) {
  std::weak_ptr<NexthopCache*> weak = self_;
  boost::asio::post(*loop, [weak, loop, subnet] {
    auto self = weak.lock();
    if (!self || *self == nullptr) return;
    NexthopCache* cache = *self;
    std::vector<Subscriber*> subscribers;
    {
      std::lock_guard<std::mutex> lock(cache->mu_);
      for (const Subscription& s : cache->subscribers_) {
        if (s.loop == loop) subscribers.push_back(s.subscriber);
      }
    }
    for (Subscriber* s : subscribers) {
      // A subscriber may unsubscribe (be destroyed) while others run: check it is still there.
      // Only this thread unsubscribes the subscribers of this loop.
      {
        std::lock_guard<std::mutex> lock(cache->mu_);
        if (std::find_if(cache->subscribers_.begin(), cache->subscribers_.end(),
                         [s](const Subscription& x) { return x.subscriber == s; }) ==
            cache->subscribers_.end()) {
          continue;
        }
      }
      s->OnNexthopsChanged(subnet);
    }
  });
}

}  // namespace sluice::bgp
