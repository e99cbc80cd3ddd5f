#pragma once
// The fea_fib/1.0 methods (ipc/proto/fea_fib.proto), each tied to its request and reply types
// (ipc/method.h). Served by sluice-fea (fea/service/fea_fib_service*.cc). Called by sluice-rib
// (rib/service/xrl_fib_client.cc), the `sluice show` commands (rtrmgr/cli/queries.h) and the
// router manager's metrics (rtrmgr/metrics/gatherer.cc).
// Header-only: a user links sluice_fea_fib_proto and sluice_ipc.

#include "ipc/method.h"
#include "ipc/proto/fea_fib.pb.h"

namespace sluice::ipc::methods::fea_fib {

namespace v1 = ::sluice::fea_fib::v1;

inline const Method<v1::StartTransactionRequest, v1::StartTransactionReply> kStartTransaction{
    "fea_fib/1.0/start_transaction"};
inline const Method<v1::CommitTransactionRequest, v1::CommitTransactionReply> kCommitTransaction{
    "fea_fib/1.0/commit_transaction"};
inline const Method<v1::AbortTransactionRequest, v1::AbortTransactionReply> kAbortTransaction{
    "fea_fib/1.0/abort_transaction"};
inline const Method<v1::AddRoute4Request, v1::ChangeReply> kAddRoute4{"fea_fib/1.0/add_route4"};
inline const Method<v1::AddRoute6Request, v1::ChangeReply> kAddRoute6{"fea_fib/1.0/add_route6"};
inline const Method<v1::AddRoute4Request, v1::ChangeReply> kReplaceRoute4{
    "fea_fib/1.0/replace_route4"};
inline const Method<v1::AddRoute6Request, v1::ChangeReply> kReplaceRoute6{
    "fea_fib/1.0/replace_route6"};
inline const Method<v1::DeleteRoute4Request, v1::ChangeReply> kDeleteRoute4{
    "fea_fib/1.0/delete_route4"};
inline const Method<v1::DeleteRoute6Request, v1::ChangeReply> kDeleteRoute6{
    "fea_fib/1.0/delete_route6"};
inline const Method<v1::DeleteAllRoutesRequest, v1::ChangeReply> kDeleteAllRoutes{
    "fea_fib/1.0/delete_all_routes"};
inline const Method<v1::ApplyBatchRequest, v1::CommitTransactionReply> kApplyBatch{
    "fea_fib/1.0/apply_batch"};
inline const Method<v1::ApplyBatchPackedRequest, v1::CommitTransactionReply> kApplyBatchPacked{
    "fea_fib/1.0/apply_batch_packed"};
inline const Method<v1::StartFullPushRequest, v1::StartFullPushReply> kStartFullPush{
    "fea_fib/1.0/start_full_push"};
inline const Method<v1::CompleteFullPushRequest, v1::CompleteFullPushReply> kCompleteFullPush{
    "fea_fib/1.0/complete_full_push"};
inline const Method<v1::LookupRouteByDest4Request, v1::LookupRouteReply> kLookupRouteByDest4{
    "fea_fib/1.0/lookup_route_by_dest4"};
inline const Method<v1::LookupRouteByDest6Request, v1::LookupRouteReply> kLookupRouteByDest6{
    "fea_fib/1.0/lookup_route_by_dest6"};
inline const Method<v1::LookupRouteByNetworkRequest, v1::LookupRouteReply> kLookupRouteByNetwork{
    "fea_fib/1.0/lookup_route_by_network"};
inline const Method<v1::ListRoutesRequest, v1::ListRoutesReply> kListRoutes{
    "fea_fib/1.0/list_routes"};
inline const Method<v1::GetStatsRequest, v1::GetStatsReply> kGetStats{"fea_fib/1.0/get_stats"};
inline const Method<v1::SubscribeChangesRequest, v1::SubscribeChangesReply> kSubscribeChanges{
    "fea_fib/1.0/subscribe_changes"};
inline const Method<v1::SubscribeChangesRequest, v1::SubscribeChangesReply> kUnsubscribeChanges{
    "fea_fib/1.0/unsubscribe_changes"};

}  // namespace sluice::ipc::methods::fea_fib
