#pragma once
// RegisterStage: answers "how is address X reached" and tells registrants when the answer
// changes (XORP NSDI'05 §5.2.1, Fig. 8, RegisterTable). A pass-through stage on the winners
// (after ExtInt): routes go downstream unchanged, and each change is checked against the
// registrations.
//
// Register(address) finds the covering route R — the longest-match winner containing the
// address — and the valid subnet S: the largest subnet that contains the address, lies inside
// R (anywhere when there is no R) and contains no other winner more specific than R. Every
// address in S has the same answer. With routes 128.16.0.0/16, 128.16.0.0/18,
// 128.16.128.0/17 and 128.16.192.0/18: 128.16.32.1 -> R 128.16.0.0/18, S 128.16.0.0/18;
// 128.16.160.1 -> R 128.16.128.0/17, S 128.16.128.0/18.
//
// Registrations never overlap: registering a subnet that contains older, smaller ones (left
// over from an earlier state of the table) invalidates those. A change at prefix Q:
//   - add: invalidates a registration S that contains Q (a new, more specific route inside S),
//     and one inside Q whose R is less specific than Q or absent (Q now covers it);
//   - delete: invalidates the registrations whose R is Q;
//   - replace: tells the registrants of every registration whose R is Q the new answer
//     (OnInterestChanged); the registrations stay.
// Other changes leave the answers right (a registration may stop being the largest possible;
// that is harmless). Notifications are queued and delivered after the current event.
//
// Routes are found through the sources (route_source.h), each checked against the upstream
// stage, so the stage stores only the registrations.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "net/prefix_map.h"
#include "rib/interest.h"
#include "rib/rib_stage.h"
#include "rib/route_source.h"

namespace boost::asio {
class io_context;
}

namespace sluice::rib {

class RegisterStage : public RibLinearStage {
 public:
  RegisterStage(std::string name, SourceRegistry* sources, boost::asio::io_context& io);
  ~RegisterStage() override;

  std::string_view kind() const override { return "Register"; }
  std::string Status() const override;

  // Registers `registrant`'s interest in `address` and returns the answer; the registrant
  // hears about changes to it until it deregisters or the answer is invalidated. Notifications
  // for the same subnet still queued for the registrant are dropped: this answer is newer.
  InterestAnswer Register(InterestRegistrant* registrant, const net::IPAddress& address);
  // The answer for `address` without registering.
  InterestAnswer Answer(const net::IPAddress& address) const;
  // Errors: NotFound when `registrant` holds no registration for exactly `valid_subnet`.
  absl::Status Deregister(InterestRegistrant* registrant, const net::Prefix& valid_subnet);
  // Drops every registration of `registrant` and any notification queued for it.
  void DeregisterAll(InterestRegistrant* registrant);
  size_t registration_count() const { return registry_.size(); }

  void add_route(const RibRoute& route, RibStage* caller) override;
  void delete_route(const RibRoute& route, RibStage* caller) override;
  void replace_route(const RibRoute& old_route, const RibRoute& new_route,
                     RibStage* caller) override;

 private:
  struct Registration {
    std::optional<net::Prefix> route;  // R, the covering route's prefix; none if unresolvable
    std::vector<InterestRegistrant*> registrants;
  };
  struct Notification {
    InterestRegistrant* registrant;
    std::optional<InterestAnswer> changed;  // set: OnInterestChanged; else OnInterestInvalidated
    net::Prefix subnet;
  };

  bool IsWinner(const net::Prefix& prefix) const;
  bool AnyWinnerIn(const std::vector<RouteSource*>& sources, const net::Prefix& prefix) const;
  InterestAnswer AnswerFor(const net::IPAddress& address, const net::Prefix& valid_subnet,
                           const std::optional<RibRoute>& route) const;
  void Invalidate(const net::Prefix& subnet);
  void Queue(Notification n);
  void Deliver();

  SourceRegistry* sources_;
  boost::asio::io_context& io_;
  net::PrefixMap<Registration> registry_;
  std::vector<Notification> pending_;
  std::vector<Notification>* delivering_ = nullptr;
  bool delivery_posted_ = false;
  uint64_t invalidations_ = 0;
  std::shared_ptr<bool> alive_;
};

}  // namespace sluice::rib
