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
               std::vector<std::string> unknown_origin, std::function<void()> on_open);

  // The protocols the FEA holds routes of ("" for unknown origin).
  void Expect(const std::vector<std::string>& protocols);
  // `protocol` has (re-)fed the RIB.
  void EndOfRib(std::string_view protocol);
  bool open() const { return open_; }
  // "open" or "waiting for ebgp, static (41 s left)".
  std::string Describe() const;

 private:
  void Open(const char* why);

  boost::asio::steady_timer timer_;
  std::vector<std::string> unknown_origin_;
  std::function<void()> on_open_;
  std::set<std::string, std::less<>> fed_;      // end-of-RIB seen since the start
  std::set<std::string, std::less<>> waiting_;  // expected and not fed yet
  bool expected_ = false;
  bool open_ = false;
};

}  // namespace sluice::rib
