"""The machine a convergence run measured on, beyond its load: CPUs, kernel, and the cost of a
system call.

The daemons differ by orders of magnitude in the system calls they make for the same table (BIRD
2 sends each UPDATE to each peer with a write(2) of its own; sluice-bgp queues a peer's UPDATEs
and sends them together), and a virtual machine can make a system call ten times dearer than
bare metal: a daemon's times then move with it (README.md, Caveats). The results header records
the cost, so that runs on two machines can be told apart.
"""

import os
import platform
import time


def syscall_ns(calls=200_000, tries=3):
    """Nanoseconds per getppid(2) in a Python loop, the best of `tries` (Python's own share of a
    call is about 30-60 ns)."""
    best = None
    for _ in range(tries):
        start = time.perf_counter_ns()
        for _ in range(calls):
            os.getppid()
        per_call = (time.perf_counter_ns() - start) / calls
        best = per_call if best is None else min(best, per_call)
    return best


def _cpuinfo():
    """(model name, whether the CPU flags say a hypervisor runs us) from /proc/cpuinfo."""
    model, hypervisor = "unknown CPU", False
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key, value = key.strip(), value.strip()
                if key == "model name" and model == "unknown CPU":
                    model = value
                elif key == "flags":
                    hypervisor = "hypervisor" in value.split()
                    break
    except OSError:
        pass
    return model, hypervisor


def describe():
    """One line for the results header, e.g. 'AMD EPYC, 2 CPUs, under a hypervisor, Linux
    6.1.0; a system call (getppid from Python) takes 1,020 ns'."""
    model, hypervisor = _cpuinfo()
    return (f"{model}, {os.cpu_count()} CPUs" + (", under a hypervisor" if hypervisor else "")
            + f", Linux {platform.release()}; a system call (getppid from Python) takes "
            f"{syscall_ns():,.0f} ns")
