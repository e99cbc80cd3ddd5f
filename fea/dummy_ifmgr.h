#pragma once
// DummyIfMgr: an interface tree that comes from configuration, for routers whose FEA does not
// touch a kernel (tests, simulations, a control plane feeding a remote forwarding engine). The
// router manager calls the methods below; each change is reported to watchers at once, on the
// caller's thread (the event loop).
//
// It starts with the loopback interface "lo" (index 1, enabled, carrier, MTU 65536) holding
// 127.0.0.1/8 and ::1/128; other interfaces get indices 2, 3, ... in the order they are added
// (an index is never reused).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fea/ifmgr.h"

namespace sluice::fea {

struct DummyInterfaceConfig {
  std::string name;     // 1..15 octets of [A-Za-z0-9_.-]
  uint32_t mtu = 1500;  // octets, 68..65536
  MacAddress mac;       // zero: none
  bool enabled = true;  // administratively up
  bool carrier = true;  // link up
};

class DummyIfMgr : public IfMgr {
 public:
  // `with_loopback` false starts with an empty tree.
  explicit DummyIfMgr(bool with_loopback = true);

  std::string_view backend_name() const override { return "dummy"; }
  absl::Status Start() override { return absl::OkStatus(); }

  // Returns the new interface's index. Errors: InvalidArgument (bad name or MTU),
  // AlreadyExists (the name is taken).
  absl::StatusOr<uint32_t> AddInterface(const DummyInterfaceConfig& config);
  // Removes the interface and its addresses. Errors: NotFound.
  absl::Status RemoveInterface(std::string_view name);
  // Errors: NotFound. No event when nothing changes.
  absl::Status SetEnabled(std::string_view name, bool enabled);
  absl::Status SetCarrier(std::string_view name, bool carrier);
  absl::Status SetMtu(std::string_view name, uint32_t mtu);  // also InvalidArgument
  absl::Status SetMac(std::string_view name, const MacAddress& mac);
  // Adds `address`/`prefix_length` to the interface (a second call with another length
  // changes it). Errors: NotFound (interface), InvalidArgument (length out of range, or an
  // unspecified or multicast address).
  absl::Status AddAddress(std::string_view name, const net::IPAddress& address, int prefix_length);
  // Errors: NotFound (interface or address).
  absl::Status RemoveAddress(std::string_view name, const net::IPAddress& address);

 private:
  absl::StatusOr<const Interface*> Find(std::string_view name) const;
  absl::Status UpdateLink(std::string_view name, const std::function<void(Interface&)>& change);

  uint32_t next_index_ = 1;
};

}  // namespace sluice::fea
