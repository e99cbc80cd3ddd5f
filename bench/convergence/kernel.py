"""Workload 5 for convergence.py: a full router into the kernel.

Each run gets two private network namespaces joined by a veth pair: the router's, where every
process of the run (upstreams, device, monitor) runs with its loopback up and r0 = 10.9.0.1/24,
and a host's holding the upstreams' NEXT_HOP 10.9.0.2 on h0 (FRR's zebra ignores routes through
127/8, so the nexthop is on a veth subnet). The machine's own namespace and FIB are never touched;
deleting the namespaces at the end of the run takes every route with them.

The kernel's side is counted by this file run as a program inside the router's namespace
(`kernel.py --count`): it listens to rtnetlink's IPv4 route notifications and keeps the set of
main-table unicast prefixes not put there by the kernel itself (its connected routes), printing
JSON lines as sluice-replay --json does: `progress` every 100 ms (held, held_changed_mono,
first_mono: CLOCK_MONOTONIC of the first route seen) and `held_all` when --expect is reached.
A notification queue that overflows (ENOBUFS) is repaired by a full dump, and counted.

Standard library only; needs root (namespaces, a large socket buffer).
"""

import argparse
import errno
import json
import os
import socket
import struct
import subprocess
import sys
import time

NEXT_HOP = "10.9.0.2"  # what the upstreams send as NEXT_HOP in workload 5
ROUTER_ADDR = "10.9.0.1/24"

# <linux/rtnetlink.h>
RTM_NEWROUTE, RTM_DELROUTE, RTM_GETROUTE = 24, 25, 26
RTMGRP_IPV4_ROUTE = 0x40
RTA_DST, RTA_TABLE = 1, 15
RTN_UNICAST, RTPROT_KERNEL, RT_TABLE_MAIN = 1, 2, 254
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
SO_RCVBUFFORCE = 33

NLMSG_HEAD = struct.Struct("=IHHII")  # nlmsghdr: length, type, flags, seq, pid
# rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags
RTMSG = struct.Struct("=BBBBBBBBI")
ATTR = struct.Struct("=HH")


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


def available():
    """(True, "") when this machine can run workload 5, else (False, why)."""
    if os.geteuid() != 0:
        return False, "network namespaces need root"
    if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
        return False, "`ip netns` does not work here"
    return True, ""


def counter_argv(expect):
    return [sys.executable, os.path.abspath(__file__), "--count"] + (
        ["--expect", str(expect)] if expect else [])


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


# ---------------------------------------------------------------- the counter (--count)

def parse_routes(buf, n, table):
    """Yields (message type, key) for the unicast routes of `table` in buf[:n] that the kernel
    did not add itself; key is (dst_len, dst octets). Also yields (NLMSG_DONE, None); raises
    OSError on an NLMSG_ERROR that reports an error."""
    at = 0
    while at + NLMSG_HEAD.size <= n:
        length, kind = NLMSG_HEAD.unpack_from(buf, at)[:2]
        if length < NLMSG_HEAD.size:
            return
        end = at + length
        if kind == NLMSG_DONE:
            yield NLMSG_DONE, None
        elif kind == NLMSG_ERROR:
            code = struct.unpack_from("=i", buf, at + NLMSG_HEAD.size)[0]
            if code:
                raise OSError(-code, os.strerror(-code))
        elif kind in (RTM_NEWROUTE, RTM_DELROUTE):
            family, dst_len, _, _, tab, proto, _, rtype, _ = RTMSG.unpack_from(
                buf, at + NLMSG_HEAD.size)
            if family != socket.AF_INET or rtype != RTN_UNICAST or proto == RTPROT_KERNEL:
                at += (length + 3) & ~3
                continue
            dst, a = b"", at + NLMSG_HEAD.size + RTMSG.size
            while a + 4 <= end:
                alen, atype = ATTR.unpack_from(buf, a)
                if alen < 4:
                    break
                if atype == RTA_TABLE:
                    tab = struct.unpack_from("=I", buf, a + 4)[0]
                elif atype == RTA_DST:
                    dst = bytes(buf[a + 4:a + alen])
                    break  # the kernel writes RTA_TABLE before RTA_DST
                a += (alen + 3) & ~3
            if tab == table:
                yield kind, (dst_len, dst)
        at += (length + 3) & ~3


def dump(table):
    """The table's prefixes now, by a netlink dump on its own socket."""
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.bind((0, 0))
    req = (NLMSG_HEAD.pack(NLMSG_HEAD.size + RTMSG.size, RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP,
                           1, 0) + RTMSG.pack(socket.AF_INET, 0, 0, 0, 0, 0, 0, 0, 0))
    s.send(req)
    held, buf = set(), bytearray(1 << 20)
    while True:
        n = s.recv_into(buf)
        for kind, key in parse_routes(buf, n, table):
            if kind == NLMSG_DONE:
                s.close()
                return held
            held.add(key)


def emit(event, **fields):
    sys.stdout.write(json.dumps(dict(event=event, **fields)) + "\n")
    sys.stdout.flush()


def count(expect, table):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 256 << 20)  # a burst of notifications
    s.bind((0, RTMGRP_IPV4_ROUTE))
    s.settimeout(0.1)
    held = dump(table)
    changed = first = None
    overruns, buf = 0, bytearray(4 << 20)
    next_report, told_all = 0.0, False
    while True:
        try:
            n = s.recv_into(buf)
            now = time.monotonic()
            size = len(held)
            for kind, key in parse_routes(buf, n, table):
                if kind == RTM_NEWROUTE:
                    held.add(key)
                elif kind == RTM_DELROUTE:
                    held.discard(key)
            if len(held) != size:
                changed = now
                first = first or now
        except socket.timeout:
            now = time.monotonic()
        except OSError as e:
            if e.errno != errno.ENOBUFS:
                raise
            overruns += 1
            now = time.monotonic()
            size = len(held)
            held = dump(table)
            if len(held) != size:
                changed, first = now, first or now
        if expect and not told_all and len(held) >= expect:
            told_all = True
            emit("held_all", mono=changed, held=len(held), overruns=overruns)
        if now >= next_report:
            next_report = now + 0.1
            emit("progress", mono=now, held=len(held), held_changed_mono=changed or 0,
                 first_mono=first, overruns=overruns)


def main():
    ap = argparse.ArgumentParser(description="Counts the kernel's IPv4 routes (see the module "
                                 "docstring); run inside the router's namespace.")
    ap.add_argument("--count", action="store_true", required=True)
    ap.add_argument("--expect", type=int, default=0)
    ap.add_argument("--table", type=int, default=RT_TABLE_MAIN)
    args = ap.parse_args()
    try:
        count(args.expect, args.table)
    except (KeyboardInterrupt, BrokenPipeError):
        pass


if __name__ == "__main__":
    main()
