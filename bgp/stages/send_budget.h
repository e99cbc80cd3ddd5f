#pragma once
// SendBudget: the octets of encoded UPDATEs that all peers together may have queued in their
// sessions, shared out evenly. Each peer's PeerOut blocks its branch when the session's send
// backlog is above the peer's share (PeerOut::Options::budget), so the changes wait in the fanout
// queue, where later changes of a prefix replace earlier ones. One downstream peer gets up to
// `per_peer_max` (a full table leaves faster from a deep queue); with many peers each gets less,
// so that memory follows the table rather than the number of peers (convergence workload 3: 32
// peers × 8 MiB).
//
// share = clamp(total / peers, per_peer_min, per_peer_max), peers = the sessions with a PeerOut
// (a session's IPv4 and IPv6 PeerOuts count once: they share its queue). Single-threaded: the
// event loop's, like the PeerOuts.

#include <cstddef>

#include "absl/container/flat_hash_map.h"

namespace sluice::bgp {

class SendBudget {
 public:
  // Octets. per_peer_min ≤ per_peer_max (per_peer_min is raised to per_peer_max otherwise).
  SendBudget(size_t total, size_t per_peer_min, size_t per_peer_max);
  SendBudget(const SendBudget&) = delete;
  SendBudget& operator=(const SendBudget&) = delete;

  // A PeerOut of the session `session` starts or stops using the budget.
  void Add(const void* session);
  void Remove(const void* session);

  // Each session's share, in octets.
  size_t share() const;
  size_t sessions() const { return users_.size(); }

 private:
  size_t total_;
  size_t per_peer_min_;
  size_t per_peer_max_;
  absl::flat_hash_map<const void*, int> users_;  // session → its PeerOuts
};

}  // namespace sluice::bgp
