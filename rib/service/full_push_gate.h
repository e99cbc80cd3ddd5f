#pragma once
// FullPushGate: when a RIB that has just started lets the FEA sweep (DESIGN.md § Restarts, the
// `sluice-rib` row).
//
// A new RIB starts empty while the FEA still forwards with what the previous RIB installed. Its
// first full push (fea_fib/1.0 start_full_push ... complete_full_push) must not let the FEA
// remove those routes before the protocols have re-fed the new RIB. So complete_full_push waits
// until every protocol the FEA holds routes of (start_full_push's reply) has said end-of-RIB
// since the RIB started (rib/1.0 end_of_rib; "connected" when the interfaces are synced), or
// until `restart_time` after the RIB started. Routes of unknown origin (an FEA that itself
// adopted them from the kernel, reported as protocol "") stand for the `unknown_origin`
// protocols, those the configuration says will come. Once open, the gate stays open: later
// pushes (an FEA that restarted) complete as soon as the RIB has re-sent its table.
//
// One gate serves every FEA the RIB feeds (it is about the RIB's restart): each FEA's
// start_full_push reply adds the protocols it holds. The first FEA to answer decides alone
// whether there is anything to wait for: if it holds no routes, the gate opens before a later
// FEA's answer can add its protocols.
//
// Nexthop questions (register_interest) wait too, for less: until the IGP protocols among
// those (connected, static, ospf... — what EGP nexthops resolve through) have re-fed the RIB.
// A restarted RIB that answered at once would call BGP's nexthops unresolvable, and BGP would
// withdraw everything. If no FEA has answered within `discovery` of the start (a RIB with no
// FEA: nothing to protect), or once the gate is open, they are answered at once.
//
// Runs on the RIB's event loop.

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::rib {

class FullPushGate {
 public:
  // The restart time runs from now. `on_open` is called once, when the gate opens.
  FullPushGate(boost::asio::io_context& io, std::chrono::seconds restart_time,
               std::vector<std::string> unknown_origin, std::function<void()> on_open,
               std::chrono::milliseconds discovery = std::chrono::milliseconds(2000));

  // The protocols the FEA holds routes of ("" for unknown origin).
  void Expect(const std::vector<std::string>& protocols);
  // `protocol` has (re-)fed the RIB.
  void EndOfRib(std::string_view protocol);
  bool open() const { return open_; }
  // Adds a listener called when the gate opens (after `on_open`); never when it already is.
  void WhenOpen(std::function<void()> fn) { open_listeners_.push_back(std::move(fn)); }
  // Whether nexthop questions may be answered; else `fn` runs once they may.
  bool igp_ready() const { return igp_ready_; }
  void WhenIgpReady(std::function<void()> fn);
  // "open" or "waiting for ebgp, static (41 s left)".
  std::string Describe() const;

 private:
  void Open(const char* why);
  void CheckIgp();
  void IgpReady();

  boost::asio::steady_timer timer_;
  boost::asio::steady_timer discovery_;
  bool igp_ready_ = false;
  std::vector<std::function<void()>> igp_waiters_;
  std::vector<std::string> unknown_origin_;
  std::function<void()> on_open_;
  std::vector<std::function<void()>> open_listeners_;
  std::set<std::string, std::less<>> fed_;      // end-of-RIB seen since the start
  std::set<std::string, std::less<>> waiting_;  // expected and not fed yet
  bool expected_ = false;
  bool open_ = false;
};

}  // namespace sluice::rib
