#include "bgp/session/peer_status.h"

#include "absl/strings/str_format.h"

namespace sluice::bgp {

std::string_view ResetCauseName(ResetCause cause) {
  switch (cause) {
    case ResetCause::kUpdateError:
      return "update-error";
    case ResetCause::kMaxPrefix:
      return "max-prefix";
    case ResetCause::kAdjRibInLimit:
      return "adj-rib-in-limit";
    case ResetCause::kHoldTimerExpired:
      return "hold-timer-expired";
    case ResetCause::kNotificationReceived:
      return "notification-received";
    case ResetCause::kMessageError:
      return "message-error";
    case ResetCause::kConnectionLost:
      return "connection-lost";
    case ResetCause::kAdministrative:
      return "administrative";
    case ResetCause::kInternalError:
      return "internal-error";
  }
  return "?";
}

std::string PeerStatus::ToString() const {
  std::string s = absl::StrFormat("%s AS%u %s", address.ToString(), remote_as, FsmStateName(state));
  if (state == FsmState::kEstablished) absl::StrAppendFormat(&s, " up %.0fs", uptime_s);
  absl::StrAppendFormat(&s, " msgs in %u out %u pfx %u/%u/%u", counters.messages_in,
                        counters.messages_out, counters.prefixes_received,
                        counters.prefixes_accepted, counters.prefixes_advertised);
  if (!last_error.empty()) absl::StrAppendFormat(&s, " last error: %s", last_error);
  return s;
}

}  // namespace sluice::bgp
