#include "bgp/process/profile_service.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "bgp/process/methods.h"
#include "net/status_macros.h"

namespace sluice::bgp::process {

namespace {

absl::StatusOr<stage::ProfilePoint*> Find(stage::Profiler* profiler, const std::string& name) {
  absl::StatusOr<stage::ProfilePoint*> p = profiler->Find(name);
  if (p.ok()) return p;
  std::vector<std::string> names = profiler->Names();
  std::sort(names.begin(), names.end());
  return absl::NotFoundError(
      absl::StrCat("no profiling point \"", name, "\" (points: ", absl::StrJoin(names, ", "), ")"));
}

}  // namespace

absl::Status ServeProfile(ipc::XrlRouter& router, stage::Profiler* profiler,
                          std::function<std::string()> describe) {
  RETURN_IF_ERROR(router.Handle(kListPoints,
                                [profiler](const profile_v1::ListPointsRequest&)
                                    -> absl::StatusOr<profile_v1::ListPointsReply> {
                                  std::vector<std::string> names = profiler->Names();
                                  std::sort(names.begin(), names.end());
                                  profile_v1::ListPointsReply reply;
                                  for (const std::string& name : names) {
                                    absl::StatusOr<stage::ProfilePoint*> p = profiler->Find(name);
                                    if (!p.ok()) continue;
                                    profile_v1::Point* out = reply.add_points();
                                    out->set_name(name);
                                    out->set_enabled((*p)->enabled());
                                    out->set_entries((*p)->Entries().size());
                                  }
                                  return reply;
                                }));
  RETURN_IF_ERROR(router.Handle(
      kEnablePoint,
      [profiler](const profile_v1::EnableRequest& r) -> absl::StatusOr<profile_v1::EnableReply> {
        ASSIGN_OR_RETURN(stage::ProfilePoint * p, Find(profiler, r.point()));
        p->set_enabled(r.enable());
        return profile_v1::EnableReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      kGetEntries,
      [profiler](
          const profile_v1::GetEntriesRequest& r) -> absl::StatusOr<profile_v1::GetEntriesReply> {
        ASSIGN_OR_RETURN(stage::ProfilePoint * p, Find(profiler, r.point()));
        profile_v1::GetEntriesReply reply;
        for (const stage::ProfileEntry& e : p->Entries()) {
          profile_v1::Entry* out = reply.add_entries();
          out->set_time_us(absl::ToUnixMicros(e.when));
          out->set_text(e.text);
        }
        reply.set_dropped(p->dropped());
        return reply;
      }));
  RETURN_IF_ERROR(router.Handle(
      kClearPoint,
      [profiler](const profile_v1::ClearRequest& r) -> absl::StatusOr<profile_v1::ClearReply> {
        ASSIGN_OR_RETURN(stage::ProfilePoint * p, Find(profiler, r.point()));
        p->Clear();
        return profile_v1::ClearReply();
      }));
  RETURN_IF_ERROR(
      router.Handle(kDescribePlumbing,
                    [describe = std::move(describe)](const profile_v1::DescribePlumbingRequest&)
                        -> absl::StatusOr<profile_v1::DescribePlumbingReply> {
                      profile_v1::DescribePlumbingReply reply;
                      reply.set_text(describe());
                      return reply;
                    }));
  return absl::OkStatus();
}

}  // namespace sluice::bgp::process
