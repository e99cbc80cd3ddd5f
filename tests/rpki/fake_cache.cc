#include "tests/rpki/fake_cache.h"

#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/endian/conversion.hpp>

#include "tests/rpki/cache_pdus.h"

namespace sluice::rpki::testing {

struct FakeCache::Client {
  explicit Client(boost::asio::io_context& io) : socket(io) {}
  boost::asio::ip::tcp::socket socket;
  uint8_t header[12];
};

namespace {

Octets PrefixPdu(const Vrp& v, bool announce) {
  if (v.prefix.is_v4()) {
    return Ipv4Prefix(1, announce, v.prefix.v4().value(), static_cast<uint8_t>(v.prefix.length()),
                      v.max_length, v.asn);
  }
  Octets address(16);
  boost::endian::store_big_u64(address.data(), v.prefix.v6().hi());
  boost::endian::store_big_u64(address.data() + 8, v.prefix.v6().lo());
  return RawPdu(
      1, 6, 0,
      Cat({{uint8_t(announce ? 1 : 0), static_cast<uint8_t>(v.prefix.length()), v.max_length, 0},
           address,
           U32(v.asn)}));
}

}  // namespace

FakeCache::FakeCache(boost::asio::io_context& io, uint16_t session_id)
    : io_(io), session_id_(session_id) {
  Start();
}

FakeCache::~FakeCache() { Stop(); }

void FakeCache::Start() {
  acceptor_ = std::make_unique<boost::asio::ip::tcp::acceptor>(io_);
  const boost::asio::ip::tcp::endpoint endpoint(boost::asio::ip::make_address("127.0.0.1"), port_);
  acceptor_->open(endpoint.protocol());
  acceptor_->set_option(boost::asio::socket_base::reuse_address(true));
  acceptor_->bind(endpoint);
  acceptor_->listen();
  port_ = acceptor_->local_endpoint().port();
  Accept();
}

void FakeCache::Stop() {
  boost::system::error_code ignored;
  if (acceptor_) acceptor_->close(ignored);
  for (auto& weak : clients_) {
    if (auto c = weak.lock()) c->socket.close(ignored);
  }
  clients_.clear();
}

size_t FakeCache::connections() const {
  size_t n = 0;
  for (const auto& weak : clients_) {
    if (auto c = weak.lock(); c && c->socket.is_open()) ++n;
  }
  return n;
}

void FakeCache::Accept() {
  auto client = std::make_shared<Client>(io_);
  acceptor_->async_accept(client->socket, [this, client](const boost::system::error_code& error) {
    if (error) return;
    clients_.push_back(client);
    Read(client);
    Accept();
  });
}

// Queries are 8 (Reset) or 12 (Serial) octets: the header, then the serial if there is one.
void FakeCache::Read(const std::shared_ptr<Client>& client) {
  boost::asio::async_read(
      client->socket, boost::asio::buffer(client->header, 8),
      [this, client](const boost::system::error_code& e, size_t) {
        if (e) return;
        const uint8_t type = client->header[1];
        const uint32_t length = boost::endian::load_big_u32(client->header + 4);
        if (length == 12) {
          boost::system::error_code ignored;
          boost::asio::read(client->socket, boost::asio::buffer(client->header + 8, 4), ignored);
        }
        Answer(client, type, length == 12 ? boost::endian::load_big_u32(client->header + 8) : 0);
        Read(client);
      });
}

void FakeCache::Answer(const std::shared_ptr<Client>& client, uint8_t type, uint32_t serial) {
  ++queries_;
  Octets out = CacheResponse(1, session_id_);
  if (type == 2 || serial > serial_) {  // Reset Query (or a serial we never had: everything)
    for (const Vrp& v : vrps_) out = Cat({out, PrefixPdu(v, true)});
  } else {
    const std::set<Vrp>& then = history_[serial];
    for (const Vrp& v : then) {
      if (!vrps_.contains(v)) out = Cat({out, PrefixPdu(v, false)});
    }
    for (const Vrp& v : vrps_) {
      if (!then.contains(v)) out = Cat({out, PrefixPdu(v, true)});
    }
  }
  out = Cat({out, EndOfData(1, session_id_, serial_, 3600, 600, 7200)});
  boost::system::error_code ignored;
  boost::asio::write(client->socket, boost::asio::buffer(out), ignored);
}

void FakeCache::Set(std::set<Vrp> vrps) {
  vrps_ = std::move(vrps);
  ++serial_;
  history_.push_back(vrps_);
  const Octets notify = SerialNotify(1, session_id_, serial_);
  for (auto& weak : clients_) {
    if (auto c = weak.lock(); c && c->socket.is_open()) {
      boost::system::error_code ignored;
      boost::asio::write(c->socket, boost::asio::buffer(notify), ignored);
    }
  }
}

}  // namespace sluice::rpki::testing
