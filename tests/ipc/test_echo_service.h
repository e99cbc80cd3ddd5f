#pragma once
// TestEchoService: the test_echo/1.0 handlers (tests/ipc/proto/test_echo.proto) on a router,
// for the router tests and the sluice-test-component program.

#include <cstdint>
#include <map>

#include "absl/status/status.h"
#include "ipc/method.h"
#include "ipc/xrl_router.h"
#include "tests/ipc/proto/test_echo.pb.h"

namespace boost::asio {
class io_context;
}

namespace sluice::test_echo {

namespace tv1 = sluice::test_echo::v1;

inline const ipc::Method<tv1::EchoRequest, tv1::EchoReply> kEcho{"test_echo/1.0/echo"};
inline const ipc::Method<tv1::AddRequest, tv1::AddReply> kAdd{"test_echo/1.0/add"};
inline const ipc::Method<tv1::RecordRequest, tv1::RecordReply> kRecord{"test_echo/1.0/record"};
inline const ipc::Method<tv1::DelayRequest, tv1::DelayReply> kDelay{"test_echo/1.0/delay"};
inline const ipc::Method<tv1::FailRequest, tv1::FailReply> kFail{"test_echo/1.0/fail"};
inline const ipc::Method<tv1::AddRoutesRequest, tv1::AddRoutesReply> kAddRoutes{
    "test_echo/1.0/add_routes"};

class TestEchoService {
 public:
  TestEchoService(boost::asio::io_context& io, ipc::XrlRouter& router) : io_(io), router_(router) {}
  // Registers every handler. Errors: as XrlRouter::Handle.
  absl::Status Register();

  // Record calls that arrived out of order, over all streams.
  uint64_t out_of_order() const { return out_of_order_; }
  uint64_t records() const { return records_; }

 private:
  boost::asio::io_context& io_;
  ipc::XrlRouter& router_;
  std::map<uint32_t, uint64_t> last_seq_;
  uint64_t out_of_order_ = 0;
  uint64_t records_ = 0;
};

}  // namespace sluice::test_echo
