#include "rtrmgr/process/privileges.h"

#include <grp.h>
#include <linux/securebits.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace sluice::rtrmgr {
namespace {

constexpr cap_value_t kSupervisor[] = {CAP_CHOWN,   CAP_DAC_OVERRIDE, CAP_FOWNER,
                                       CAP_KILL,    CAP_SETUID,       CAP_SETGID,
                                       CAP_SETPCAP, CAP_NET_ADMIN,    CAP_NET_BIND_SERVICE};

bool Contains(const std::vector<cap_value_t>& caps, cap_value_t cap) {
  return std::find(caps.begin(), caps.end(), cap) != caps.end();
}

cap_value_t LastCapability() {
  int last = cap_max_bits() - 1;
  return last > 0 ? last : CAP_LAST_CAP;
}

}  // namespace

absl::StatusOr<std::optional<RunAs>> ChildUser(const std::string& wanted) {
  const bool root = geteuid() == 0;
  const std::string name = !wanted.empty() ? wanted : root ? "sluice" : "";
  if (name.empty()) return std::nullopt;
  passwd entry{};
  passwd* result = nullptr;
  char buffer[4096];
  if (getpwnam_r(name.c_str(), &entry, buffer, sizeof(buffer), &result) != 0 || result == nullptr) {
    if (wanted.empty()) return std::nullopt;  // no "sluice" user: the children stay root
    return absl::NotFoundError(absl::StrFormat(
        "user %s does not exist (create it: adduser --system --group %s)", name, name));
  }
  if (!root && result->pw_uid != geteuid()) {
    return absl::PermissionDeniedError(
        absl::StrFormat("user %s: only root can start the processes as another user", name));
  }
  if (!root) return std::nullopt;
  return RunAs{name, result->pw_uid, result->pw_gid};
}

absl::Status CheckUserCanExecute(const RunAs& user, const std::string& path) {
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError(absl::StrFormat("fork: %s", std::strerror(errno)));
  if (pid == 0) {  // system calls only: the parent may have threads
    if (setgroups(1, &user.gid) != 0 || setresgid(user.gid, user.gid, user.gid) != 0 ||
        setresuid(user.uid, user.uid, user.uid) != 0) {
      _exit(255);
    }
    _exit(access(path.c_str(), X_OK) == 0 ? 0 : errno);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return absl::InternalError(absl::StrFormat("waitpid: %s", std::strerror(errno)));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 255) {
    return absl::InternalError(
        absl::StrFormat("cannot become user %s to check %s", user.name, path));
  }
  const int error = WEXITSTATUS(status);
  if (error == 0) return absl::OkStatus();
  const std::string message = absl::StrFormat(
      "user %s cannot execute %s: %s (every directory above it must be searchable "
      "by %s; or choose another user with --user or `user NAME;`)",
      user.name, path, std::strerror(error), user.name);
  return error == ENOENT ? absl::NotFoundError(message) : absl::PermissionDeniedError(message);
}

const char* EnterChildPrivileges(const ChildPrivileges& privileges) {
  const RunAs& user = privileges.user;
  if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0) return "PR_SET_KEEPCAPS";
  for (cap_value_t cap = 0; cap <= LastCapability(); ++cap) {
    if (!Contains(privileges.capabilities, cap) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 &&
        errno != EINVAL) {
      return "PR_CAPBSET_DROP";
    }
  }
  if (setgroups(1, &user.gid) != 0) return "setgroups";
  if (setresgid(user.gid, user.gid, user.gid) != 0) return "setresgid";
  if (setresuid(user.uid, user.uid, user.uid) != 0) return "setresuid";
  // Permitted survived setresuid (KEEPCAPS); now exactly the needed ones, everywhere.
  cap_t caps = cap_init();
  if (caps == nullptr) return "cap_init";
  const int count = static_cast<int>(privileges.capabilities.size());
  if (count > 0) {
    for (cap_flag_t flag : {CAP_PERMITTED, CAP_EFFECTIVE, CAP_INHERITABLE}) {
      cap_set_flag(caps, flag, count, privileges.capabilities.data(), CAP_SET);
    }
  }
  const bool set = cap_set_proc(caps) == 0;
  cap_free(caps);
  if (!set) return "cap_set_proc";
  for (cap_value_t cap : privileges.capabilities) {
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) != 0) return "PR_CAP_AMBIENT";
  }
  if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) != 0) return "PR_SET_KEEPCAPS";
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return "PR_SET_NO_NEW_PRIVS";
  return nullptr;
}

absl::Status KeepSupervisorCapabilities() {
  const std::vector<cap_value_t> keep(std::begin(kSupervisor), std::end(kSupervisor));
  for (cap_value_t cap = 0; cap <= LastCapability(); ++cap) {
    if (!Contains(keep, cap) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) {
      return absl::InternalError(
          absl::StrFormat("dropping capability %d: %s", cap, std::strerror(errno)));
    }
  }
  cap_t caps = cap_init();
  if (caps == nullptr) return absl::InternalError("cap_init failed");
  for (cap_flag_t flag : {CAP_PERMITTED, CAP_EFFECTIVE}) {
    cap_set_flag(caps, flag, static_cast<int>(keep.size()), keep.data(), CAP_SET);
  }
  const bool set = cap_set_proc(caps) == 0;
  cap_free(caps);
  if (!set) return absl::InternalError(absl::StrFormat("cap_set_proc: %s", std::strerror(errno)));
  return absl::OkStatus();
}

std::string CapabilityNames(const std::vector<cap_value_t>& capabilities) {
  if (capabilities.empty()) return "none";
  std::vector<std::string> names;
  for (cap_value_t cap : capabilities) {
    char* name = cap_to_name(cap);
    names.push_back(name != nullptr ? name : absl::StrFormat("cap_%d", cap));
    cap_free(name);
  }
  return absl::StrJoin(names, ",");
}

}  // namespace sluice::rtrmgr
