#pragma once
// Boost.Asio for sluice-replay. Boost 1.74's asio/awaitable.hpp uses std::exchange without
// including <utility>, so <utility> must come first (clang-format would sort it after).
// clang-format off
#include <utility>
#include <boost/asio.hpp>
// clang-format on
