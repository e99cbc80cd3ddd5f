#pragma once
// CatchFault: the boundary of an event-loop handler (DESIGN.md § Security: no exception crosses
// a handler boundary). Runs a handler's body and turns an exception escaping it into a value the
// caller acts on — failing the one connection or session the handler served — instead of letting
// it unwind through the event loop and end the process.
//
//   if (auto fault = CatchFault([&] { HandleSlice(); })) Fail(fault->ToString());

#include <exception>
#include <new>
#include <optional>
#include <string>

namespace sluice::bgp {

struct HandlerFault {
  std::string what;            // the exception's what(), or "unknown exception"
  bool out_of_memory = false;  // std::bad_alloc (RFC 4486 Cease / Out of Resources)
  std::string ToString() const { return "internal error: " + what; }
};

template <typename Body>
std::optional<HandlerFault> CatchFault(Body&& body) {
  try {
    body();
    return std::nullopt;
  } catch (const std::bad_alloc& e) {
    return HandlerFault{e.what(), true};
  } catch (const std::exception& e) {
    return HandlerFault{e.what(), false};
  } catch (...) {
    return HandlerFault{"unknown exception", false};
  }
}

}  // namespace sluice::bgp
