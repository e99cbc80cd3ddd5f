#pragma once
// OriginPolicy: policy on static and connected routes as they enter the RIB (XORP NSDI'05
// §8.3, the RIB's policy on origin tables; policy_backend/1.0 bank "origin:static" /
// "origin:connected", served by rib/service/policy_service.h).
//
// The Rib hands every route of "static" or "connected" here before its origin stage sees it
// (Route), and every delete (Forget). The route as the protocol gave it is kept (these tables
// are small), so a later policy can be applied to it again. The filter runs through RibVarRW:
//   protocol (ro)  the protocol's name     network (ro)  the prefix
//   nexthop  (rw)  the nexthop address     tag     (rw)  the first policy tag (write: the tags
//                                                        become that one tag)
//   med      (rw)  the route's metric (the RIB has no MED; the language's `med` stands for it)
// Other variables read as none and cannot be written (a compile error at the line that tries).
// Reject withholds the route from the RIB.
//
// Configure swaps the filter in (already compiled: a bad policy never gets here) and starts a
// background walk (stage::BackgroundTask, slices of 1,000 routes) that applies it to the kept
// routes in prefix order through `apply`; new routes use the new filter at once. A change during
// a walk restarts it from the first prefix. Reset is Configure with no filter (routes pass
// unchanged).
//
// Single-threaded: the RIB's event loop.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "policy/compiler.h"
#include "policy/filter.h"
#include "rib/route_input.h"
#include "stage/background_task.h"

namespace sluice::rib {

class OriginPolicy {
 public:
  // What the walk does with one kept route: add `filtered` (the policy's result) or, when
  // nullopt, remove `prefix` from the protocol's origin; `done` after each slice (Push).
  using Apply = std::function<void(std::string_view protocol, const net::Prefix& prefix,
                                   const std::optional<RouteInput>& filtered)>;
  using SliceDone = std::function<void(std::string_view protocol)>;

  OriginPolicy(boost::asio::io_context& io, Apply apply, SliceDone slice_done);

  // The protocols that have an origin policy bank.
  static bool Supports(std::string_view protocol) {
    return protocol == "static" || protocol == "connected";
  }
  // What a RIB origin filter may read and write (CompileOptions for the bank).
  static policy::CompileOptions Options();

  // Keeps `route` and returns what enters the RIB (nullopt: rejected). `protocol` must be one
  // Supports() accepts; other protocols' routes pass unchanged and are not kept.
  std::optional<RouteInput> Route(std::string_view protocol, const RouteInput& route);
  // The protocol deleted `prefix`: forgotten. True when it was kept.
  bool Forget(std::string_view protocol, const net::Prefix& prefix);

  // Installs `filter` (null: none) and re-applies it to the kept routes in the background.
  void Configure(std::string_view protocol, std::shared_ptr<const policy::Filter> filter);
  // Re-applies the current filter (push_routes).
  void Push(std::string_view protocol);
  bool configured(std::string_view protocol) const;
  bool refiltering(std::string_view protocol) const;

 private:
  struct Bank {
    std::shared_ptr<const policy::Filter> filter;
    std::map<net::Prefix, RouteInput> routes;  // as the protocol gave them
    std::unique_ptr<stage::BackgroundTask> walk;
    std::optional<net::Prefix> walked;  // the last prefix the walk applied
  };
  Bank& BankFor(std::string_view protocol);
  std::optional<RouteInput> Run(const Bank& bank, std::string_view protocol,
                                const RouteInput& route) const;
  bool Slice(const std::string& protocol);

  boost::asio::io_context& io_;
  Apply apply_;
  SliceDone slice_done_;
  std::map<std::string, Bank, std::less<>> banks_;
};

}  // namespace sluice::rib
