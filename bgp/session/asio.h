#pragma once
// Boost.Asio for the session transport. Boost 1.74's asio/awaitable.hpp uses std::exchange without
// including <utility>, so <utility> must come first (clang-format would sort it after).
// clang-format off
#include <utility>
#include <boost/asio.hpp>
// clang-format on

#include "net/ip_address.h"

namespace sluice::bgp {

// Conversions between net::IPAddress and Asio's address.
boost::asio::ip::address ToAsio(const net::IPAddress& address);
net::IPAddress FromAsio(const boost::asio::ip::address& address);

}  // namespace sluice::bgp
