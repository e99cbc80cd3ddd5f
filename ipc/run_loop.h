#pragma once
// RunLoop: a daemon's event loop with a last line of defence (DESIGN.md § Security: no
// exception crosses a handler boundary).
//
// Handlers of calls catch their own exceptions (ipc/handler.h) and BGP sessions theirs; an
// exception from any other handler on the loop (a timer, a call's reply callback) would end
// io_context::run() and the process. RunLoop logs it and runs the loop again: the work of that
// one handler is lost, the rest goes on.

#include <boost/asio/io_context.hpp>

namespace sluice::ipc {

// Runs `io` until it is stopped (io_context::stop) or runs out of work.
void RunLoop(boost::asio::io_context& io);

}  // namespace sluice::ipc
