#pragma once
// NexthopCache: the answers of the RIB about BGP nexthops, cached by valid subnet (XORP NSDI'05
// §5.2.1). One per process, shared by every NexthopResolver stage of every family — and, with
// the shard stage (shard_pipeline.h), read by every shard: Lookup is thread-safe and the
// cache is a separate object from the stages (longest-prefix match cannot be sharded by prefix
// hash).
//
//   std::optional<NexthopAnswer> a = cache.Lookup(nh);   // nullopt: asked the RIB, wait
//
// Lookup answers from the cached subnet containing `nexthop`; when none does, it registers
// interest with the RIB (once per address until answered) and returns nullopt. Lookup, Use,
// Release, Subscribe and Unsubscribe may be called from any thread; the interest client is only
// called on the event loop (registrations are posted to it). When an answer arrives, and when the
// RIB invalidates a subnet, subscribers (the resolver stages) are told which subnet changed,
// always from a fresh handler on the subscriber's loop (the event loop, or a shard's: never from
// inside Lookup): they then Lookup their own nexthops in it again.
//
// Without an interest client every nexthop resolves with metric 0 (BGP without a RIB).
//
// Reference counts: a stage calls Use(nh) when it starts tracking a nexthop and Release(nh) when
// no route of it uses the nexthop any more; the cache deregisters interest in a subnet when no
// used nexthop lies in it.

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "bgp/stages/rib_client.h"
#include "net/prefix_map.h"

namespace boost::asio {
class io_context;
}

namespace sluice::bgp {

struct NexthopAnswer {
  bool resolvable = false;
  uint32_t metric = 0;
  friend bool operator==(const NexthopAnswer&, const NexthopAnswer&) = default;
};

class NexthopCache {
 public:
  class Subscriber {
   public:
    virtual ~Subscriber() = default;
    // Answers for nexthops inside `subnet` changed, appeared, or were invalidated.
    virtual void OnNexthopsChanged(const net::Prefix& subnet) = 0;
  };

  // `client` may be null: every nexthop resolves, metric 0.
  NexthopCache(boost::asio::io_context& io, NexthopInterestClient* client);
  ~NexthopCache();
  NexthopCache(const NexthopCache&) = delete;
  NexthopCache& operator=(const NexthopCache&) = delete;

  // Thread-safe. The cached answer for `nexthop`, or nullopt after asking the RIB.
  std::optional<NexthopAnswer> Lookup(const net::IPAddress& nexthop);
  void Use(const net::IPAddress& nexthop);
  void Release(const net::IPAddress& nexthop);

  // `loop`: where the subscriber is told (its own thread's event loop, e.g. a shard's); null:
  // the cache's loop. A subscriber unsubscribes on its own loop's thread.
  void Subscribe(Subscriber* s, boost::asio::io_context* loop = nullptr);
  void Unsubscribe(Subscriber* s);

  // From the RIB: the answer for `valid_subnet` no longer holds.
  void OnInvalid(const net::Prefix& valid_subnet);
  // A new RIB instance: every used nexthop is asked again; the old answers keep answering
  // Lookup until the new RIB's have all come (a restarted RIB must not make routes flap).
  void OnRibBorn();

  size_t cached_subnets() const;
  size_t registrations() const { return registrations_; }

 private:
  struct Entry {
    NexthopAnswer answer;
    uint32_t users = 0;  // used nexthops inside
  };
  void OnAnswer(const net::IPAddress& nexthop, absl::StatusOr<NexthopInfo> info);
  void Register(const net::IPAddress& nexthop);
  void Deregister(const net::Prefix& subnet);
  void Notify(const net::Prefix& subnet);

  boost::asio::io_context& io_;
  NexthopInterestClient* client_;
  mutable std::mutex mu_;
  net::PrefixMap<Entry> entries_;
  // The previous RIB's answers, after OnRibBorn until every question to the new one is answered.
  net::PrefixMap<Entry> previous_;
  absl::flat_hash_set<net::IPAddress> pending_;
  // Pending registrations inside a subnet invalidated before their answer came: the answer may
  // predate the change, so it is dropped and the address asked again.
  absl::flat_hash_set<net::IPAddress> stale_;
  absl::flat_hash_map<net::IPAddress, uint32_t> uses_;
  struct Subscription {
    Subscriber* subscriber;
    boost::asio::io_context* loop;
  };
  void NotifyOn(boost::asio::io_context* loop, const net::Prefix& subnet);
  std::vector<Subscription> subscribers_;
  uint64_t registrations_ = 0;
  // Handlers posted to the loop hold this; the cache clears it when destroyed.
  std::shared_ptr<NexthopCache*> self_;
};

}  // namespace sluice::bgp
