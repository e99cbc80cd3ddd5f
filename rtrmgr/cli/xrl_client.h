#pragma once
// XrlClient: calls any method of any component from its XRL text, by reflection (the engine of
// `sluice call`; the `sluice show ...` commands make typed calls through SyncClient).
//
// The request and reply types come from the protos linked into the program when the service is
// one of them, else from the Finder (Finder.GetDescriptors: every component registers the
// descriptors of what it serves), so a new interface is callable without rebuilding the CLI.
// Calls go as plain unary gRPC calls through an XrlRouter of class "sluice" (instance
// "sluice-PID"), so the Finder's access list applies to the CLI like to any component.
//
//   XrlClient client(finder_address, /*timeout_ms=*/5000);
//   auto xrl = ipc::Xrl::Parse("finder://rib/common/1.0/get_status");
//   absl::StatusOr<ipc::XrlArgs> reply = client.Call(*xrl);   // status:txt=READY&reason:txt=

#include <boost/asio/io_context.hpp>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/dynamic_message.h"
#include "ipc/proto/finder.pb.h"
#include "ipc/xrl.h"
#include "ipc/xrl_args.h"
#include "ipc/xrl_router.h"

namespace sluice::rtrmgr::cli {

class XrlClient {
 public:
  XrlClient(std::string finder_address, int timeout_ms);
  ~XrlClient();

  // Makes the call and returns the reply as arguments. Errors (each names what is wrong):
  //   NOT_FOUND "no such target: rib", "target rib does not implement foo/1.0"
  //   UNIMPLEMENTED "interface rib/1.0 has no method foo (methods: ...)"
  //   INVALID_ARGUMENT from the request conversion, naming the argument
  //   UNAVAILABLE "cannot reach the Finder at ..."
  //   DEADLINE_EXCEEDED after timeout_ms
  //   and any error the method returned.
  absl::StatusOr<ipc::XrlArgs> Call(const ipc::Xrl& xrl);
  // The same, returning the reply message itself (to format it otherwise).
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> CallMessage(const ipc::Xrl& xrl);

  // Every registered component (Finder.ListTargets). Errors: UNAVAILABLE naming the Finder.
  absl::StatusOr<finder::v1::ListTargetsReply> ListTargets();

 private:
  absl::StatusOr<const google::protobuf::MethodDescriptor*> FindMethod(const ipc::Xrl& xrl);
  absl::Status LoadDescriptors(const ipc::Xrl& xrl, const std::string& service);
  absl::Status TargetStatus(const ipc::Xrl& xrl, const std::string& service);

  std::string finder_address_;
  int timeout_ms_;
  boost::asio::io_context io_;
  std::unique_ptr<ipc::XrlRouter> router_;  // made at the first call
  google::protobuf::DescriptorPool pool_;   // descriptors fetched from the Finder
  google::protobuf::DynamicMessageFactory factory_{&pool_};
};

}  // namespace sluice::rtrmgr::cli
