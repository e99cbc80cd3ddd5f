#pragma once
// Helpers for RIB tests: route builders, a FIB client that keeps the FIB it is sent, and
// recording registrants and redistribution subscribers.

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "net/ip_address.h"
#include "net/prefix.h"
#include "rib/fib_client.h"
#include "rib/interest.h"
#include "rib/redist.h"
#include "rib/rib_route.h"
#include "rib/route_input.h"

namespace sluice::rib {
// Readable failure messages.
inline void PrintTo(const RibRoute& r, std::ostream* os) { *os << r.ToString(); }
inline void PrintTo(const FibRoute& r, std::ostream* os) { *os << r.ToString(); }
}  // namespace sluice::rib

namespace sluice::rib::testing {

inline net::Prefix P(const char* text) { return net::Prefix::Parse(text).value(); }
inline net::IPAddress A(const char* text) { return net::IPAddress::Parse(text).value(); }

// A route input: "via" a nexthop address (empty: none), "dev" an interface (empty: none).
inline RouteInput In(const char* prefix, const char* via, const char* dev = "",
                     uint32_t metric = 0) {
  RouteInput r;
  r.network = P(prefix);
  if (*via != '\0') r.nexthop = A(via);
  r.ifname = dev;
  r.metric = metric;
  return r;
}

// The /24s numbered first .. first + n - 1 from 10.0.0.0/24 up, via 192.0.2.1 dev eth0.
inline std::vector<RouteInput> Slash24s(uint32_t first, uint32_t n) {
  std::vector<RouteInput> out;
  for (uint32_t i = first; i < first + n; ++i) {
    out.push_back(In("10.0.0.0/24", "192.0.2.1", "eth0"));
    out.back().network = net::Prefix(net::IPv4Address(0x0a000000u + (i << 8)), 24);
  }
  return out;
}

inline std::vector<net::Prefix> PrefixesOf(const std::vector<RouteInput>& routes) {
  std::vector<net::Prefix> out;
  for (const RouteInput& r : routes) out.push_back(r.network);
  return out;
}

// Keeps the FIB it is sent (applying each batch in order) and answers every batch OK, after the
// current event. With `hold`, batches wait in `held` until Release().
//
// A full push the RIB begins (BeginFullPush) is modelled as the FEA does it, in stream order
// with the batches: every entry is stale until re-sent (an add of a present entry is then a
// replace), and once both families' re-sends are done the stale entries are removed.
class FakeFib : public FibClient {
 public:
  explicit FakeFib(boost::asio::io_context& io) : io_(io) {}

  void SendBatch(FibBatch batch, std::function<void(absl::Status)> done) override {
    ++batches;
    max_batch = std::max(max_batch, batch.changes.size());
    if (hold) {
      held.push_back({std::move(batch), std::move(done), nullptr});
      max_held = std::max(max_held, held.size());
      return;
    }
    Apply(batch);
    boost::asio::post(io_, [done = std::move(done)] { done(absl::OkStatus()); });
  }
  // The re-send after a birth handed over its last batch: noted with the batches sent so far.
  void FullPushDone(net::Family family) override {
    full_push_done.push_back(std::string(family == net::Family::kIPv4 ? "ipv4" : "ipv6") +
                             " after " + std::to_string(batches) + " batches");
    if (!pushing_) return;
    pushed_.insert(family);
    if (pushed_.size() < 2) return;
    pushed_.clear();
    InOrder([this] {
      for (const net::Prefix& p : stale_) fib.erase(p);
      swept += stale_.size();
      stale_.clear();
      pushing_ = false;
    });
  }
  void BeginFullPush() override {
    ++full_pushes_begun;
    pushed_.clear();
    InOrder([this] {
      pushing_ = true;
      stale_.clear();
      for (const auto& [p, r] : fib) stale_.insert(p);
      next_sequence.clear();  // the re-send's batches start at 1 again
    });
  }
  // Completes the oldest held batch (applying it unless `status` is an error), after the
  // full-push steps queued before it.
  void Release(absl::Status status = absl::OkStatus()) {
    RunMarkers();
    if (held.empty()) return;
    Held h = std::move(held.front());
    held.pop_front();
    if (status.ok()) Apply(h.batch);
    boost::asio::post(io_, [done = std::move(h.done), status] { done(status); });
    RunMarkers();
  }
  // Answers the oldest held batch UNAVAILABLE without applying it: a batch lost on its way to
  // the FEA (which then sees the next one after the one before).
  void Lose() {
    RunMarkers();
    if (held.empty()) return;
    Held h = std::move(held.front());
    held.pop_front();
    next_sequence[h.batch.family] = h.batch.sequence;
    boost::asio::post(io_, [done = std::move(h.done)] {
      done(absl::UnavailableError("the connection timed out"));
    });
    RunMarkers();
  }
  void Apply(const FibBatch& batch) {
    auto& seq = next_sequence[batch.family];
    if (batch.sequence != seq + 1) {
      ADD_FAILURE() << "batch " << batch.sequence << " after " << seq;
    }
    seq = batch.sequence;
    for (const FibChange& c : batch.changes) {
      ++changes;
      const bool present = fib.contains(c.route.network);
      const bool was_stale = stale_.erase(c.route.network) > 0;
      switch (c.op) {
        case FibChange::Op::kAdd:
          if (present && !was_stale) ++errors;
          fib[c.route.network] = c.route;
          break;
        case FibChange::Op::kReplace:
          if (!present) ++errors;
          fib[c.route.network] = c.route;
          break;
        case FibChange::Op::kDelete:
          if (!present) ++errors;
          fib.erase(c.route.network);
          break;
      }
      if (log_changes) {
        log.push_back(std::string(FibOpName(c.op)) + " " + c.route.ToString());
      }
    }
  }
  // The FEA restarted with an empty FIB.
  void Reset() {
    fib.clear();
    held.clear();
    next_sequence.clear();
    pushing_ = false;
    stale_.clear();
    pushed_.clear();
  }
  std::string Text() const {
    std::string out;
    for (const auto& [p, r] : fib) out += r.ToString() + "\n";
    return out;
  }

