#include "ipc/run_loop.h"

#include <exception>

#include "base/log.h"

namespace sluice::ipc {

void RunLoop(boost::asio::io_context& io) {
  while (true) {
    try {
      io.run();
      return;
    } catch (const std::exception& e) {
      SLUICE_LOG(kError) << "a handler on the event loop threw: " << e.what()
                         << "; its work is lost, the loop goes on";
    } catch (...) {
      SLUICE_LOG(kError) << "a handler on the event loop threw an unknown exception; its work "
                            "is lost, the loop goes on";
    }
  }
}

}  // namespace sluice::ipc
