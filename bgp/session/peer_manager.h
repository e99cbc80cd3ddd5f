#pragma once
// PeerManager: the BGP process's peers and listeners — the C++ API behind `bgp/1.0`: the
// speaker's AS and BGP Identifier; add, remove, enable and disable peers; list them with their
// state and counters. The RPC adapter only translates.
//
// Wiring with the routing side (bgp/stages): the process gives the manager a RoutingSide before
// adding peers. For each peer added the manager calls RoutingSide::PeerAdded(config, sender): the
// routing side keeps `sender` (the peer's SessionSender) and returns its SessionListener for that
// peer; PeerRemoved(address) comes when the peer is removed, after which `sender` is gone. Without
// a RoutingSide, peers run with no listener (routes are decoded and dropped).
//
// Incoming connections: each listener (Listen) accepts connections and hands each to the peer
// whose address is the connection's source address — and, when the peer has a local address
// configured, only if the connection arrived on that address. Other connections are closed after
// NOTIFICATION Cease / Connection Rejected (RFC 4486 §4, subcode 5).
//
// Single-threaded: every call on the event loop's thread. Peers removed while their own callback
// runs are destroyed after it, on the loop.

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bgp/session/acceptor.h"
#include "bgp/session/asio.h"
#include "bgp/session/message_tap.h"
#include "bgp/session/peer_config.h"
#include "bgp/session/peer_session.h"
#include "bgp/session/peer_status.h"
#include "bgp/session/session_link.h"
#include "bgp/wire/attribute_store.h"

namespace sluice::bgp {

// Implemented by the routing side; see above.
class RoutingSide {
 public:
  virtual ~RoutingSide() = default;
  // A peer was added. Returns the listener its session reports to (the routing side owns it and
  // keeps it until PeerRemoved); `sender` drives the session and stays valid until PeerRemoved.
  virtual SessionListener* PeerAdded(const PeerConfig& config, SessionSender* sender) = 0;
  // The peer is being removed: its session is already down (OnSessionDown came first if it was
  // Established); forget its sender.
  virtual void PeerRemoved(const net::IPAddress& address) = 0;
};

class PeerManager {
 public:
  // `store` interns the attributes of every peer's UPDATEs (shared with the routing side).
  explicit PeerManager(boost::asio::io_context& io,
                       AttributeStore* store = &AttributeStore::Default());
  ~PeerManager();  // Shutdown()
  PeerManager(const PeerManager&) = delete;
  PeerManager& operator=(const PeerManager&) = delete;

  void set_routing_side(RoutingSide* routing) { routing_ = routing; }

  // The speaker's AS (4 octets, RFC 6793) and BGP Identifier. Changing either restarts running
  // sessions with Cease / Other Configuration Change (RFC 4486 subcode 6).
  // Errors: InvalidArgument for AS 0 or identifier 0.0.0.0.
  absl::Status SetLocalAs(uint32_t as);
  absl::Status SetBgpIdentifier(net::IPv4Address id);
  const LocalConfig& local() const { return local_; }

  // Graceful restart as every session offers it (R and F bits, restart time): OPENs sent from now
  // on carry it; peers with PeerConfig::graceful_restart false offer none.
  void SetGracefulRestart(const GracefulRestartConfig& gr);
  const GracefulRestartConfig& graceful_restart() const { return graceful_; }

  // Accepts BGP connections on `address`:`port` (0: a free port). Returns the port bound.
  // Errors: AlreadyExists, or Unavailable when the address cannot be bound.
  absl::StatusOr<uint16_t> Listen(const net::IPAddress& address, uint16_t port);
  // Errors: NotFound.
  absl::Status StopListening(const net::IPAddress& address, uint16_t port);

  // Adds a peer and, if config.enabled, starts its session.
  // Errors: FailedPrecondition before SetLocalAs and SetBgpIdentifier; InvalidArgument from
  // PeerConfig::Validate; AlreadyExists for a known address; Internal when the MD5 key cannot be
  // set on a listener.
  absl::Status AddPeer(const PeerConfig& config);
  // Stops the session with Cease / Peer De-configured (RFC 4486 subcode 3) and forgets the peer.
  absl::Status RemovePeer(const net::IPAddress& address);
  // ManualStart; and ManualStop with Cease / Administrative Shutdown (subcode 2).
  absl::Status EnablePeer(const net::IPAddress& address);
  absl::Status DisablePeer(const net::IPAddress& address);
  // Restarts the session with Cease / Administrative Reset (subcode 4) ("clear bgp neighbor").
  absl::Status ResetPeer(const net::IPAddress& address);
  // Errors of the four: NotFound.

  absl::StatusOr<PeerStatus> GetPeer(const net::IPAddress& address) const;
  std::vector<PeerStatus> ListPeers() const;  // by address
  // The peer's SessionSender (what RoutingSide::PeerAdded was given), or null.
  SessionSender* sender(const net::IPAddress& address);
  // The peer's session, for tests and the process's wiring; null when unknown.
  PeerSession* session(const net::IPAddress& address);

  // Every peer stopped with Cease / Administrative Shutdown (Cease / Hard Reset where both sides
  // set RFC 8538's N bit: the peers drop our routes) and removed; listeners closed.
  void Shutdown();
  // The process exits to be started again (a restart, an upgrade): every connection is closed
  // without a NOTIFICATION, as a crash would, so that peers with graceful restart keep our routes
  // (RFC 4724 §4.2); the peers are removed and listeners closed.
  void CloseForRestart();

  // PBTS: every peer's UPDATEs are decoded on a pool of `threads` threads (off the
  // event loop; PeerSession::set_parse_pool), 0 (the default): on the event loop. Applies to the
  // peers' next sessions; call before adding peers.
  void SetParseThreads(int threads);

  // Monitoring (message_tap.h): every session reports to `tap` from now on, until RemoveTap.
  // The tap outlives its registration; not owned.
  void AddTap(MessageTap* tap);
  void RemoveTap(MessageTap* tap);

 private:
  void OnAccepted(boost::asio::ip::tcp::socket socket);
  void Reject(boost::asio::ip::tcp::socket socket);
  absl::Status SetMd5OnListeners(const net::IPAddress& peer, const std::string& key);
  // Listeners send with TTL 255 while a peer of their family uses GTSM.
  void UpdateListenerTtl();
  void Retire(std::unique_ptr<PeerSession> session);

  boost::asio::io_context& io_;
  AttributeStore* store_;
  RoutingSide* routing_ = nullptr;
  // Shared with every session, which reads it on the loop.
  std::shared_ptr<std::vector<MessageTap*>> taps_ = std::make_shared<std::vector<MessageTap*>>();
  LocalConfig local_;
  GracefulRestartConfig graceful_;
  std::map<net::IPAddress, std::unique_ptr<PeerSession>> peers_;
  std::vector<std::shared_ptr<Acceptor>> acceptors_;
  std::vector<std::unique_ptr<PeerSession>> retired_;
  // Declared last: joined first (its jobs hold no session, only decoders and the loop).
  std::unique_ptr<boost::asio::thread_pool> parse_pool_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice::bgp
