#pragma once
// How many CPUs this process can keep busy: the default for worker thread counts.
//
// std::thread::hardware_concurrency() counts the machine's CPUs. A router started by systemd with
// CPUAffinity= or CPUQuota=, by taskset(1), or in a container limited to a share of a large host
// may use far fewer, and threads beyond those only take turns on them. Like the JVM's and Go's
// runtimes, UsableCpus() takes the smaller of:
//   - the CPUs of the calling thread's affinity mask (sched_getaffinity(2)), and
//   - the CPU bandwidth limit of the process's cgroup and of every ancestor up to its
//     hierarchy's root, rounded up: cgroup v2 `cpu.max` ("QUOTA PERIOD", or "max PERIOD" for
//     none), cgroup v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us` (-1 for none);
//     Documentation/admin-guide/cgroup-v2.rst, "CPU Interface Files".
// At least 1. Unreadable or malformed cgroup files count as no limit.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace sluice::base {

// The CPUs the calling thread may run on, within its cgroups' CPU bandwidth; at least 1.
int UsableCpus();

// The CPUs of the calling thread's affinity mask; nullopt when the kernel does not say.
std::optional<int> AffinityCpus();

// The CPUs a bandwidth limit of `quota` microseconds every `period` keeps busy, rounded up;
// nullopt for no limit (a quota below 0) or nonsense (a period or quota of 0).
std::optional<int> CpusOfQuota(int64_t quota, int64_t period);

// The lowest CPU limit over the cgroups this process belongs to (the cgroup v2 hierarchy and the
// v1 hierarchy of the `cpu` controller) and their ancestors; nullopt when none sets one.
// `self_cgroup` is the text of /proc/self/cgroup, `mountinfo` that of /proc/self/mountinfo (the
// mount points and roots of the hierarchies), and the control files are read below `fs_root`
// (empty: the real file system; tests give a directory that mirrors it).
std::optional<int> CgroupCpuLimit(absl::string_view self_cgroup, absl::string_view mountinfo,
                                  const std::string& fs_root = "");

}  // namespace sluice::base
