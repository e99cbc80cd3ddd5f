#include "bgp/session/acceptor.h"

#include "absl/strings/str_format.h"
#include "base/log.h"
#include "bgp/session/handler_fault.h"
#include "bgp/session/socket_options.h"

namespace sluice::bgp {
namespace {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
}  // namespace

Acceptor::Acceptor(asio::io_context& io, Handler handler)
    : acceptor_(io), handler_(std::move(handler)) {}

Acceptor::~Acceptor() { Close(); }

absl::StatusOr<std::shared_ptr<Acceptor>> Acceptor::Open(asio::io_context& io,
                                                         const net::IPAddress& address,
                                                         uint16_t port, Handler handler) {
  auto a = std::make_shared<Acceptor>(io, std::move(handler));
  const tcp::endpoint endpoint(ToAsio(address), port);
  boost::system::error_code ec;
  a->acceptor_.open(endpoint.protocol(), ec);
  if (!ec) a->acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec && address.is_v6()) a->acceptor_.set_option(asio::ip::v6_only(true), ec);
  if (!ec) a->acceptor_.bind(endpoint, ec);
  if (!ec) a->acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrFormat("cannot listen on %s port %d: %s", address.ToString(), port, ec.message()));
  }
  a->address_ = address;
  a->port_ = a->acceptor_.local_endpoint(ec).port();
  a->AcceptNext();
  return a;
}

absl::Status Acceptor::SetMd5Key(const net::IPAddress& peer, const std::string& key) {
  if (peer.family() != address_.family() || !acceptor_.is_open()) return absl::OkStatus();
  return SetTcpMd5Key(acceptor_.native_handle(), peer, key);
}

absl::Status Acceptor::SetTtl255(bool on) {
  if (!acceptor_.is_open()) return absl::OkStatus();
  return SetOutgoingTtl(acceptor_.native_handle(), address_.family(), on ? 255 : -1);
}

void Acceptor::Close() {
  boost::system::error_code ec;
  acceptor_.close(ec);
}

void Acceptor::AcceptNext() {
  acceptor_.async_accept(
      [self = shared_from_this()](const boost::system::error_code& ec, tcp::socket socket) {
        if (!self->acceptor_.is_open()) return;
        if (!ec) {
          // The handler matches the connection to a peer; whatever goes wrong there costs this
          // connection only, and the listener keeps accepting.
          if (auto fault = CatchFault([&] { self->handler_(std::move(socket)); })) {
            SLUICE_LOG(kError) << "listener " << self->address_.ToString() << " port "
                               << self->port_ << ": " << fault->ToString();
          }
        } else if (ec == asio::error::operation_aborted) {
          return;
        } else {
          SLUICE_LOG(kWarning) << "listener " << self->address_.ToString() << " port "
                               << self->port_ << ": accept failed: " << ec.message();
        }
        self->AcceptNext();
      });
}

}  // namespace sluice::bgp
