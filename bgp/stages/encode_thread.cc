#include "bgp/stages/encode_thread.h"

#include <pthread.h>

namespace sluice::bgp {

EncodeThread::EncodeThread(std::string thread_name)
    : work_(boost::asio::make_work_guard(io_)), thread_([this, name = std::move(thread_name)] {
        pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
        io_.run();
      }) {}

EncodeThread::~EncodeThread() {
  work_.reset();  // run() returns once every job posted has run
  thread_.join();
}

}  // namespace sluice::bgp
