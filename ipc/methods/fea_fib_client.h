#pragma once
// The fea_fib_client/1.0 methods (ipc/proto/fea_fib_client.proto), each tied to its request and
// reply types (ipc/method.h). Served by the subscribers of fea_fib/1.0 subscribe_changes. Called by
// sluice-fea (fea/service/fea_fib_service.cc). Header-only: a user links
// sluice_fea_fib_client_proto and sluice_ipc.

#include "ipc/method.h"
#include "ipc/proto/fea_fib_client.pb.h"

namespace sluice::ipc::methods::fea_fib_client {

namespace v1 = ::sluice::fea_fib_client::v1;

inline const Method<v1::FibChangesRequest, v1::FibChangesReply> kFibChanges{
    "fea_fib_client/1.0/fib_changes"};

}  // namespace sluice::ipc::methods::fea_fib_client
