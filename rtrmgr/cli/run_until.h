#pragma once
// RunUntil: how the CLI's blocking clients (SyncClient, XrlClient) wait for a reply on the
// private io_context they run only while a call is outstanding.

#include <boost/asio/io_context.hpp>
#include <functional>

namespace sluice::rtrmgr::cli {

// Runs `io` until `done()` or `timeout_ms` milliseconds pass, restarting it when it runs out of
// work; returns done().
bool RunUntil(boost::asio::io_context& io, int timeout_ms, const std::function<bool()>& done);

}  // namespace sluice::rtrmgr::cli
