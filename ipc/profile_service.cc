#include "ipc/profile_service.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "ipc/methods/profile.h"
#include "ipc/responder.h"

namespace sluice::ipc {
namespace {

namespace pb = profile::v1;

absl::StatusOr<stage::ProfilePoint*> FindPoint(const stage::Profiler& profiler,
                                               const std::string& name, UnknownPointText unknown) {
  absl::StatusOr<stage::ProfilePoint*> point = profiler.Find(name);
  if (point.ok() || unknown == UnknownPointText::kPointOnly) return point;
  return absl::NotFoundError(absl::StrCat(
      "no profiling point \"", name, "\" (points: ", absl::StrJoin(profiler.Names(), ", "), ")"));
}

}  // namespace

absl::Status ServeProfile(XrlRouter& router, stage::Profiler& profiler, DescribePlumbing describe,
                          UnknownPointText unknown) {
  stage::Profiler* p = &profiler;
  RETURN_IF_ERROR(
      router.Handle(methods::profile::kListPoints,
                    [p](const pb::ListPointsRequest&) -> absl::StatusOr<pb::ListPointsReply> {
                      pb::ListPointsReply reply;
                      for (const std::string& name : p->Names()) {  // in name order
                        absl::StatusOr<stage::ProfilePoint*> point = p->Find(name);
                        if (!point.ok()) continue;
                        pb::Point* out = reply.add_points();
                        out->set_name(name);
                        out->set_enabled((*point)->enabled());
                        out->set_entries((*point)->Entries().size());
                      }
                      return reply;
                    }));
  RETURN_IF_ERROR(router.Handle(
      methods::profile::kEnable,
      [p, unknown](const pb::EnableRequest& request) -> absl::StatusOr<pb::EnableReply> {
        ASSIGN_OR_RETURN(stage::ProfilePoint * point, FindPoint(*p, request.point(), unknown));
        point->set_enabled(request.enable());
        return pb::EnableReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      methods::profile::kGetEntries,
      [p, unknown](const pb::GetEntriesRequest& request) -> absl::StatusOr<pb::GetEntriesReply> {
        ASSIGN_OR_RETURN(stage::ProfilePoint * point, FindPoint(*p, request.point(), unknown));
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
      methods::profile::kClear,
      [p, unknown](const pb::ClearRequest& request) -> absl::StatusOr<pb::ClearReply> {
        ASSIGN_OR_RETURN(stage::ProfilePoint * point, FindPoint(*p, request.point(), unknown));
        point->Clear();
        return pb::ClearReply();
      }));
  return router.HandleAsync(
      methods::profile::kDescribePlumbing,
      [describe = std::move(describe)](const pb::DescribePlumbingRequest&,
                                       Responder<pb::DescribePlumbingReply> responder) {
        if (!describe) return responder.Finish(absl::OkStatus());
        describe([r = std::make_shared<Responder<pb::DescribePlumbingReply>>(std::move(responder))](
                     std::string text) {
          r->reply()->set_text(std::move(text));
          r->Finish(absl::OkStatus());
        });
      });
}

DescribePlumbing DescribeNow(std::function<std::string()> describe) {
  return [describe = std::move(describe)](std::function<void(std::string)> reply) {
    reply(describe());
  };
}

absl::Status ServeStageStats(XrlRouter& router,
                             std::function<std::vector<stage::Plumber::QueueDepth>()> depths) {
  return router.Handle(methods::profile::kGetStageStats,
                       [depths = std::move(depths)](const pb::GetStageStatsRequest&)
                           -> absl::StatusOr<pb::GetStageStatsReply> {
                         pb::GetStageStatsReply reply;
                         for (const stage::Plumber::QueueDepth& q : depths()) {
                           pb::StageStat* s = reply.add_stages();
                           s->set_stage(q.stage);
                           s->set_kind(q.kind);
                           s->set_queued(q.queued);
                         }
                         return reply;
                       });
}

}  // namespace sluice::ipc
