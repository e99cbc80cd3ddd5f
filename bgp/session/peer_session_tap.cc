// PeerSession's side of monitoring (message_tap.h): what each MessageTap is told, and when.

#include "bgp/session/peer_session.h"
#include "bgp/wire/notification.h"

namespace sluice::bgp {

TapPeer PeerSession::MakeTapPeer(std::optional<Side> side) const {
  TapPeer peer;
  peer.remote_address = config_.address;
  peer.local_as = local_.as;
  peer.remote_as = config_.remote_as;
  const Connection* c = side ? conns_[int(*side)].get() : nullptr;
  if (c != nullptr && c->remote_endpoint().port() != 0) {
    peer.remote_port = c->remote_endpoint().port();
    peer.local_address = FromAsio(c->local_endpoint().address());
    peer.local_port = c->local_endpoint().port();
  } else if (established_ || info_.remote_as != 0) {  // the current or last session's
    peer.remote_port = remote_port_;
    peer.local_address = info_.local_address;
    peer.local_port = local_port_;
  }
  if (info_.remote_as != 0) {
    peer.remote_as = info_.remote_as;
    peer.remote_bgp_id = info_.remote_bgp_id;
    peer.four_octet_as = info_.params.four_octet_as;
  }
  return peer;
}

void PeerSession::TapStateChange(FsmState old_state) {
  const TapPeer peer = MakeTapPeer(established_);
  for (MessageTap* tap : *taps_) tap->OnStateChange(peer, old_state, fsm_.state());
}

void PeerSession::TapMessage(Side side, Bytes message) {
  if (message[18] == uint8_t(MessageType::kOpen)) {
    received_open_[int(side)].assign(message.begin(), message.end());
  }
  if (!tapped()) return;
  const TapPeer peer = MakeTapPeer(side);
  for (MessageTap* tap : *taps_) tap->OnMessageReceived(peer, message);
}

void PeerSession::TapSentMessage(Side side, const std::vector<uint8_t>& message) {
  if (message[18] == uint8_t(MessageType::kOpen)) sent_open_[int(side)] = message;
}

void PeerSession::TapPeerUp(Side side) {
  const TapPeer peer = MakeTapPeer(side);
  for (MessageTap* tap : *taps_) {
    tap->OnPeerUp(peer, info_, sent_open_[int(side)], received_open_[int(side)]);
  }
}

void PeerSession::TapPeerDown(const FsmAction& down) {
  std::vector<uint8_t> notification;
  TapDownReason reason = TapDownReason::kRemoteNoNotification;
  if (down.notification) {
    AppendNotification(*down.notification, &notification);
    reason = down.notification_received ? TapDownReason::kRemoteNotification
                                        : TapDownReason::kLocalNotification;
  } else if (!enabled_) {
    reason = TapDownReason::kLocalNoNotification;
  }
  const TapPeer peer = MakeTapPeer(established_);
  for (MessageTap* tap : *taps_) tap->OnPeerDown(peer, reason, notification);
}

}  // namespace sluice::bgp
