#pragma once
// RedistStage: streams the winning routes of one protocol (or of every protocol) to its
// subscribers (XORP NSDI'05 §5.2, RedistTable). A pass-through stage after the Register stage:
// routes go downstream unchanged; those of its protocol also go to each subscriber, through the
// subscriber's policy hook (redist.h).
//
// Subscribing starts a dump: a background walk in prefix order over the protocol's sources
// (route_source.h), sending each prefix's winner if it is the protocol's. Until the walk has
// passed a prefix, live changes for it are not sent (the walk will send the state it finds);
// changes for prefixes already passed are sent as they come. So each subscriber sees a
// consistent stream from the first add. Changes are queued per subscriber and delivered after
// the current event, one batch per push.
//
// The Rib creates one RedistStage per (family, protocol) when the first subscriber comes and
// unplumbs it when the last one leaves.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "rib/redist.h"
#include "rib/rib_stage.h"
#include "rib/route_source.h"
#include "stage/background_task.h"

namespace sluice::rib {

class RedistStage : public RibLinearStage {
 public:
  // `protocol` empty: every protocol's winners.
  RedistStage(std::string name, net::Family family, Symbol protocol, SourceRegistry* sources,
              boost::asio::io_context& io);
  ~RedistStage() override;

  std::string_view kind() const override { return "Redist"; }
  std::string Status() const override;

  // Errors: AlreadyExists when `subscriber` is subscribed here already.
  absl::Status Subscribe(RedistSubscriber* subscriber, RedistPolicy policy);
  // Errors: NotFound when it is not subscribed here. Nothing more is delivered to it.
  absl::Status Unsubscribe(RedistSubscriber* subscriber);
  bool subscribed(RedistSubscriber* subscriber) const;
  size_t subscriber_count() const { return subscriptions_.size(); }
  // Subscriptions whose initial dump is still running.
  size_t dumping_count() const;
  Symbol protocol() const { return protocol_; }

  void add_route(const RibRoute& route, RibStage* caller) override;
  void delete_route(const RibRoute& route, RibStage* caller) override;
  void replace_route(const RibRoute& old_route, const RibRoute& new_route,
                     RibStage* caller) override;
  void push(RibStage* caller) override;

 private:
  struct Subscription;
  bool Matches(const RibRoute& route) const {
    return protocol_.empty() || route.protocol == protocol_;
  }
  void Offer(Subscription& sub, const std::optional<RibRoute>& before,
             const std::optional<RibRoute>& after, const net::Prefix& prefix);
  bool DumpSlice(Subscription& sub);
  void Flush(Subscription& sub);

  net::Family family_;
  Symbol protocol_;
  SourceRegistry* sources_;
  boost::asio::io_context& io_;
  std::vector<std::unique_ptr<Subscription>> subscriptions_;
};

}  // namespace sluice::rib
