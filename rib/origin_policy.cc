#include "rib/origin_policy.h"

#include <utility>

#include "policy/value.h"
#include "policy/var_rw.h"

namespace sluice::rib {

namespace {

constexpr uint64_t kWalkSlice = 1000;  // routes per slice

// The policy VM's view of a route entering the RIB (see the header for the variables).
class RibVarRW : public policy::VarRW {
 public:
  RibVarRW(std::string_view protocol, RouteInput* route) : protocol_(protocol), route_(route) {}
  policy::Value Read(policy::VarId id) override {
    switch (id) {
      case policy::VarId::kProtocol:
        return policy::Value::Text(protocol_);
      case policy::VarId::kNetwork:
        return policy::Value::Of(route_->network);
      case policy::VarId::kNexthop:
        return route_->nexthop ? policy::Value::Of(*route_->nexthop) : policy::Value::None();
      case policy::VarId::kTag:
        return route_->tags.empty() ? policy::Value::None() : policy::Value::U32(route_->tags[0]);
      case policy::VarId::kMed:
        return policy::Value::U32(route_->metric);
      default:
        return policy::Value::None();
    }
  }
  void Write(policy::VarId id, const policy::Value& v) override {
    switch (id) {
      case policy::VarId::kNexthop:
        // Only an address of the route's family; `self`/`peer` mean nothing in the RIB.
        if (v.kind() == policy::ValueKind::kAddress &&
            v.address().family() == route_->network.family() && !v.address().is_unspecified()) {
          route_->nexthop = v.address();
        }
        return;
      case policy::VarId::kTag:
        if (v.kind() == policy::ValueKind::kU32) route_->tags = {v.u32()};
        return;
      case policy::VarId::kMed:
        if (v.kind() == policy::ValueKind::kU32) route_->metric = v.u32();
        return;
      default:
        return;
    }
  }

 private:
  std::string_view protocol_;
  RouteInput* route_;
};

}  // namespace

OriginPolicy::OriginPolicy(boost::asio::io_context& io, Apply apply, SliceDone slice_done)
    : io_(io), apply_(std::move(apply)), slice_done_(std::move(slice_done)) {}

policy::CompileOptions OriginPolicy::Options() {
  policy::CompileOptions o;
  o.readable = policy::VarSet()
                   .Add(policy::VarId::kProtocol)
                   .Add(policy::VarId::kNetwork)
                   .Add(policy::VarId::kNexthop)
                   .Add(policy::VarId::kTag)
                   .Add(policy::VarId::kMed);
  o.writable = policy::VarSet()
                   .Add(policy::VarId::kNexthop)
                   .Add(policy::VarId::kTag)
                   .Add(policy::VarId::kMed);
  return o;
}

OriginPolicy::Bank& OriginPolicy::BankFor(std::string_view protocol) {
  auto it = banks_.find(protocol);
  if (it == banks_.end()) it = banks_.emplace(std::string(protocol), Bank()).first;
  return it->second;
}

std::optional<RouteInput> OriginPolicy::Run(const Bank& bank, std::string_view protocol,
                                            const RouteInput& route) const {
  if (bank.filter == nullptr) return route;
  RouteInput out = route;
  RibVarRW rw(protocol, &out);
  if (!bank.filter->Run(rw).accepted()) return std::nullopt;
  if (ValidateRouteInput(out).ok()) return out;
  return route;  // a write made it invalid (cannot happen with the writes above): unchanged
}

std::optional<RouteInput> OriginPolicy::Route(std::string_view protocol, const RouteInput& route) {
  if (!Supports(protocol)) return route;
  Bank& bank = BankFor(protocol);
  bank.routes[route.network] = route;
  return Run(bank, protocol, route);
}

bool OriginPolicy::Forget(std::string_view protocol, const net::Prefix& prefix) {
  auto it = banks_.find(protocol);
  return it != banks_.end() && it->second.routes.erase(prefix) > 0;
}

void OriginPolicy::Configure(std::string_view protocol,
                             std::shared_ptr<const policy::Filter> filter) {
  Bank& bank = BankFor(protocol);
  bank.filter = std::move(filter);
  Push(protocol);
}

void OriginPolicy::Push(std::string_view protocol) {
  Bank& bank = BankFor(protocol);
  bank.walked.reset();
  if (bank.walk == nullptr) {
    const std::string name(protocol);
    bank.walk = std::make_unique<stage::BackgroundTask>(io_, "origin policy " + name,
                                                        [this, name] { return Slice(name); });
  }
  bank.walk->Cancel();  // a walk under way starts over with the new filter
  bank.walk->Start();
}

bool OriginPolicy::Slice(const std::string& protocol) {
  Bank& bank = BankFor(protocol);
  auto it = bank.walked ? bank.routes.upper_bound(*bank.walked) : bank.routes.begin();
  uint64_t n = 0;
  for (; it != bank.routes.end() && n < kWalkSlice; ++it, ++n) {
    apply_(protocol, it->first, Run(bank, protocol, it->second));
    bank.walked = it->first;
  }
  slice_done_(protocol);
  return it != bank.routes.end();
}

bool OriginPolicy::configured(std::string_view protocol) const {
  auto it = banks_.find(protocol);
  return it != banks_.end() && it->second.filter != nullptr;
}

bool OriginPolicy::refiltering(std::string_view protocol) const {
  auto it = banks_.find(protocol);
  return it != banks_.end() && it->second.walk != nullptr && it->second.walk->running();
}

}  // namespace sluice::rib
