#pragma once
// DampingStage: route flap damping for one peer's branch (RFC 2439; parameters from RIPE-580).
//
// Plumbed after ImportFilter(P) and before NexthopResolver(P) only when damping is configured
// for the peer (DampingControl, bgp/stages/damping_control.h), so no other stage knows about it:
//
//   PeerIn(P) → [Deletion]* → ImportFilter(P) → DampingStage(P) → NexthopResolver(P) → Decision
//
// Figure of merit (RFC 2439 §4.2): each prefix of the peer has a penalty that decays
// exponentially, halving every `half_life`: p(t) = p(t0) · 2^(-(t - t0) / half_life). A
// withdrawal adds `withdrawal_penalty` (1000), an attribute change (replace_route) adds
// `attribute_change_penalty` (500); a re-advertisement adds nothing (RIPE-580). The penalty never
// exceeds the ceiling reuse · 2^(max_suppress / half_life) (RFC 2439 §4.4), so no prefix stays
// suppressed longer than `max_suppress` after its last flap.
//
// Suppression: when an increment takes the penalty to `suppress` or above, the prefix is
// suppressed — its route (if any) is withdrawn downstream and later announcements are withheld.
// When the penalty has decayed below `reuse`, a timer releases it: the current upstream route (if
// any) is announced downstream again. Prefixes that never flap pass unchanged and cost nothing;
// a prefix's state is forgotten once unsuppressed and its penalty below reuse / 2.
//
// Guarantees downstream (XORP NSDI'05 §5.1 consistency): downstream holds a route for a prefix
// exactly when upstream does and the prefix is not suppressed; every delete matches an earlier
// add; lookup_route answers nullopt for a suppressed prefix and asks upstream otherwise.
//
// Time: a DampingClock gives the current time and the stage's one timer (tests use a fake clock;
// MakeAsioDampingClock is the real one on the event loop).

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "bgp/stages/bgp_stage.h"

namespace sluice::bgp {

// RFC 2439 §4.2 parameters; the defaults are RIPE-580's recommendations (half-life 15 min,
// reuse 750, suppress 6000, max-suppress 60 min), which `bgp { damping { } }` also uses.
struct DampingParams {
  absl::Duration half_life = absl::Minutes(15);
  uint32_t reuse = 750;
  uint32_t suppress = 6000;
  absl::Duration max_suppress = absl::Minutes(60);
  uint32_t withdrawal_penalty = 1000;
  uint32_t attribute_change_penalty = 500;

  // InvalidArgument naming the field: half-life must be positive, reuse positive and below
  // suppress, max-suppress at least half-life, suppress not above the ceiling.
  absl::Status Validate() const;
  // reuse · 2^(max_suppress / half_life): the largest penalty a prefix can have.
  double ceiling() const;
  friend bool operator==(const DampingParams&, const DampingParams&) = default;
};

// The stage's notion of time and its one timer.
class DampingClock {
 public:
  virtual ~DampingClock() = default;
  virtual absl::Time Now() const = 0;
  // `fire` runs once, on the event loop, at or after `when`; a new Arm replaces the previous one.
  virtual void Arm(absl::Time when, std::function<void()> fire) = 0;
  virtual void Disarm() = 0;
};

// Wall time (absl::Now) and a boost::asio::steady_timer on `io`.
std::unique_ptr<DampingClock> MakeAsioDampingClock(boost::asio::io_context& io);

// One prefix with a figure of merit, for `show bgp damping`.
struct DampedPrefix {
  net::Prefix prefix;
  double penalty = 0;  // decayed to now
  bool suppressed = false;
  absl::Duration reuse_in;  // until the timer releases it (suppressed only)
  bool has_route = false;   // upstream has a route for it (withheld while suppressed)
};

class DampingStage : public BgpLinearStage {
 public:
  struct Counters {
    uint64_t flaps = 0;         // withdrawals and attribute changes seen
    uint64_t suppressions = 0;  // prefixes that became suppressed
    uint64_t releases = 0;      // prefixes released by the timer
    uint64_t withheld = 0;      // announcements not sent because the prefix was suppressed
  };

  // `params` must be valid (DampingParams::Validate).
  DampingStage(std::string name, DampingParams params, std::unique_ptr<DampingClock> clock);
  ~DampingStage() override;

  std::string_view kind() const override { return "Damping"; }
  std::string Status() const override;

  // New parameters: penalties are kept; reuse times are computed again (a prefix whose penalty is
  // now below reuse is released at once). `params` must be valid.
  void SetParams(const DampingParams& params);
  const DampingParams& params() const { return params_; }

  // Releases every suppressed prefix now (their routes go downstream) and forgets all state:
  // called before the stage is unplumbed, so downstream stays consistent.
  void ReleaseAll();

  // Prefixes with a figure of merit, in prefix order; `suppressed_only`: only suppressed ones.
  std::vector<DampedPrefix> List(bool suppressed_only) const;
  std::optional<DampedPrefix> Get(const net::Prefix& prefix) const;
  size_t suppressed_count() const { return suppressed_; }
  const Counters& counters() const { return counters_; }

  void add_route(const BgpRoute& route, BgpStage* caller) override;
  void delete_route(const BgpRoute& route, BgpStage* caller) override;
  void replace_route(const BgpRoute& old_route, const BgpRoute& new_route,
                     BgpStage* caller) override;
  std::optional<BgpRoute> lookup_route(const net::Prefix& prefix) const override;

 private:
  struct Entry {
    double penalty = 0;  // at `updated`
    absl::Time updated;
    bool suppressed = false;
    absl::Time deadline;  // suppressed: reuse time; else: when it may be forgotten
  };
  using Deadlines = std::set<std::pair<absl::Time, net::Prefix>>;

  double Decayed(const Entry& e, absl::Time now) const;
  // Adds `amount` to the prefix's penalty; true when it becomes suppressed now.
  bool Penalize(const net::Prefix& prefix, uint32_t amount);
  void SetDeadline(const net::Prefix& prefix, Entry& e, absl::Time now);
  void Rearm();
  void OnTimer();
  DampedPrefix View(const net::Prefix& prefix, const Entry& e, absl::Time now) const;

  DampingParams params_;
  std::unique_ptr<DampingClock> clock_;
  absl::flat_hash_map<net::Prefix, Entry> entries_;
  Deadlines deadlines_;
  std::optional<absl::Time> armed_;
  size_t suppressed_ = 0;
  Counters counters_;
};

}  // namespace sluice::bgp
