#pragma once
// FeaFeeds: the FEAs sluice-rib feeds, followed through the Finder's births and deaths (XORP
// NSDI'05 §6; DESIGN.md § Processes: one sluice-rib feeding FIBs to several sluice-fea).
//
// Every live component of class "fea" — or only the instance named by `Options::instance` —
// is fed: at its first birth it gets its own XrlFibClient and a Rib FEA of its instance name
// (Rib::AddFea: a FeaOut per family with its own flow control, re-send and bounded backlog).
//
//   birth of FEA X ─► XrlFibClient(X).FeaBorn: start_full_push to X; a subscription to X's
//                     interfaces; once X has reported them (its first dump, or at once when
//                     the RIB knows them from an earlier life; at most Options::interfaces_wait),
//                     Rib::FeaBorn(X): the whole FIB re-sent to X alone, each route only if its
//                     nexthop is on-link there (fea_resolve_stage.h); the others see nothing
//   death of FEA X ─► XrlFibClient(X).FeaDied, Rib::FeaDied(X): nothing more for X until it is
//                     born again; the others go on
//
// One FullPushGate (full_push_gate.h) serves them all: it is about the RIB's restart. Every FEA's
// interfaces go to its own view in the Rib (Rib::FeaInterfaceEvents), whose subnets join the
// RIB's connected routes; those of one FEA at a time, the first born, are also the shared
// interface events (Rib::interface_events(), whose end of dump is the connected routes'
// end-of-RIB); when it dies, another live one's, whose dump then corrects them.
//
// Everything on the router's event loop.

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/backoff.h"
#include "ipc/xrl_router.h"
#include "rib/rib.h"
#include "rib/service/full_push_gate.h"
#include "rib/service/xrl_fib_client.h"
#include "rib/service/xrl_interface_source.h"

namespace sluice::rib {

class FeaFeeds {
 public:
  struct Options {
    std::string instance;  // empty: every component of class "fea"
    // How long a newly born FEA's FIB waits for its interfaces; then it is sent unfiltered.
    std::chrono::milliseconds interfaces_wait{5000};
  };
  // `router`, `rib`, `gate` and `interfaces` outlive this. `on_change(live)` runs after each
  // birth and death the RIB acts on, with the number of live FEAs.
  FeaFeeds(boost::asio::io_context& io, ipc::XrlRouter& router, Rib& rib, FullPushGate& gate,
           XrlInterfaceSource& interfaces, Options options,
           std::function<void(size_t live)> on_change = nullptr);
  ~FeaFeeds();
  FeaFeeds(const FeaFeeds&) = delete;
  FeaFeeds& operator=(const FeaFeeds&) = delete;

  // Starts watching (before or after router.Start()).
  void Start();

  size_t live() const { return live_.size(); }
  // The FEA the interfaces come from; empty while none.
  const std::string& interfaces_from() const { return interfaces_from_; }
  // `fea`'s client, or nullptr before its first birth.
  const XrlFibClient* client(const std::string& fea) const;
  // One line per FEA ever born, then the gate.
  std::string Describe() const;

 private:
  void OnEvent(const ipc::TargetEvent& event);
  void Born(const std::string& fea);
  // `fea`'s FIB is sent once its interfaces are known, or after interfaces_wait.
  void FeedWhenInterfacesKnown(const std::string& fea);
  void OnInterfacesSynced(const std::string& fea);
  void Died(const std::string& fea);
  XrlFibClient* Ensure(const std::string& fea);
  // Subscribes to `fea`'s interfaces. A subscribe that fails (an FEA registers before it
  // serves; a call lost on the way) is made again while `fea` lives: after 0.2 s, doubling up
  // to 5 s. The FEA answers each subscribe with a whole dump, so one too many does no harm.
  void SubscribeInterfaces(const std::string& fea);
  void SubscribeFailed(const std::string& fea, uint64_t id);

  boost::asio::io_context& io_;
  ipc::XrlRouter& router_;
  Rib& rib_;
  FullPushGate& gate_;
  XrlInterfaceSource& interfaces_;
  Options options_;
  std::function<void(size_t)> on_change_;
  std::map<std::string, std::unique_ptr<XrlFibClient>> clients_;  // every FEA ever born
  std::set<std::string> live_;
  std::string interfaces_from_;
  // FEAs born whose FIB waits for their interfaces, each with its timer.
  std::map<std::string, std::unique_ptr<boost::asio::steady_timer>> awaiting_;
  // The live FEAs' interface subscribes; a death ends its FEA's retries.
  struct InterfaceSubscribe {
    explicit InterfaceSubscribe(boost::asio::io_context& io) : retry(io) {}
    uint64_t id = 0;  // of the subscribe that counts: a later one replaces it
    Backoff backoff{0.2, 5, std::chrono::seconds(60)};
    boost::asio::steady_timer retry;
  };
  std::map<std::string, std::unique_ptr<InterfaceSubscribe>> subscribes_;
  uint64_t subscribe_ids_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice::rib
