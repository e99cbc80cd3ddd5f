#include "bgp/process/mrt_service.h"

#include <pwd.h>
#include <unistd.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "ipc/methods/bgp.h"
#include "ipc/responder.h"
#include "ipc/types_convert.h"

namespace sluice::bgp::process {
namespace {

using ipc::methods::bgp::kClearMrt;
using ipc::methods::bgp::kDumpTable;
using ipc::methods::bgp::kGetMrt;
using ipc::methods::bgp::kSetMrt;

// "sluice" (or "uid 998"): who the files are written as, for errors about permissions.
std::string UserName() {
  const uid_t uid = geteuid();
  if (const passwd* pw = getpwuid(uid); pw != nullptr) return pw->pw_name;
  return absl::StrCat("uid ", uid);
}

absl::Status Explain(const char* method, const absl::Status& s) {
  std::string text = absl::StrCat(method, ": ", s.message());
  if (absl::IsInternal(s)) absl::StrAppend(&text, " (sluice-bgp runs as user ", UserName(), ")");
  return absl::Status(s.code(), text);
}

absl::Status ApplySetMrt(MrtOutputs& mrt, const v1::SetMrtRequest& r) {
  std::optional<PeriodicDumpOptions> dump;
  if (r.has_table_dump()) {
    dump.emplace();
    dump->pattern = r.table_dump().pattern();
    if (r.table_dump().interval_s() != 0)
      dump->interval = absl::Seconds(r.table_dump().interval_s());
  }
  std::optional<mrt::UpdateLogOptions> updates;
  if (r.has_updates()) {
    updates.emplace();
    updates->pattern = r.updates().pattern();
    if (r.updates().rotate_s() != 0) updates->rotate = absl::Seconds(r.updates().rotate_s());
  }
  RETURN_IF_ERROR(mrt.SetPeriodicDump(std::move(dump)));
  return mrt.SetUpdateLog(std::move(updates));
}

}  // namespace

absl::Status ServeMrt(ipc::XrlRouter& router, MrtOutputs& mrt) {
  RETURN_IF_ERROR(router.HandleAsync(
      kDumpTable, [&mrt](const v1::DumpTableRequest& r, ipc::Responder<v1::DumpTableReply> resp) {
        auto responder = std::make_shared<ipc::Responder<v1::DumpTableReply>>(std::move(resp));
        std::optional<net::IPAddress> peer;
        if (r.has_adj_rib_in_peer()) {
          absl::StatusOr<net::IPAddress> a = ipc::FromProto(r.adj_rib_in_peer());
          if (!a.ok()) {
            responder->Fail(Explain("dump_table", a.status()));
            return;
          }
          peer = *a;
        }
        mrt.DumpTable(r.path(), peer, [responder](absl::StatusOr<DumpDone> done) {
          if (!done.ok()) {
            responder->Fail(Explain("dump_table", done.status()));
            return;
          }
          v1::DumpTableReply* reply = responder->reply();
          reply->set_path(done->result.path);
          reply->set_prefixes(done->result.prefixes);
          reply->set_routes(done->result.routes);
          reply->set_octets(done->result.octets);
          reply->set_seconds(absl::ToDoubleSeconds(done->elapsed));
          reply->set_loop_seconds(absl::ToDoubleSeconds(done->on_loop));
          responder->Finish(absl::OkStatus());
        });
      }));
  RETURN_IF_ERROR(
      router.Handle(kSetMrt, [&mrt](const v1::SetMrtRequest& r) -> absl::StatusOr<v1::SetMrtReply> {
        absl::Status s = ApplySetMrt(mrt, r);
        if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat("set_mrt: ", s.message()));
        return v1::SetMrtReply();
      }));
  RETURN_IF_ERROR(router.Handle(
      kClearMrt, [&mrt](const v1::ClearMrtRequest&) -> absl::StatusOr<v1::ClearMrtReply> {
        RETURN_IF_ERROR(mrt.SetPeriodicDump(std::nullopt));
        RETURN_IF_ERROR(mrt.SetUpdateLog(std::nullopt));
        return v1::ClearMrtReply();
      }));
  RETURN_IF_ERROR(
      router.Handle(kGetMrt, [&mrt](const v1::GetMrtRequest&) -> absl::StatusOr<v1::GetMrtReply> {
        v1::GetMrtReply reply;
        if (const auto& p = mrt.periodic()) {
          reply.mutable_table_dump()->set_pattern(p->pattern);
          reply.mutable_table_dump()->set_interval_s(uint32_t(absl::ToInt64Seconds(p->interval)));
        }
        reply.set_last_table_dump(mrt.last_periodic_dump());
        reply.set_last_table_dump_error(mrt.last_periodic_error());
        if (const mrt::MrtUpdateLog* log = mrt.update_log()) {
          reply.mutable_updates()->set_pattern(log->options().pattern);
          reply.mutable_updates()->set_rotate_s(
              uint32_t(absl::ToInt64Seconds(log->options().rotate)));
          const mrt::UpdateLogStats s = log->stats();
          reply.set_updates_file(s.file);
          reply.set_updates_messages(s.messages);
          reply.set_updates_state_changes(s.state_changes);
          reply.set_updates_dropped(s.dropped);
          reply.set_updates_error(s.error);
        }
        return reply;
      }));
  return absl::OkStatus();
}

}  // namespace sluice::bgp::process
