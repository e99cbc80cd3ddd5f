// Commit confirmed: a load with a confirmation time is rolled back unless `sluice configure
// confirm` arrives in time (rtrmgr/1.0/confirm_config). Rollback: the archive of committed
// configurations (rtrmgr/1.0/rollback_config).

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "ipc/methods/rtrmgr.h"
#include "ipc/proto/rtrmgr.pb.h"
#include "rtrmgr/config/config_loader.h"
#include "rtrmgr/config/config_printer.h"
#include "rtrmgr/process/router_manager.h"

namespace sluice::rtrmgr {

namespace {

namespace v1 = ::sluice::rtrmgr::v1;
using ipc::methods::rtrmgr::kConfirmConfig;
using ipc::methods::rtrmgr::kRollbackConfig;
// While another change is being applied, the expired rollback waits this long and tries again.
constexpr std::chrono::seconds kBusyRetry(1);

}  // namespace

void RouterManager::AwaitConfirm(Config before, std::string file,
                                 std::chrono::milliseconds within) {
  // Several unconfirmed loads in a row: the rollback goes back to before the first.
  if (!confirm_) confirm_ = PendingConfirm{std::move(before), std::move(file), {}};
  confirm_->deadline = std::chrono::steady_clock::now() + within;
  SLUICE_LOG(kInfo) << "unconfirmed: rolls back to " << confirm_->file << " in " << within.count()
                    << " ms unless confirmed";
  confirm_timer_ = std::make_unique<boost::asio::steady_timer>(io_, within);
  confirm_timer_->async_wait([this](const boost::system::error_code& error) {
    if (!error) ConfirmExpired();
  });
}

void RouterManager::ConfirmExpired() {
  if (!confirm_ || stopped_) return;
  if (applying_) {
    confirm_timer_ = std::make_unique<boost::asio::steady_timer>(io_, kBusyRetry);
    confirm_timer_->async_wait([this](const boost::system::error_code& error) {
      if (!error) ConfirmExpired();
    });
    return;
  }
  PendingConfirm pending = std::move(*confirm_);
  confirm_.reset();
  confirm_timer_.reset();
  SLUICE_LOG(kWarning) << "not confirmed in time: rolling back to " << pending.file;
  Commit(std::move(pending.before), pending.file, std::chrono::milliseconds(0),
         [](absl::StatusOr<std::string> delta, std::vector<std::string> warnings) {
           if (delta.ok()) {
             SLUICE_LOG(kInfo) << "rolled back:\n" << *delta;
           } else {
             SLUICE_LOG(kError) << "the rollback was refused; the unconfirmed configuration stays: "
                                << delta.status().message();
           }
           for (const std::string& w : warnings) SLUICE_LOG(kWarning) << w;
         });
}

absl::Status RouterManager::ConfirmPending() {
  if (!confirm_) {
    return absl::FailedPreconditionError("no configuration is waiting for confirmation");
  }
  confirm_.reset();
  confirm_timer_.reset();
  SLUICE_LOG(kInfo) << "configuration confirmed";
  return absl::OkStatus();
}

std::chrono::milliseconds RouterManager::ConfirmRemaining() const {
  if (!confirm_) return std::chrono::milliseconds(0);
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      confirm_->deadline - std::chrono::steady_clock::now());
  return std::max(left, std::chrono::milliseconds(1));
}

void RouterManager::ArchiveRunning() {
  if (absl::Status s = archive_.Add(PrintConfig(running_)); !s.ok()) {
    SLUICE_LOG(kWarning) << "configuration archive: " << s.message();
  }
}

absl::StatusOr<v1::GetConfigReply> RouterManager::GetConfig(size_t archived) const {
  v1::GetConfigReply reply;
  if (archived == 0) {
    reply.set_file(options_.config_file);
    reply.set_text(PrintConfig(running_));
    return reply;
  }
  ASSIGN_OR_RETURN(std::string path, archive_.Path(archived));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return absl::DataLossError(absl::StrCat("archived configuration ", path, " unreadable"));
  reply.set_file(path);
  reply.set_text(text.str());
  return reply;
}

void RouterManager::Rollback(size_t n, ReloadDone done) {
  absl::StatusOr<std::string> path = archive_.Path(n);
  if (!path.ok()) {
    done(path.status(), {});
    return;
  }
  absl::StatusOr<Config> config = LoadConfigFile(*path);
  if (!config.ok()) {
    done(absl::DataLossError(absl::StrCat("archived configuration ", *path, " is unreadable:\n",
                                          config.status().message())),
         {});
    return;
  }
  SLUICE_LOG(kInfo) << "rollback " << n << ": " << *path;
  const std::string file = options_.config_file;
  Commit(*std::move(config), file, std::chrono::milliseconds(0),
         [file, done = std::move(done)](absl::StatusOr<std::string> delta,
                                        std::vector<std::string> warnings) {
           if (delta.ok()) {
             warnings.push_back(absl::StrCat("the rollback is not in ", file,
                                             ": a SIGHUP or a load of it applies the file again"));
           }
           done(std::move(delta), std::move(warnings));
         });
}

absl::Status RouterManager::RegisterCommitService() {
  absl::Status s = router_->Handle(kConfirmConfig, [this](const v1::ConfirmConfigRequest&) {
    absl::Status confirmed = ConfirmPending();
    if (!confirmed.ok()) return absl::StatusOr<v1::ConfirmConfigReply>(confirmed);
    return absl::StatusOr<v1::ConfirmConfigReply>(v1::ConfirmConfigReply());
  });
  if (!s.ok()) return s;
  return router_->HandleAsync(kRollbackConfig, [this](const v1::RollbackConfigRequest& r,
                                                      ipc::Responder<v1::LoadConfigReply> out) {
    if (r.n() == 0 || r.n() >= ConfigArchive::kKeep) {
      out.Fail(absl::InvalidArgumentError(
          absl::StrCat("n: want 1 to ", ConfigArchive::kKeep - 1, " commits back")));
      return;
    }
    Rollback(r.n(), ReplyWithDelta(std::move(out)));
  });
}

RouterManager::ReloadDone RouterManager::ReplyWithDelta(ipc::Responder<v1::LoadConfigReply> out) {
  auto responder = std::make_shared<ipc::Responder<v1::LoadConfigReply>>(std::move(out));
  return [responder](absl::StatusOr<std::string> delta, std::vector<std::string> warnings) {
    if (!delta.ok()) {
      responder->Fail(delta.status());
      return;
    }
    v1::LoadConfigReply reply;
    reply.set_delta(*delta);
    for (std::string& w : warnings) reply.add_warnings(std::move(w));
    responder->Send(std::move(reply));
  };
}

}  // namespace sluice::rtrmgr
