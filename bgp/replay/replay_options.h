#pragma once
// sluice-replay's command line: the options (see --help, or kDescription in replay_options.cc)
// and their parsing on CLI11 (base/program_options.h): --help exits 0, a bad option or a bad
// combination of options exits 2 with a message naming them.

#include <cstdint>
#include <optional>
#include <string>

#include "bgp/replay/asio.h"
#include "net/ip_address.h"

namespace sluice::bgp::replay {

// What the command line asks for; unset optionals and zeros mean "not given".
struct Options {
  std::optional<boost::asio::ip::tcp::endpoint> connect, listen;
  std::optional<uint32_t> local_as;
  bool local_as_capture = false;
  uint32_t peer_as = 0;
  std::optional<net::IPv4Address> router_id;
  std::optional<boost::asio::ip::address> local_address;
  uint16_t hold_time = 90;
  bool extended_messages = false;
  std::string mrt;
  uint64_t synthetic = 0, seed = 1;
  bool receive_only = false;
  bool list_peers = false, all_peers = false;
  std::optional<size_t> peer_index;
  std::optional<net::IPAddress> peer_address;
  std::string mode;
  std::optional<double> pace;
  bool next_hop_self = false;
  std::optional<net::IPv4Address> next_hop;
  std::optional<net::IPv6Address> next_hop6;
  bool prepend_own_as = false;
  double withdraw_after = -1;
  double flap_every = 0;
  uint64_t flaps = 0;
  bool withdraw_on_signal = false;
  uint64_t extra = 0;
  double extra_every = 0;
  int path_variant = -1;
  bool ipv4_only = false;
  uint64_t expect = 0;
  bool wait_eor = false;
  double linger = 0;
  bool json = false, quiet = false;
  std::optional<uint16_t> graceful_restart;
  bool reconnect = false, drop_on_signal = false;
  uint64_t after_reconnect_drop = 0, after_reconnect_add = 0;
};

// Parses argv into `o`. Returns the status to exit with when the program should not go on:
// 0 after --help and --version, 2 after a bad command line (printed on stderr).
std::optional<int> ParseOptions(int argc, char** argv, Options* o);

}  // namespace sluice::bgp::replay
