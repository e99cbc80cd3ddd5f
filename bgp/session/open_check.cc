#include "bgp/session/open_check.h"

#include "absl/strings/str_format.h"
#include "bgp/wire/byte_io.h"
#include "bgp/wire/constants.h"

namespace sluice::bgp {

std::optional<OpenRefusal> CheckPeerOpen(const OpenMessage& open, uint32_t peer_as,
                                         uint32_t local_as, net::IPv4Address local_id,
                                         uint16_t min_hold_time_s) {
  if (open.AsNumber() != peer_as) {
    std::vector<uint8_t> data(2);
    StoreU16(data.data(), open.my_as);
    return OpenRefusal{
        Notification{uint8_t(ErrorCode::kOpenMessage), open_error::kBadPeerAs, std::move(data)},
        absl::StrFormat("the peer is AS%u, AS%u configured", open.AsNumber(), peer_as)};
  }
  if (open.hold_time != 0 && open.hold_time < min_hold_time_s) {
    std::vector<uint8_t> data(2);
    StoreU16(data.data(), open.hold_time);
    return OpenRefusal{Notification{uint8_t(ErrorCode::kOpenMessage),
                                    open_error::kUnacceptableHoldTime, std::move(data)},
                       absl::StrFormat("the peer's hold time %u s is below the minimum %u s",
                                       open.hold_time, min_hold_time_s)};
  }
  if (peer_as == local_as && open.bgp_identifier == local_id) {
    std::vector<uint8_t> data(4);
    StoreU32(data.data(), open.bgp_identifier.value());
    return OpenRefusal{Notification{uint8_t(ErrorCode::kOpenMessage), open_error::kBadBgpIdentifier,
                                    std::move(data)},
                       absl::StrFormat("the iBGP peer's BGP Identifier %s is ours",
                                       open.bgp_identifier.ToString())};
  }
  return std::nullopt;
}

bool KeepOutgoingOnCollision(net::IPv4Address local_id, uint32_t local_as,
                             net::IPv4Address remote_id, uint32_t remote_as) {
  if (local_id != remote_id) return local_id.value() > remote_id.value();
  return local_as > remote_as;
}

}  // namespace sluice::bgp