  bool hold = false;
  bool log_changes = false;
  // A batch and its answer, or (with `marker` set) a full-push step that runs in its turn.
  struct Held {
    FibBatch batch;
    std::function<void(absl::Status)> done;
    std::function<void()> marker;
  };
  std::deque<Held> held;
  std::map<net::Prefix, FibRoute> fib;
  std::map<net::Family, uint64_t> next_sequence;
  std::vector<std::string> log;
  std::vector<std::string> full_push_done;
  size_t batches = 0, changes = 0, errors = 0, max_batch = 0, max_held = 0;
  size_t full_pushes_begun = 0, swept = 0;

 private:
  // Runs `step` now, or after the batches held before it.
  void InOrder(std::function<void()> step) {
    if (held.empty()) return step();
    held.push_back({FibBatch{}, nullptr, std::move(step)});
  }
  void RunMarkers() {
    while (!held.empty() && held.front().marker) {
      std::function<void()> step = std::move(held.front().marker);
      held.pop_front();
      step();
    }
  }
  boost::asio::io_context& io_;
  bool pushing_ = false;
  std::set<net::Prefix> stale_;
  std::set<net::Family> pushed_;
};

class RecordingRegistrant : public InterestRegistrant {
 public:
  void OnInterestInvalidated(const net::Prefix& valid_subnet) override {
    events.push_back("invalidated " + valid_subnet.ToString());
  }
  void OnInterestChanged(const InterestAnswer& answer) override {
    events.push_back("changed " + answer.ToString());
  }
  std::vector<std::string> events;
};

// Applies the stream it receives to `routes`, checking that it is consistent.
class RecordingSubscriber : public RedistSubscriber {
 public:
  void OnRedistChanges(net::Family, Symbol, std::span<const RedistChange> batch) override {
    for (const RedistChange& c : batch) {
      const bool present = routes.contains(c.route.network);
      switch (c.op) {
        case RedistChange::Op::kAdd:
          if (present) errors.push_back("add of present " + c.route.ToString());
          routes[c.route.network] = c.route;
          break;
        case RedistChange::Op::kReplace:
          if (!present || !(routes[c.route.network] == *c.old_route)) {
            errors.push_back("replace of absent/different " + c.route.ToString());
          }
          routes[c.route.network] = c.route;
          break;
        case RedistChange::Op::kDelete:
          if (!present || !(routes[c.route.network] == c.route)) {
            errors.push_back("delete of absent/different " + c.route.ToString());
          }
          routes.erase(c.route.network);
          break;
      }
      if (log_changes) {
        static const char* kOps[] = {"add", "replace", "delete"};
        log.push_back(std::string(kOps[static_cast<int>(c.op)]) + " " + c.route.ToString());
      }
    }
  }
  void OnRedistDumpDone(net::Family, Symbol) override {
    ++dumps_done;
    if (log_changes) log.push_back("dump done");
  }
  std::map<net::Prefix, RibRoute> routes;
  std::vector<std::string> errors;
  std::vector<std::string> log;
  bool log_changes = true;
  int dumps_done = 0;
};

}  // namespace sluice::rib::testing
