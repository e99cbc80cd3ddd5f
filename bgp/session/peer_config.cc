#include "bgp/session/peer_config.h"

#include "absl/strings/str_cat.h"

namespace sluice::bgp {

absl::Status PeerConfig::Validate() const {
  const std::string who = absl::StrCat("peer ", address.ToString(), ": ");
  if (address.is_unspecified()) return absl::InvalidArgumentError(who + "no address");
  if (remote_as == 0) return absl::InvalidArgumentError(who + "remote AS 0 (RFC 7607)");
  if (port == 0) return absl::InvalidArgumentError(who + "port 0");
  if (hold_time_s == 1 || hold_time_s == 2) {
    return absl::InvalidArgumentError(absl::StrCat(who, "hold time ", hold_time_s,
                                                   " s: must be 0 or at least 3 (RFC 4271 §4.2)"));
  }
  if (keepalive_s && hold_time_s == 0 && *keepalive_s != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        who, "keepalive time ", *keepalive_s, " s with hold time 0: must be 0 (RFC 4271 §4.4)"));
  }
  if (keepalive_s && hold_time_s != 0 && (*keepalive_s == 0 || *keepalive_s >= hold_time_s)) {
    return absl::InvalidArgumentError(absl::StrCat(who, "keepalive time ", *keepalive_s,
                                                   " s: must be 1..", hold_time_s - 1,
                                                   " (below the hold time, RFC 4271 §4.4)"));
  }
  if (multihop_ttl < 0 || multihop_ttl > 255) {
    return absl::InvalidArgumentError(absl::StrCat(who, "multihop TTL ", multihop_ttl, ": 0..255"));
  }
  if (multihop_ttl > 0 && gtsm_hops > 0) {
    return absl::InvalidArgumentError(who +
                                      "multihop and GTSM (ttl-security) both set the TTL: use one");
  }
  if (min_hold_time_s == 1 || min_hold_time_s == 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(who, "minimum hold time ", min_hold_time_s, " s: must be 0 or at least 3"));
  }
  if (md5_password.size() > 80) {
    return absl::InvalidArgumentError(
        absl::StrCat(who, "MD5 password of ", md5_password.size(), " octets: at most 80"));
  }
  if (gtsm_hops < 0 || gtsm_hops > 254) {
    return absl::InvalidArgumentError(absl::StrCat(who, "GTSM hops ", gtsm_hops, ": 0..254"));
  }
  if (local_address && local_address->family() != address.family()) {
    return absl::InvalidArgumentError(
        absl::StrCat(who, "local address ", local_address->ToString(), " is of the other family"));
  }
  if (!(connect_retry_s > 0) || !(idle_hold_s > 0) || idle_hold_max_s < idle_hold_s ||
      stable_s < 0 || max_prefix.restart_after_s < 0) {
    return absl::InvalidArgumentError(
        who +
        "timers: connect retry and idle hold must be positive, idle hold max at least "
        "idle hold, stable time and max-prefix restart not negative");
  }
  if (families.empty()) return absl::InvalidArgumentError(who + "no address family");
  return absl::OkStatus();
}

}  // namespace sluice::bgp
