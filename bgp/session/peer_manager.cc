#include "bgp/session/peer_manager.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"

namespace sluice::bgp {
namespace {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
}  // namespace

PeerManager::PeerManager(asio::io_context& io, AttributeStore* store) : io_(io), store_(store) {}

PeerManager::~PeerManager() {
  Shutdown();
  alive_.reset();
}

absl::Status PeerManager::SetLocalAs(uint32_t as) {
  if (as == 0) return absl::InvalidArgumentError("local AS 0 (RFC 7607)");
  local_.as = as;
  if (local_.complete()) {
    for (auto& [address, peer] : peers_) peer->SetLocal(local_);
  }
  return absl::OkStatus();
}

absl::Status PeerManager::SetBgpIdentifier(net::IPv4Address id) {
  if (id.value() == 0) return absl::InvalidArgumentError("BGP Identifier 0.0.0.0 (RFC 6286)");
  local_.bgp_id = id;
  if (local_.complete()) {
    for (auto& [address, peer] : peers_) peer->SetLocal(local_);
  }
  return absl::OkStatus();
}

// ---- listeners ----

absl::StatusOr<uint16_t> PeerManager::Listen(const net::IPAddress& address, uint16_t port) {
  for (const auto& a : acceptors_) {
    if (a->address() == address && port != 0 && a->port() == port) {
      return absl::AlreadyExistsError(
          absl::StrCat("already listening on ", address.ToString(), " port ", port));
    }
  }
  const std::weak_ptr<bool> alive = alive_;
  auto acceptor = Acceptor::Open(io_, address, port, [this, alive](tcp::socket socket) {
    if (!alive.expired()) OnAccepted(std::move(socket));
  });
  if (!acceptor.ok()) return acceptor.status();
  for (const auto& [peer_address, peer] : peers_) {
    if (peer->config().md5_password.empty()) continue;
    absl::Status st = (*acceptor)->SetMd5Key(peer_address, peer->config().md5_password);
    if (!st.ok()) {
      (*acceptor)->Close();
      return absl::InternalError(absl::StrCat("peer ", peer_address.ToString(),
                                              ": MD5 key on the listener: ", st.message()));
    }
  }
  acceptors_.push_back(*acceptor);
  UpdateListenerTtl();
  SLUICE_LOG(kInfo) << "listening for BGP on " << address.ToString() << " port "
                    << acceptors_.back()->port();
  return acceptors_.back()->port();
}

absl::Status PeerManager::StopListening(const net::IPAddress& address, uint16_t port) {
  for (auto it = acceptors_.begin(); it != acceptors_.end(); ++it) {
    if ((*it)->address() == address && (*it)->port() == port) {
      (*it)->Close();
      acceptors_.erase(it);
      return absl::OkStatus();
    }
  }
  return absl::NotFoundError(absl::StrCat("not listening on ", address.ToString(), " port ", port));
}

absl::Status PeerManager::SetMd5OnListeners(const net::IPAddress& peer, const std::string& key) {
  for (const auto& a : acceptors_) {
    absl::Status st = a->SetMd5Key(peer, key);
    if (!st.ok()) {
      return absl::InternalError(
          absl::StrCat("peer ", peer.ToString(), ": MD5 key on the listener: ", st.message()));
    }
  }
  return absl::OkStatus();
}

void PeerManager::UpdateListenerTtl() {
  for (const auto& a : acceptors_) {
    bool gtsm = false;
    for (const auto& [address, peer] : peers_) {
      gtsm |= peer->config().gtsm_hops > 0 && address.family() == a->address().family();
    }
    absl::Status st = a->SetTtl255(gtsm);
    if (!st.ok()) {
      SLUICE_LOG(kWarning) << "listener " << a->address().ToString() << ": " << st.message();
    }
  }
}

void PeerManager::OnAccepted(tcp::socket socket) {
  boost::system::error_code ec;
  const tcp::endpoint remote = socket.remote_endpoint(ec);
  const tcp::endpoint local = socket.local_endpoint(ec);
  if (ec) return;  // already gone
  const net::IPAddress from = FromAsio(remote.address());
  auto it = peers_.find(from);
  if (it == peers_.end()) {
    SLUICE_LOG(kInfo) << "connection from " << from.ToString()
                      << " refused: no such peer configured";
    return Reject(std::move(socket));
  }
  const PeerConfig& config = it->second->config();
  if (config.local_address && *config.local_address != FromAsio(local.address())) {
    SLUICE_LOG(kInfo) << "connection from " << from.ToString() << " to "
                      << local.address().to_string() << " refused: the peer's local address is "
                      << config.local_address->ToString();
    return Reject(std::move(socket));
  }
  it->second->Accept(std::move(socket));
}

void PeerManager::Reject(tcp::socket socket) {
  auto c = Connection::Accepted(io_, nullptr, std::move(socket), ConnectionOptions());
  std::vector<uint8_t> wire;
  AppendNotification(Notification{uint8_t(ErrorCode::kCease), cease::kConnectionRejected, {}},
                     &wire);
  c->SendUrgent(std::move(wire));
  c->Close();
}

// ---- peers ----

absl::Status PeerManager::AddPeer(const PeerConfig& config) {
  if (!local_.complete()) {
    return absl::FailedPreconditionError("set the local AS and BGP Identifier before adding peers");
  }
  RETURN_IF_ERROR(config.Validate());
  if (peers_.count(config.address)) {
    return absl::AlreadyExistsError(absl::StrCat("peer ", config.address.ToString(), " exists"));
  }
  if (!config.md5_password.empty()) {
    absl::Status st = SetMd5OnListeners(config.address, config.md5_password);
    if (!st.ok()) {
      (void)SetMd5OnListeners(config.address, "");
      return st;
    }
  }
  auto session = std::make_unique<PeerSession>(io_, config, local_, store_);
  PeerSession* s = session.get();
  peers_.emplace(config.address, std::move(session));
  if (config.gtsm_hops > 0) UpdateListenerTtl();
  s->set_parse_pool(parse_pool_.get());
  s->set_taps(taps_);
  s->SetGracefulRestart(graceful_);
  if (routing_) s->set_listener(routing_->PeerAdded(config, s));
  if (config.enabled) s->Start();
  return absl::OkStatus();
}

absl::Status PeerManager::RemovePeer(const net::IPAddress& address) {
  auto it = peers_.find(address);
  if (it == peers_.end()) return absl::NotFoundError(absl::StrCat("no peer ", address.ToString()));
  std::unique_ptr<PeerSession> session = std::move(it->second);
  peers_.erase(it);
  session->Stop(cease::kPeerDeconfigured);
  if (!session->config().md5_password.empty()) (void)SetMd5OnListeners(address, "");
  if (session->config().gtsm_hops > 0) UpdateListenerTtl();
  if (routing_) routing_->PeerRemoved(address);
  session->set_listener(nullptr);
  Retire(std::move(session));
  return absl::OkStatus();
}

void PeerManager::Retire(std::unique_ptr<PeerSession> session) {
  // Destroyed on the loop, after whatever callback may have led here.
  retired_.push_back(std::move(session));
  asio::post(io_, [this, alive = std::weak_ptr<bool>(alive_)] {
    if (!alive.expired()) retired_.clear();
  });
}

absl::Status PeerManager::EnablePeer(const net::IPAddress& address) {
  PeerSession* s = session(address);
  if (s == nullptr) return absl::NotFoundError(absl::StrCat("no peer ", address.ToString()));
  s->Start();
  return absl::OkStatus();
}

absl::Status PeerManager::DisablePeer(const net::IPAddress& address) {
  PeerSession* s = session(address);
  if (s == nullptr) return absl::NotFoundError(absl::StrCat("no peer ", address.ToString()));
  s->Stop(cease::kAdministrativeShutdown);
  return absl::OkStatus();
}

absl::Status PeerManager::ResetPeer(const net::IPAddress& address) {
  PeerSession* s = session(address);
  if (s == nullptr) return absl::NotFoundError(absl::StrCat("no peer ", address.ToString()));
  s->Reset(cease::kAdministrativeReset);
  return absl::OkStatus();
}

absl::StatusOr<PeerStatus> PeerManager::GetPeer(const net::IPAddress& address) const {
  auto it = peers_.find(address);
  if (it == peers_.end()) return absl::NotFoundError(absl::StrCat("no peer ", address.ToString()));
  return it->second->Status();
}

std::vector<PeerStatus> PeerManager::ListPeers() const {
  std::vector<PeerStatus> out;
  out.reserve(peers_.size());
  for (const auto& [address, peer] : peers_) out.push_back(peer->Status());
  return out;
}

SessionSender* PeerManager::sender(const net::IPAddress& address) { return session(address); }

PeerSession* PeerManager::session(const net::IPAddress& address) {
  auto it = peers_.find(address);
  return it == peers_.end() ? nullptr : it->second.get();
}

void PeerManager::SetGracefulRestart(const GracefulRestartConfig& gr) {
  graceful_ = gr;
  for (auto& [address, peer] : peers_) peer->SetGracefulRestart(graceful_);
}

void PeerManager::CloseForRestart() {
  while (!peers_.empty()) {
    std::unique_ptr<PeerSession> session = std::move(peers_.begin()->second);
    const net::IPAddress address = peers_.begin()->first;
    peers_.erase(peers_.begin());
    session->set_listener(nullptr);  // our side exits: nothing to withdraw
    if (routing_) routing_->PeerRemoved(address);
    session.reset();  // closes its connections without a NOTIFICATION
  }
  for (auto& a : acceptors_) a->Close();
  acceptors_.clear();
}

void PeerManager::Shutdown() {
  while (!peers_.empty()) {
    std::unique_ptr<PeerSession> session = std::move(peers_.begin()->second);
    const net::IPAddress address = peers_.begin()->first;
    peers_.erase(peers_.begin());
    session->Stop(cease::kAdministrativeShutdown);
    if (routing_) routing_->PeerRemoved(address);
    session->set_listener(nullptr);
    retired_.push_back(std::move(session));
  }
  for (auto& a : acceptors_) a->Close();
  acceptors_.clear();
  retired_.clear();
}

}  // namespace sluice::bgp

namespace sluice::bgp {

void PeerManager::AddTap(MessageTap* tap) {
  if (std::find(taps_->begin(), taps_->end(), tap) == taps_->end()) taps_->push_back(tap);
}

void PeerManager::RemoveTap(MessageTap* tap) {
  taps_->erase(std::remove(taps_->begin(), taps_->end(), tap), taps_->end());
}

void PeerManager::SetParseThreads(int threads) {
  std::unique_ptr<boost::asio::thread_pool> pool;
  if (threads > 0) pool = std::make_unique<boost::asio::thread_pool>(size_t(threads));
  for (auto& [address, session] : peers_) session->set_parse_pool(pool.get());
  if (parse_pool_) parse_pool_->join();
  parse_pool_ = std::move(pool);
}

}  // namespace sluice::bgp
