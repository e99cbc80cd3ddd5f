// RouterManager: what is set up before anything starts — the run directory, the Finder's
// socket, each child's socket directory, the router manager's own endpoint, TLS settings and
// each child's capabilities (DESIGN.md § Security).

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "ipc/caller_key.h"
#include "ipc/peer_identity.h"
#include "ipc/rundir.h"
#include "ipc/unix_listener.h"
#include "rtrmgr/process/router_manager.h"

namespace sluice::rtrmgr {
namespace {

// Makes `dir` a directory owned by `uid`:`gid` with `mode`, refusing a symbolic link.
absl::Status OwnDirectory(const std::string& dir, uid_t uid, gid_t gid, mode_t mode) {
  if (mkdir(dir.c_str(), mode) != 0 && errno != EEXIST) {
    return absl::UnavailableError(absl::StrCat("cannot create ", dir, ": ", std::strerror(errno)));
  }
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(dir, " is not a directory: refusing it"));
  }
  if ((st.st_uid != uid || st.st_gid != gid) && lchown(dir.c_str(), uid, gid) != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot give ", dir, " to uid ", uid, ": ", std::strerror(errno)));
  }
  if (chmod(dir.c_str(), mode) != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot set the mode of ", dir, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RouterManager::PrepareRunDir() {
  if (absl::Status status = ipc::EnsureRunDir(options_.rundir, 0755); !status.ok()) {
    return status;
  }
  struct stat st {};
  if (lstat(options_.rundir.c_str(), &st) == 0 && st.st_uid != geteuid()) {
    return absl::FailedPreconditionError(
        absl::StrCat("refusing run directory ", options_.rundir, ": it is owned by uid ", st.st_uid,
                     ", not by the router manager's uid ", geteuid()));
  }
  // Children of another user must reach the Finder's socket in it.
  if (child_user_ && (st.st_mode & 0055) != 0055) chmod(options_.rundir.c_str(), 0755);
  return absl::OkStatus();
}

absl::Status RouterManager::PrepareFinderSocket() {
  // The children's user owns it (they register through it); every CLI user, operator or
  // admin, is a member of its group; people's roles come from the Finder's check of their
  // groups (operator-group, admin-group).
  ipc::SocketAccess access{.mode = 0660};
  if (child_user_) access.owner = child_user_->uid;
  if (auto group = ipc::GroupId(kCliGroup)) {
    access.group = *group;
  } else {
    SLUICE_LOG(kWarning) << "group " << kCliGroup << " does not exist: only root can use the CLI";
  }
  ASSIGN_OR_RETURN(finder_socket_, ipc::BindUnixSocket(options_.rundir + "/finder.sock", access));
  return absl::OkStatus();
}

absl::StatusOr<std::string> RouterManager::PrepareChildDir(const std::string& name) const {
  const std::string dir = absl::StrCat(options_.rundir, "/", name);
  const uid_t uid = child_user_ ? child_user_->uid : geteuid();
  const gid_t gid = child_user_ ? child_user_->gid : getegid();
  RETURN_IF_ERROR(OwnDirectory(dir, uid, gid, 0700));
  return dir;
}

absl::Status RouterManager::PrepareStateDir() const {
  // Our socket and saved state (mode 0600 files) live in RUNDIR/rtrmgr, which the Finder (of
  // the children's group) may enter to relay people's calls; nobody else may.
  const gid_t group = child_user_ ? child_user_->gid : getegid();
  return OwnDirectory(options_.rundir + "/rtrmgr", geteuid(), group, 0750);
}

absl::StatusOr<ipc::RouterOptions> RouterManager::OwnRouterOptions() const {
  const std::string dir = options_.rundir + "/rtrmgr";
  const gid_t group = child_user_ ? child_user_->gid : getegid();
  RETURN_IF_ERROR(PrepareStateDir());
  ipc::RouterOptions o;
  o.finder_address = finder_address();
  o.listen = {absl::StrCat("unix:", dir, "/rtrmgr.sock")};
  o.socket_access = ipc::SocketAccess{.mode = 0660, .group = group};
  o.credential = ipc::ClassCredential(master_key_, "rtrmgr");
  o.sole_instance = true;
  o.finder_wait_ms = 10000;
  return o;
}

void RouterManager::ExportTransportSecurity() const {
  const FinderConfig& f = running_.finder;
  for (const char* name : {"SLUICE_TLS_CA", "SLUICE_TLS_CERT", "SLUICE_TLS_KEY"}) unsetenv(name);
  if (f.tls) {
    setenv("SLUICE_TLS_CA", f.tls->ca.c_str(), 1);
    setenv("SLUICE_TLS_CERT", f.tls->certificate.c_str(), 1);
    setenv("SLUICE_TLS_KEY", f.tls->key.c_str(), 1);
  }
  if (f.insecure) {
    setenv("SLUICE_INSECURE", "1", 1);
  } else {
    unsetenv("SLUICE_INSECURE");
  }
}

std::vector<cap_value_t> RouterManager::Capabilities(const std::string& name) const {
  if (name == "bgp") return {CAP_NET_BIND_SERVICE};
  if (name == "fea" && running_.fea.backend == FeaBackend::kNetlink) return {CAP_NET_ADMIN};
  return {};
}

}  // namespace sluice::rtrmgr
