#pragma once
// RpkiIpcClient: BGP's side of sluice-rpki — the VRPs it holds, fed over rpki_client/1.0.
//
//   Finder birth of the rpki class ─► rpki/1.0/subscribe (as our instance); sluice-rpki then
//                                     sends the whole VRP set, then its changes. A subscribe
//                                     that fails (it registered before it serves) is tried
//                                     again after 0.2 s, doubling up to 5 s, while it lives;
//                                     a later birth or death ends what an earlier one started
//   rpki_client/1.0/vrp_changes ────► batches in the order received, one at a time: VrpFeed::Plan
//                                     (bgp/rpki/vrp_feed.h): the delta; listener BeforeChange;
//                                     once it is ready, OriginValidator::Apply and the reply;
//                                     after the change's last batch, listener AfterChange (the
//                                     re-validation of the routes it covered)
//   death of sluice-rpki ───────────► nothing: the VRPs stay (DESIGN.md § Restarts) until the
//                                     next process's dump is complete, which then withdraws
//                                     only what it did not carry
//
// Everything on the router's event loop. Route validation reads the OriginValidator (RFC 6811).

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "bgp/rpki/route_origin.h"
#include "bgp/rpki/vrp_feed.h"
#include "ipc/proto/rpki_client.pb.h"
#include "ipc/xrl_router.h"

namespace sluice::bgp::process {

// Told of each change to the VRP set: BeforeChange before each batch of it is applied — the batch
// is applied when the listener calls `ready` (on the event loop, at once or later) — and
// AfterChange once after its last batch (rpki_client.proto `last`; or when sluice-rpki dies in
// the middle of one).
class VrpListener {
 public:
  virtual ~VrpListener() = default;
  virtual void BeforeChange(const rpki::VrpDelta& delta, std::function<void()> ready) = 0;
  virtual void AfterChange() = 0;
};

class RpkiIpcClient {
 public:
  // `router` and `set` outlive the client, `listener` (may be null) too; `rpki_class`:
  // sluice-rpki's class ("rpki").
  RpkiIpcClient(boost::asio::io_context& io, ipc::XrlRouter* router, std::string rpki_class,
                rpki::OriginValidator* set, VrpListener* listener = nullptr);
  ~RpkiIpcClient();

  // Serves rpki_client/1.0 and watches the rpki class (before router.Start()).
  // Errors: those of XrlRouter::Handle.
  absl::Status Start();

  const rpki::OriginValidator& table() const { return *set_; }
  const rpki::VrpFeed& feed() const { return feed_; }
  uint64_t batches() const { return batches_; }
  uint64_t refused_batches() const { return refused_; }
  bool subscribed() const { return subscribed_; }

 private:
  struct Batch {
    ::sluice::rpki_client::v1::VrpChangesRequest request;
    ipc::Responder<::sluice::rpki_client::v1::VrpChangesReply> responder;
  };
  void Subscribe();
  void RetrySubscribe();
  void EndChange();
  // Takes the waiting batches in order until one waits for the listener.
  void Drain();
  absl::StatusOr<rpki::VrpDelta> Plan(const ::sluice::rpki_client::v1::VrpChangesRequest& r);
  // The front batch is applied (or had nothing to apply): it ends the change if it is the last,
  // and is answered.
  void FinishFront();

  ipc::XrlRouter* router_;
  std::string rpki_class_;
  rpki::OriginValidator* set_;
  VrpListener* listener_;
  rpki::VrpFeed feed_;
  uint64_t batches_ = 0;
  uint64_t refused_ = 0;
  bool subscribed_ = false;
  bool rpki_alive_ = false;  // between a birth and a death of the rpki class
  // Counts births and deaths of the rpki class: one subscribe (and its retries) in flight.
  uint64_t generation_ = 0;
  boost::asio::steady_timer retry_timer_;
  std::chrono::milliseconds retry_delay_{200};
  bool change_open_ = false;           // batches applied whose change has not ended yet
  std::deque<Batch> batches_waiting_;  // received, not applied yet; the front may be preparing
  bool preparing_ = false;             // the front batch waits for the listener's ready
  bool draining_ = false;              // inside Drain
  bool end_when_drained_ = false;      // sluice-rpki died while batches waited
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice::bgp::process
