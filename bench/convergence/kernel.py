"""Workload 5 for convergence.py: a full router into the kernel.

Each run gets two private network namespaces joined by a veth pair: the router's, where every
process of the run (upstreams, device, monitor) runs with its loopback up and r0 = 10.9.0.1/24,
and a host's holding the upstreams' NEXT_HOP 10.9.0.2 on h0 (FRR's zebra ignores routes through
127/8, so the nexthop is on a veth subnet). The machine's own namespace and FIB are never touched;
deleting the namespaces at the end of the run takes every route with them.

The kernel's side is counted by the build's `bench/fea/kernel_route_counter`, run inside the
router's namespace: it listens to rtnetlink's IPv4 route notifications and keeps the set of
main-table unicast prefixes not put there by the kernel itself (its connected routes), printing
JSON lines as sluice-replay --json does: `progress` every 100 ms (held, held_changed_mono,
first_mono: CLOCK_MONOTONIC of the first route seen) and `held_all` when --expect is reached.
A notification queue that overflows (ENOBUFS) is repaired by a full dump, and counted. It is a
program, not Python: a counter in Python read about 140,000 notifications a second with a whole
CPU, slower than a fast device installs, so it reported its own pace and took a CPU from the
device under test.

Needs root: namespaces, and the counter's large socket buffer.
"""

import os
import subprocess
import time

NEXT_HOP = "10.9.0.2"  # what the upstreams send as NEXT_HOP in workload 5
ROUTER_ADDR = "10.9.0.1/24"
COUNTER = "bench/fea/kernel_route_counter"  # the kernel's side, in the build tree


class Netns:
    """The run's two namespaces. `wrap(argv)` runs argv in the router's."""

    def __init__(self):
        self.name = f"sluice-bench-{os.getpid()}"
        self.host = self.name + "-nh"
        steps = [["ip", "netns", "add", self.name], ["ip", "netns", "add", self.host],
                 ["ip", "-n", self.name, "link", "set", "lo", "up"],
                 ["ip", "-n", self.name, "link", "add", "r0", "type", "veth", "peer", "name",
                  "h0", "netns", self.host],
                 ["ip", "-n", self.name, "addr", "add", ROUTER_ADDR, "dev", "r0"],
                 ["ip", "-n", self.name, "link", "set", "r0", "up"],
                 ["ip", "-n", self.host, "addr", "add", NEXT_HOP + "/24", "dev", "h0"],
                 ["ip", "-n", self.host, "link", "set", "h0", "up"]]
        try:
            for argv in steps:
                r = subprocess.run(argv, capture_output=True, text=True)
                if r.returncode != 0:
                    raise RuntimeError(f"{' '.join(argv)}: {r.stderr.strip()}")
        except BaseException:
            self.delete()
            raise

    def wrap(self, argv):
        return ["ip", "netns", "exec", self.name] + list(argv)

    def delete(self):
        for name in (self.name, self.host):
            subprocess.run(["ip", "netns", "del", name], capture_output=True)


def available(build):
    """(True, "") when this machine can run workload 5, else (False, why)."""
    if not os.access(os.path.join(build, COUNTER), os.X_OK):
        return False, f"{COUNTER} not built in {build}"
    if os.geteuid() != 0:
        return False, "network namespaces need root"
    if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
        return False, "`ip netns` does not work here"
    return True, ""


def counter_argv(build, expect):
    return [os.path.join(build, COUNTER)] + (["--expect", str(expect)] if expect else [])


def converged(counter, target, ctx, begin, check_alive):
    """Waits for the kernel table: `held_all`, or within ctx.slack of `target` (or, without a
    target, any count) unchanged for ctx.quiet_seconds (ctx.long_quiet_seconds when not near)
    in reports written after `begin`. Returns (mono of the last change, routes held); raises
    RuntimeError after ctx.timeout."""
    deadline = time.monotonic() + ctx.timeout
    while time.monotonic() < deadline:
        time.sleep(0.05)
        check_alive()
        done = counter.last("held_all")
        if done:
            return done["mono"], done["held"]
        p = counter.last("progress")
        if not p or p["mono"] < begin:
            continue
        near = target and abs(p["held"] - target) <= ctx.slack
        quiet = ctx.quiet_seconds if near else ctx.long_quiet_seconds
        if p["held"] and time.monotonic() - p["held_changed_mono"] >= quiet:
            return p["held_changed_mono"], p["held"]
    p = counter.last("progress") or {}
    raise RuntimeError(f"the kernel table did not settle within {ctx.timeout} s (holds "
                       f"{p.get('held', 0)})")


def install_rate(counter):
    """Routes per second from the first route the kernel took to the last change."""
    p = counter.last("progress") or {}
    span = p.get("held_changed_mono", 0) - (p.get("first_mono") or 0)
    return p["held"] / span if p.get("first_mono") and span > 0 else None
