#include "fea/service/profile_service.h"

#include "absl/time/time.h"
#include "ipc/proto/profile.pb.h"
#include "net/status_macros.h"

namespace sluice::fea {
namespace {

namespace pb = profile::v1;
const ipc::Method<pb::ListPointsRequest, pb::ListPointsReply> kListPoints{
    "profile/1.0/list_points"};
const ipc::Method<pb::EnableRequest, pb::EnableReply> kEnable{"profile/1.0/enable"};
const ipc::Method<pb::GetEntriesRequest, pb::GetEntriesReply> kGetEntries{
    "profile/1.0/get_entries"};
const ipc::Method<pb::ClearRequest, pb::ClearReply> kClear{"profile/1.0/clear"};
const ipc::Method<pb::DescribePlumbingRequest, pb::DescribePlumbingReply> kDescribePlumbing{
    "profile/1.0/describe_plumbing"};

}  // namespace

ProfileService::ProfileService(stage::Profiler& profiler, std::function<std::string()> describe)
    : profiler_(profiler), describe_(std::move(describe)) {}

absl::Status ProfileService::Register(ipc::XrlRouter& router) {
  RETURN_IF_ERROR(router.Handle(
      kListPoints, [this](const pb::ListPointsRequest&) -> absl::StatusOr<pb::ListPointsReply> {
        pb::ListPointsReply reply;
        for (const std::string& name : profiler_.Names()) {
          auto point = profiler_.Find(name);
          if (!point.ok()) continue;
          pb::Point* p = reply.add_points();
          p->set_name(name);
          p->set_enabled((*point)->enabled());
          p->set_entries((*point)->Entries().size());
        }
        return reply;
      }));
  RETURN_IF_ERROR(router.Handle(
      kEnable, [this](const pb::EnableRequest& request) -> absl::StatusOr<pb::EnableReply> {
        ASSIGN_OR_RETURN(stage::ProfilePoint * point, profiler_.Find(request.point()));
        point->set_enabled(request.enable());
        return pb::EnableReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      kGetEntries,
      [this](const pb::GetEntriesRequest& request) -> absl::StatusOr<pb::GetEntriesReply> {
        ASSIGN_OR_RETURN(stage::ProfilePoint * point, profiler_.Find(request.point()));
        pb::GetEntriesReply reply;
        for (const stage::ProfileEntry& e : point->Entries()) {
          pb::Entry* entry = reply.add_entries();
          entry->set_time_us(absl::ToUnixMicros(e.when));
          entry->set_text(e.text);
        }
        reply.set_dropped(point->dropped());
        return reply;
      }));
  RETURN_IF_ERROR(router.Handle(
      kClear, [this](const pb::ClearRequest& request) -> absl::StatusOr<pb::ClearReply> {
        ASSIGN_OR_RETURN(stage::ProfilePoint * point, profiler_.Find(request.point()));
        point->Clear();
        return pb::ClearReply();
      }));
  return router.Handle(
      kDescribePlumbing,
      [this](const pb::DescribePlumbingRequest&) -> absl::StatusOr<pb::DescribePlumbingReply> {
        pb::DescribePlumbingReply reply;
        if (describe_) reply.set_text(describe_());
        return reply;
      });
}

}  // namespace sluice::fea
