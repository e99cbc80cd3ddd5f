#!/usr/bin/env python3
"""Convergence benchmark: each BGP daemon as the device under test, side by side.

    sluice-replay upstream(s) ──► device ──► sluice-replay --receive-only (the monitor)

For every device and workload, N runs (default 3), each in a fresh temporary folder with fresh
processes (children of this script, stopped by PID). Measured per run:

  time      from the first UPDATE octet an upstream writes until the monitor holds every
            expected prefix (workload 4: from the first withdrawal until it holds none;
            workload 5: until the monitor and the kernel's table both hold them, the kernel's
            end stamped by bench/fea/kernel_route_counter). Both ends are CLOCK_MONOTONIC
            stamps printed by sluice-replay (--json) and the counter, so the script's own
            latency is not in the number. Workload 6 measures per-UPDATE latencies instead
            (churn.py).
  cpu       CPU seconds (user + system) of all the device's processes over that interval
            (from /proc/PID/stat; OpenBGPD's and Sluice's several processes summed).
  peak rss  the largest sum of VmRSS over the device's processes, sampled every 50 ms.
  peak pss  the same for the proportional set size (sampled every 500 ms and at the end), where
            the shared libraries several processes map count once, not once per process.
  B/route   (peak RSS - RSS before the feed) / prefixes the monitor holds.

"Every expected prefix": with the floor measured first, the number of prefixes the monitor held
in the floor run (the replay straight into the monitor); a device that drops some of them (FRR
and OpenBGPD treat the 4 PCH routes with AS 0 in the path as withdrawn, RFC 7607) converges when
the monitor's set has not changed for --quiet-seconds after every upstream has sent everything;
the time is then that of the last change and the table notes how many prefixes were held.

Standard library only. Run from the repository (or give --build). Needs root for OpenBGPD.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import urllib.parse
import time

sys.dont_write_bytecode = True  # no __pycache__ next to the script
import churn  # noqa: E402
import kernel  # noqa: E402
import machine  # noqa: E402
import obs  # noqa: E402
import rov  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")

DEVICE_AS = 4200000001
MONITOR_AS = 4200000002
UPSTREAM_AS = 4200000101  # upstream k: UPSTREAM_AS + k
NET = "127.19"  # our corner of 127.0.0.0/8: device .0.1, monitor .0.2, upstreams .1.N
DEVICE_ADDR = NET + ".0.1"
MONITOR_ADDR = NET + ".0.2"
GOBGP_NEXT_HOP = "203.0.113.2"  # GoBGP 3.10 treats loopback nexthops as invalid (INTEROP.md)

WORKLOADS = {
    "1": "PCH full table, 1 upstream",
    "2": "PCH full table, 4 upstreams, 4 AS paths per prefix",
    "3": "RIS 76-peer capture (IPv4 peers), full speed",
    "4": "PCH full table withdrawn",
    "5": "PCH full table, 1 upstream, into the kernel FIB (network namespace)",
    "6": "PCH full table, then churn: a RIS session replayed on top (--churn-paces)",
}
# GoBGP last: it is by far the slowest, and results.md is written after every device.
ALL_DEVICES = ["floor", "sluice", "sluice-t1", "sluice-t2", "sluice-t4", "sluice-rib",
               "sluice-rib-t1", "sluice-rib-t2", "sluice-rov", "sluice-rib-rov", "sluice-obs",
               "sluice-rib-obs", "sluice-mgr", "bird",
               "bird-rov", "frr", "openbgpd", "gobgp"]
# The import policy of the ROV devices: reject what RFC 6811 calls invalid, accept the rest.
ROV_POLICY = ("policy-statement rov {\n  term invalid { from { rpki invalid; } then { reject; } }\n"
              "  term rest { then { accept; } }\n}\n")
BIRD_ROV_FILTER = ("filter rov {\n  if roa_check(r4, net, bgp_path.last) = ROA_INVALID then "
                   "reject;\n  accept;\n}")


# ---------------------------------------------------------------- processes and /proc

def free_port(addr):
    s = socket.socket()
    s.bind((addr, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def descendants(roots):
    """The PIDs of `roots` and of all their descendants still alive."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out, todo = set(), list(roots)
    while todo:
        pid = todo.pop()
        if pid in out or not os.path.exists(f"/proc/{pid}"):
            continue
        out.add(pid)
        todo.extend(children.get(pid, []))
    return out


def stat_of(path):
    """(name, CPU seconds: user + system) from a /proc stat file; None when it is gone."""
    try:
        with open(path) as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()
    return stat[stat.find("(") + 1:stat.rfind(")")], (int(fields[11]) + int(fields[12])) / CLK_TCK


def cpu_seconds(pids):
    return sum(s[1] for s in (stat_of(f"/proc/{pid}/stat") for pid in pids) if s)


def rss_bytes(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1]) * PAGE
        except OSError:
            continue
    return total


def pss_bytes(pids):
    """Summed proportional set size: a page that k processes map counts 1/k in each, so the
    shared libraries the several processes of one device map count about once (pages shared
    with processes outside the device count in part too)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
        except OSError:
            continue
    return total


def process_usage(pids):
    """Per process name of a device: CPU seconds so far (user + system) and peak RSS (VmHWM,
    the kernel's high-water mark of the process's RSS) in bytes, summed over processes of the
    same name."""
    out = {}
    for pid in pids:
        stat = stat_of(f"/proc/{pid}/stat")
        if stat is None:
            continue
        try:
            with open(f"/proc/{pid}/status") as f:
                status = f.read()
        except OSError:
            continue
        name, cpu = stat
        hwm = [int(line.split()[1]) * 1024 for line in status.splitlines()
               if line.startswith("VmHWM:")]
        usage = out.setdefault(name, {"cpu": 0.0, "peak_rss": 0})
        usage["cpu"] += cpu
        usage["peak_rss"] += hwm[0] if hwm else 0
    return out


def thread_usage(pids):
    """Per process and thread name (comm) of a device: CPU seconds so far (user + system),
    summed over threads of the same name (a pool's unnamed threads carry the process's name)."""
    out = {}
    for pid in pids:
        process = stat_of(f"/proc/{pid}/stat")
        if process is None:
            continue
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            thread = stat_of(f"/proc/{pid}/task/{tid}/stat")
            if thread is not None:
                key = (process[0], thread[0])
                out[key] = out.get(key, 0.0) + thread[1]
    return out


def thread_text(before, after):
    """thread_usage() deltas of the threads that ran at least 0.01 s, per process, largest CPU
    first: "sluice-bgp: bgp-shard/0 0.61 s, sluice-bgp 0.52 s; sluice-rib: ...". A thread that
    ended before `after` is not in it."""
    by_process = {}
    for (process, name), cpu in after.items():
        delta = cpu - before.get((process, name), 0.0)
        if delta >= 0.01:
            by_process.setdefault(process, []).append((delta, name))
    parts = []
    for process, rows in sorted(by_process.items(), key=lambda kv: -sum(c for c, _ in kv[1])):
        rows.sort(reverse=True)
        parts.append(f"{process}: " + ", ".join(f"{name} {cpu:.2f} s" for cpu, name in rows))
    return "; ".join(parts)


def usage_text(before, after):
    """One line of process_usage() deltas: "sluice-bgp 2.13 s 173 MB, ...", largest CPU first."""
    rows = sorted(((u["cpu"] - before.get(n, {}).get("cpu", 0.0), u["peak_rss"], n)
                   for n, u in after.items()), reverse=True)
    return ", ".join(f"{n} {cpu:.2f} s {rss / 1e6:.0f} MB" for cpu, rss, n in rows)


class Sampler(threading.Thread):
    """Peaks of the summed RSS (every 50 ms) and PSS (every 500 ms: the kernel walks each
    process's pages for it) of a device's processes (re-listed every second)."""

    def __init__(self, roots):
        super().__init__(daemon=True)
        self.roots, self.peak, self.stop_flag = roots, 0, threading.Event()
        self.peak_pss = 0
        self.pids = descendants(roots)

    def run(self):
        n = 0
        while not self.stop_flag.wait(0.05):
            n += 1
            if n % 20 == 0:
                self.pids = descendants(self.roots)
            self.peak = max(self.peak, rss_bytes(self.pids))
            if n % 10 == 0:
                self.peak_pss = max(self.peak_pss, pss_bytes(self.pids))

    def stop(self):
        self.stop_flag.set()
        self.join()
        return self.peak


class Child:
    """A child process with its output in a file; stopped by PID."""
    wrap = None  # workload 5: a function that makes an argv run in the run's namespace

    def __init__(self, argv, out_path, env=None, stdout_pipe=False):
        self.argv, self.out_path = argv, out_path
        self.out = open(out_path, "w")
        self.proc = subprocess.Popen(
            Child.wrap(argv) if Child.wrap else argv,
            stdout=subprocess.PIPE if stdout_pipe else self.out, stderr=self.out,
            stdin=subprocess.DEVNULL, env=env, text=True, start_new_session=True)
        self.pid = self.proc.pid

    def alive(self):
        return self.proc.poll() is None

    def stop(self, timeout=5):
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.out.close()

    def tail(self, n=2000):
        try:
            with open(self.out_path) as f:
                return f.read()[-n:]
        except OSError:
            return ""


class JsonChild(Child):
    """A sluice-replay with --json: its stdout lines are read as they come."""

    def __init__(self, argv, out_path):
        super().__init__(argv, out_path, stdout_pipe=True)
        self.events, self.lock = [], threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        with open(self.out_path + ".json", "w") as record:  # kept with --keep
            for line in self.proc.stdout:
                record.write(line)
                self._take(line)

    def _take(self, line):
        try:
            e = json.loads(line)
        except ValueError:
            return
        with self.lock:
            self.events.append(e)

    def find(self, name):
        with self.lock:
            return [e for e in self.events if e.get("event") == name]

    def last(self, name):
        found = self.find(name)
        return found[-1] if found else None


def wait_for(predicate, seconds, step=0.05):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def run_ok(argv, timeout=10):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        return r.returncode == 0, r.stdout + r.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, str(e)


# ---------------------------------------------------------------- devices

class Topology:
    """What a device must be configured with."""

    def __init__(self, upstreams, port, rtr_port=None, kernel_fib=False):
        self.upstreams = upstreams  # [(address, as)]
        self.port = port            # the device listens on DEVICE_ADDR:port
        self.rtr_port = rtr_port    # ROV devices: stayrtr on 127.0.0.1:rtr_port
        self.monitor = (MONITOR_ADDR, MONITOR_AS)
        # Workload 5: the device installs its routes into the kernel's main table (nexthop
        # kernel.NEXT_HOP on r0); else it holds them in user space only.
        self.kernel_fib = kernel_fib


class Device:
    name = "?"
    label = "?"
    next_hop = None  # what the upstreams send as NEXT_HOP (None: their own address)
    rov = False  # validates against stayrtr, rejecting RPKI-invalid routes from the upstreams

    def available(self, ctx):
        return True, ""

    def kernel_available(self, ctx):
        """Workload 5: (True, "") when the device can program the kernel FIB, else (False, why)."""
        return False, "no kernel FIB: workload 5 runs sluice-mgr, sluice-rib*, BIRD and FRR"

    def rov_available(self, ctx):
        if ctx.quick:
            return False, "ROV runs take the PCH table (no --quick)"
        if not ctx.vrps:
            return False, "no VRP file (--vrps or --make-vrps)"
        if shutil.which("stayrtr") is None:
            return False, "stayrtr not installed (Debian stayrtr)"
        return True, ""

    def wait_vrps(self, ctx):
        """ROV devices: returns once the device holds the whole VRP set; raises RuntimeError."""

    def start(self, topo, tmp, ctx):
        """Starts the processes; returns the root PIDs to account."""
        raise NotImplementedError

    def ready(self):
        return True

    def stop(self):
        # 30 s: with a kernel FIB (workload 5) a daemon takes its routes out as it stops.
        for c in reversed(getattr(self, "children", [])):
            c.stop(timeout=30)

    def logs(self):
        return "\n".join(f"--- {c.argv[0]}:\n{c.tail()}" for c in getattr(self, "children", []))


def programs_built(ctx, rels):
    """(True, "") when every program `rels` names (paths in the build tree) is built, else
    (False, why)."""
    for rel in rels:
        if not os.access(os.path.join(ctx.build, rel), os.X_OK):
            return False, f"{rel} not built in {ctx.build}"
    return True, ""


class Floor(Device):
    name, label = "floor", "floor (replay → monitor)"

    def kernel_available(self, ctx):
        return True, ""  # runs as in workload 1: it gives the expected count


# --bmp-route-monitoring's names, as bgp/1.0 add_bmp_station's route_monitoring takes them.
BMP_VIEWS = {"pre-policy": "BMP_PRE_POLICY", "post-policy": "BMP_POST_POLICY",
             "loc-rib": "BMP_LOC_RIB"}


class Sluice(Device):
    def __init__(self, with_rib, threads, rov_on=False, obs_on=False, bmp_station=True):
        self.with_rib, self.threads, self.rov, self.obs = with_rib, threads, rov_on, obs_on
        obs_label = (", a BMP station and the MRT update log" if bmp_station
                     else ", the MRT update log (no BMP station)")
        self.name = (("sluice-rib" if with_rib else "sluice") + (f"-t{threads}" if threads else "")
                     + ("-rov" if rov_on else "") + ("-obs" if obs_on else ""))
        self.label = "Sluice BGP" + (" + RIB + FEA" if with_rib else "") + (
            f", threads {threads}" if threads else f", threads {os.cpu_count() or 1} (default)") + (
            ", ROV (sluice-rpki)" if rov_on else "") + (
            obs_label if obs_on else "")
        self.sink = None
        self.station_summary = None  # the last run's BMP station line, logged after its result

    def binary(self, ctx, rel):
        return os.path.join(ctx.build, rel)

    def available(self, ctx):
        need = ["finder/sluice-finder", "bgp/process/sluice-bgp", "rtrmgr/cli/sluice"]
        if self.with_rib:
            need += ["rib/sluice-rib", "fea/sluice-fea"]
        if self.rov:
            ok, why = self.rov_available(ctx)
            if not ok:
                return ok, why
            need.append("rpki/sluice-rpki")
        ok, why = programs_built(ctx, need)
        if not ok:
            return ok, why
        if self.threads:
            ok, text = run_ok([self.binary(ctx, "bgp/process/sluice-bgp"), "--help"])
            if "--threads" not in text:
                return False, "this sluice-bgp has no --threads setting"
        return True, ""

    def kernel_available(self, ctx):
        if self.rov or self.obs:
            return False, "ROV and observability runs take workload 1"
        return (True, "") if self.with_rib else (False, "BGP alone has no FIB (sluice-rib* do)")

    def cli(self, *args):
        return run_ok([self.binary(self.ctx, "rtrmgr/cli/sluice"), "--finder", self.finder,
                       *args], timeout=20)

    def start(self, topo, tmp, ctx):
        self.ctx, self.children = ctx, []
        env = dict(os.environ, SLUICE_RUNDIR=tmp)
        self.finder = f"unix:{tmp}/finder.sock"
        self.children.append(Child([self.binary(ctx, "finder/sluice-finder"), "--listen",
                                    self.finder, "--grace-ms", "200"], f"{tmp}/finder.out", env))
        if not wait_for(lambda: self.cli("targets")[0], 20):
            raise RuntimeError("sluice-finder did not start")
        if self.with_rib:
            backend = "netlink" if topo.kernel_fib else "dummy"
            self.children.append(Child([self.binary(ctx, "fea/sluice-fea"), "--finder",
                                        self.finder, "--backend", backend], f"{tmp}/fea.out",
                                       env))
            self.children.append(Child([self.binary(ctx, "rib/sluice-rib"), "--finder",
                                        self.finder], f"{tmp}/rib.out", env))

            def rib_up():
                # `sluice targets` prints each target's name at the start of a line, its methods
                # indented below ("fea_fib/1.0/subscribe_changes" holds "rib" too).
                ok, out = self.cli("targets")
                names = {line.split()[0] for line in out.splitlines()
                         if line.strip() and not line[0].isspace()}
                return ok and {"rib", "fea"} <= names
            if not wait_for(rib_up, 20):
                raise RuntimeError("sluice-rib or sluice-fea did not start")
        if self.with_rib and not topo.kernel_fib:
            # The upstreams' nexthops are on loopback: a static route makes them resolve (in
            # workload 5 they are on r0, which the netlink FEA reports).
            ok, out = self.cli("call", "finder://rib/rib/1.0/add_route4?protocol:txt=static&"
                               "network:ipv4net=127.0.0.0/8&ifname:txt=lo")
            if not ok:
                raise RuntimeError("static route 127.0.0.0/8 refused: " + out)
        if self.rov:
            self.children.append(Child([self.binary(ctx, "rpki/sluice-rpki"), "--finder",
                                        self.finder, "--cache", f"127.0.0.1:{topo.rtr_port}/1"],
                                       f"{tmp}/rpki.out", env))
            # Registered first: a sluice-bgp that sees sluice-rpki's birth a moment before it
            # serves fails its one subscribe and never retries it.
            rpki = self.children[-1]
            if not wait_for(lambda: "ready rpki" in rpki.tail(100000), 20):
                raise RuntimeError("sluice-rpki did not start\n" + rpki.tail())
        argv = [self.binary(ctx, "bgp/process/sluice-bgp"), "--finder", self.finder,
                "--instance", "bgp", "--listen", f"{DEVICE_ADDR}:{topo.port}", "--local-as",
                str(DEVICE_AS), "--bgp-id", "10.255.0.1", "--ipv4-only"]
        if not self.with_rib:
            argv.append("--no-rib")
        if self.rov:
            argv += ["--rpki", "rpki"]
        if self.threads:
            argv += ["--threads", str(self.threads)]
        bgp = Child(argv, f"{tmp}/bgp.out", env)
        self.children.append(bgp)
        if not wait_for(lambda: "ready bgp" in bgp.tail(100000), 20):
            raise RuntimeError("sluice-bgp did not start")
        for addr, asn in topo.upstreams + [topo.monitor]:
            ok, out = self.cli("call", f"finder://bgp/bgp/1.0/add_peer?address:ipvx={addr}&"
                               f"remote_as:u32={asn}&passive:bool=true&hold_time:u32=90&"
                               "ebgp_requires_policy:bool=false")
            if not ok:
                raise RuntimeError(f"add_peer {addr}: {out}")
        if self.obs:
            self.start_observability(tmp)
        policy = None
        if ctx.sluice_import_policy:
            # The same import policy on every upstream (policy-statement "import"), as the
            # router manager would send it (the heavy policy that bgp_pipeline_bench
            # --print-policy prints).
            with open(ctx.sluice_import_policy) as f:
                policy = (f.read(), "import")
        if self.rov:
            policy = (ROV_POLICY, "rov")
        if policy:
            source = urllib.parse.quote(policy[0], safe="")
            for addr, _ in topo.upstreams:
                ok, out = self.cli("call", "finder://bgp/policy_backend/1.0/configure?"
                                   f"filter:txt=import:{addr}&source:txt={source}&"
                                   f"policies:list<txt>={policy[1]}")
                if not ok:
                    raise RuntimeError(f"import policy for {addr}: {out}")
        return [c.pid for c in self.children]

    def start_observability(self, tmp):
        """A BMP station (obs.BmpSink: reads and counts, nothing more) and the MRT update log
        into `tmp`, both on before the table flows; only the log with --bmp-route-monitoring
        none."""
        if self.ctx.bmp_views:
            self.sink = obs.BmpSink()
            ok, out = self.cli("call", "finder://bgp/bgp/1.0/add_bmp_station?address:ipvx="
                               f"127.0.0.1&port:u32={self.sink.port}&route_monitoring:list<txt>="
                               + ",".join(self.ctx.bmp_views))
            if not ok:
                raise RuntimeError("add_bmp_station: " + out)
        pattern = urllib.parse.quote(f"{tmp}/updates.%Y%m%d.%H%M", safe="/")
        ok, out = self.cli("call", "finder://bgp/bgp/1.0/set_mrt?updates:msg=(pattern:txt="
                           f"{pattern}&rotate_s:u32=3600)")
        if not ok:
            raise RuntimeError("set_mrt: " + out)

    def stop(self):
        super().stop()
        if self.sink:
            self.sink.stop()
            s = self.sink.summary()
            self.station_summary = (f"    BMP station: {s['octets']:,} octets over "
                                    f"{s['connections']} connection(s), read in "
                                    f"{s['reader_cpu']:.3f} CPU s")
            self.sink = None

    def wait_vrps(self, ctx):
        """sluice-rpki's union (rpki/1.0 get_status), then sluice-bgp's log of its dump."""
        def rpki_count():
            ok, out = self.cli("call", "finder://rpki/rpki/1.0/get_status")
            m4, m6 = re.search(r"vrps_ipv4:u64=(\d+)", out), re.search(r"vrps_ipv6:u64=(\d+)", out)
            return sum(int(m.group(1)) for m in (m4, m6) if m) if ok else -1
        if not wait_for(lambda: rpki_count() >= ctx.vrp_count, ctx.timeout, 0.5):
            raise RuntimeError(f"sluice-rpki holds {rpki_count()} VRPs, not {ctx.vrp_count}\n"
                               + self.logs())
        bgp = self.children[-1]

        def bgp_count():
            found = re.findall(r"RPKI: (\d+) VRPs", bgp.tail(1 << 20))
            return int(found[-1]) if found else -1
        if not wait_for(lambda: bgp_count() >= ctx.vrp_count, ctx.timeout, 0.2):
            raise RuntimeError(f"sluice-bgp logged {bgp_count()} VRPs, not {ctx.vrp_count}\n"
                               + self.logs())


class SluiceRtrmgr(Device):
    """The whole control plane as an operator runs it: sluice-rtrmgr with a configuration that
    holds only the peers (dummy FEA, no policy, default threads); it starts the Finder, the FEA,
    the RIB and sluice-bgp. The upstreams' loopback nexthops resolve through the dummy FEA's lo;
    in workload 5 the FEA is the netlink one and the nexthop is on the namespace's r0."""
    name = "sluice-mgr"
    label = "Sluice via sluice-rtrmgr (Finder, FEA, RIB, BGP)"
    # sluice-rtrmgr checks at start that it can run every program it may need.
    PROGRAMS = ["rtrmgr/process/sluice-rtrmgr", "finder/sluice-finder", "fea/sluice-fea",
                "rib/sluice-rib", "bgp/process/sluice-bgp", "static_routes/sluice-static",
                "rpki/sluice-rpki", "rtrmgr/cli/sluice"]

    def available(self, ctx):
        return programs_built(ctx, self.PROGRAMS)

    def kernel_available(self, ctx):
        return True, ""

    def config(self, topo):
        peers = "".join(
            f"        peer {addr} {{ as {asn}; local-ip {DEVICE_ADDR}; passive; hold-time 90; "
            "family [ ipv4-unicast ]; }\n" for addr, asn in topo.upstreams + [topo.monitor])
        backend = "netlink" if topo.kernel_fib else "dummy"
        return (f"fea {{ backend {backend}; }}\nprotocols {{\n    bgp {{\n"
                f"        local-as {DEVICE_AS};\n        bgp-id 10.255.0.1;\n"
                f"        listen {DEVICE_ADDR} port {topo.port};\n{peers}    }}\n}}\n")

    def start(self, topo, tmp, ctx):
        conf = os.path.join(tmp, "sluice.conf")
        with open(conf, "w") as f:
            f.write(self.config(topo))
        cli = os.path.join(ctx.build, "rtrmgr/cli/sluice")
        env = dict(os.environ, SLUICE_RUNDIR=tmp)
        rtrmgr = Child([os.path.join(ctx.build, "rtrmgr/process/sluice-rtrmgr"), "--config", conf,
                        "--rundir", tmp], f"{tmp}/rtrmgr.out", env)
        self.children = [rtrmgr]

        def peers_configured():
            ok, out = run_ok([cli, "--finder", f"unix:{tmp}/finder.sock", "show", "bgp",
                              "peers"], timeout=20)
            return ok and all(addr in out for addr, _ in topo.upstreams + [topo.monitor])
        if not wait_for(peers_configured, 30):
            raise RuntimeError("sluice-rtrmgr did not configure the peers\n" + rtrmgr.tail())
        return [rtrmgr.pid]


class Bird(Device):
    def __init__(self, rov_on=False):
        self.rov = rov_on
        self.name = "bird-rov" if rov_on else "bird"
        self.label = "BIRD 2, ROV (roa_check)" if rov_on else "BIRD 2"

    def available(self, ctx):
        if shutil.which("bird") is None:
            return False, "bird not installed (Debian bird2)"
        return self.rov_available(ctx) if self.rov else (True, "")

    def kernel_available(self, ctx):
        return (False, "ROV runs take workload 1") if self.rov else (True, "")

    def start(self, topo, tmp, ctx):
        conf = [f'router id 10.255.0.1;\nlog "{tmp}/bird.log" {{ error, fatal }};',
                "protocol device { }", "ipv4 table igp4;"]
        if topo.kernel_fib:
            # The nexthop resolves through r0's subnet; every route goes to the kernel.
            conf += ['protocol direct { ipv4 { table igp4; }; interface "r0"; }',
                     "protocol kernel { ipv4 { export all; }; }"]
        else:
            conf.append('protocol static igpstatic { ipv4 { table igp4; }; '
                        'route 0.0.0.0/0 via "lo"; }')
        if self.rov:
            conf += ["roa4 table r4;",
                     f"protocol rpki rpki1 {{\n  roa4 {{ table r4; }};\n  remote 127.0.0.1 port "
                     f"{topo.rtr_port};\n  retry keep 5;\n}}", BIRD_ROV_FILTER]
        for i, (addr, asn) in enumerate(topo.upstreams + [topo.monitor]):
            # No policy, as the other daemons run it: every route to every peer (BIRD needs the
            # words; the upstreams get the table back as FRR, GoBGP, OpenBGPD and Sluice send it).
            # ROV: the upstreams' routes through the filter `rov`.
            imp = "filter rov" if self.rov and (addr, asn) != topo.monitor else "all"
            conf.append(
                f"protocol bgp p{i} {{\n  local {DEVICE_ADDR} port {topo.port} as {DEVICE_AS};\n"
                f"  neighbor {addr} as {asn};\n  multihop 2;\n  passive on;\n"
                f"  ipv4 {{ import {imp}; export all; igp table igp4; }};\n}}")
        path = f"{tmp}/bird.conf"
        with open(path, "w") as f:
            f.write("\n".join(conf) + "\n")
        self.sock = f"{tmp}/bird.ctl"
        self.children = [Child(["bird", "-f", "-c", path, "-s", self.sock, "-P",
                                f"{tmp}/bird.pid"], f"{tmp}/bird.out")]
        if not wait_for(lambda: run_ok(["birdc", "-s", self.sock, "show", "status"])[0], 20):
            raise RuntimeError("BIRD did not start")
        return [self.children[0].pid]

    def wait_vrps(self, ctx):
        """BIRD 2.0 does not re-filter accepted routes when VRPs arrive: the whole set first."""
        def count():
            ok, out = run_ok(["birdc", "-s", self.sock, "show", "route", "table", "r4", "count"])
            m = re.search(r"(\d+) of (\d+) routes", out)
            return int(m.group(1)) if ok and m else -1
        if not wait_for(lambda: count() >= ctx.vrp_count4, ctx.timeout, 0.5):
            raise RuntimeError(f"BIRD's r4 holds {count()} VRPs, not {ctx.vrp_count4}\n"
                               + self.logs())


class Frr(Device):
    name, label = "frr", "FRR 8.4 bgpd (-Z; workload 5: with zebra)"
    BGPD = "/usr/lib/frr/bgpd"
    ZEBRA = "/usr/lib/frr/zebra"

    def available(self, ctx):
        return (os.access(self.BGPD, os.X_OK), "FRR not installed (Debian frr)")

    def kernel_available(self, ctx):
        return (os.access(self.ZEBRA, os.X_OK), "FRR's zebra not installed (Debian frr)")

    def start_zebra(self, tmp):
        """Workload 5: zebra as Debian runs it (user frr, its netlink buffer as
        /etc/frr/daemons sets it), in a folder of its own that user can write; returns its
        zserv socket, which bgpd then feeds instead of running with -Z."""
        folder = f"{tmp}/zebra"
        os.makedirs(folder)
        shutil.chown(folder, "frr", "frr")
        os.chmod(tmp, 0o755)
        path = f"{folder}/zebra.conf"
        with open(path, "w") as f:
            f.write(f"hostname bench\nlog file {folder}/zebra.log errors\n!\n")
        zserv = f"{folder}/zserv.api"
        zebra = Child([self.ZEBRA, "-f", path, "-i", f"{folder}/zebra.pid", "--vty_socket",
                       folder, "-z", zserv, "-P", "0", "-s", "90000000"], f"{tmp}/zebra.out")
        self.children.append(zebra)
        if not wait_for(lambda: run_ok(["vtysh", "--vty_socket", folder, "-d", "zebra", "-c",
                                        "show version"])[0], 20):
            raise RuntimeError("FRR zebra did not start\n" + zebra.tail())
        return zserv

    def start(self, topo, tmp, ctx):
        conf = ["frr defaults traditional", "hostname bench", f"log file {tmp}/bgpd.log errors",
                "!", f"router bgp {DEVICE_AS}", " bgp router-id 10.255.0.1",
                " no bgp ebgp-requires-policy", " no bgp network import-check",
                " bgp allow-martian-nexthop"]
        # Fed by zebra, bgpd looks up the interface of a session's local address, and zebra
        # knows no address in 127/8: the interface is named instead (the sessions are passive).
        source = "lo" if topo.kernel_fib else DEVICE_ADDR
        for addr, asn in topo.upstreams + [topo.monitor]:
            n = f" neighbor {addr}"
            conf += [f"{n} remote-as {asn}", f"{n} passive", f"{n} ebgp-multihop 2",
                     f"{n} update-source {source}", f"{n} advertisement-interval 0"]
        conf += ["!"]
        path = f"{tmp}/bgpd.conf"
        with open(path, "w") as f:
            f.write("\n".join(conf) + "\n")
        self.vty, self.children = tmp, []
        zebra = ["-z", self.start_zebra(tmp)] if topo.kernel_fib else ["-Z"]
        self.children.append(Child([self.BGPD] + zebra + [
            "-S", "-f", path, "-i", f"{tmp}/bgpd.pid", "--vty_socket", tmp, "-p", str(topo.port),
            "-l", DEVICE_ADDR, "-P", "0"], f"{tmp}/bgpd.out"))
        if not wait_for(lambda: run_ok(["vtysh", "--vty_socket", tmp, "-d", "bgpd", "-c",
                                        "show bgp summary"])[0], 20):
            raise RuntimeError("FRR bgpd did not start")
        return [c.pid for c in self.children]


class GoBgp(Device):
    name, label = "gobgp", "GoBGP 3.10"
    next_hop = GOBGP_NEXT_HOP

    def kernel_available(self, ctx):
        return False, "GoBGP programs a FIB only through FRR's zebra (not set up here)"

    def available(self, ctx):
        return (shutil.which("gobgpd") is not None, "gobgpd not installed (Debian gobgpd)")

    def start(self, topo, tmp, ctx):
        api = free_port("127.0.0.1")
        conf = [f'[global.config]\n  as = {DEVICE_AS}\n  router-id = "10.255.0.1"\n'
                f'  port = {topo.port}\n  local-address-list = ["{DEVICE_ADDR}"]\n']
        for addr, asn in topo.upstreams + [topo.monitor]:
            conf.append(
                f'[[neighbors]]\n  [neighbors.config]\n    neighbor-address = "{addr}"\n'
                f"    peer-as = {asn}\n  [neighbors.transport.config]\n"
                f'    passive-mode = true\n    local-address = "{DEVICE_ADDR}"\n'
                "  [neighbors.ebgp-multihop.config]\n    enabled = true\n    multihop-ttl = 2\n"
                "  [[neighbors.afi-safis]]\n    [neighbors.afi-safis.config]\n"
                '      afi-safi-name = "ipv4-unicast"\n')
        path = f"{tmp}/gobgpd.toml"
        with open(path, "w") as f:
            f.write("\n".join(conf))
        self.api = api
        self.children = [Child(["gobgpd", "-f", path, "-t", "toml", "-l", "error", "-p",
                                f"--api-hosts=127.0.0.1:{api}", "--pprof-disable"],
                               f"{tmp}/gobgpd.out")]
        if not wait_for(lambda: run_ok(["gobgp", "-p", str(api), "global"])[0], 20):
            raise RuntimeError("gobgpd did not start")
        return [self.children[0].pid]


class OpenBgpd(Device):
    name, label = "openbgpd", "OpenBGPD 7.7"

    def kernel_available(self, ctx):
        return False, "OpenBGPD 7.7 on Linux cannot program the FIB"

    def available(self, ctx):
        if not os.access("/usr/sbin/bgpd", os.X_OK) or shutil.which("bgpctl") is None:
            return False, "OpenBGPD not installed (Debian openbgpd)"
        if os.geteuid() != 0:
            return False, "OpenBGPD must start as root"
        import pwd
        try:
            pwd.getpwnam("_openbgpd")
        except KeyError:
            return False, "no _openbgpd user (systemd-sysusers /usr/lib/sysusers.d/openbgpd.conf)"
        return True, ""

    def start(self, topo, tmp, ctx):
        os.makedirs("/run/openbgpd", exist_ok=True)  # its chroot
        self.sock = f"{tmp}/bgpd.sock"
        conf = [f"AS {DEVICE_AS}", "router-id 10.255.0.1",
                f"listen on {DEVICE_ADDR} port {topo.port}", f'socket "{self.sock}"',
                "fib-update no"]
        for addr, asn in topo.upstreams + [topo.monitor]:
            conf.append(f"neighbor {addr} {{\n  remote-as {asn}\n  local-address {DEVICE_ADDR}\n"
                        "  multihop 2\n  passive\n}")
        conf += ["allow from any", "allow to any"]
        path = f"{tmp}/bgpd.conf"
        with open(path, "w") as f:
            f.write("\n".join(conf) + "\n")
        os.chmod(path, 0o644)
        os.chmod(tmp, 0o755)
        self.children = [Child(["/usr/sbin/bgpd", "-d", "-f", path], f"{tmp}/bgpd.out")]
        if not wait_for(lambda: run_ok(["bgpctl", "-s", self.sock, "show"])[0], 20):
            raise RuntimeError("OpenBGPD did not start")
        return [self.children[0].pid]


def make_device(name, ctx):
    if name == "floor":
        return Floor()
    obs_on = name.endswith("-obs")
    name = name[:-len("-obs")] if obs_on else name
    rov_on = name.endswith("-rov")
    base = name[:-len("-rov")] if rov_on else name
    if base == "sluice-mgr":
        return SluiceRtrmgr()
    if base.startswith("sluice"):
        threads = int(base.rsplit("-t", 1)[1]) if "-t" in base else 0
        return Sluice(base.startswith("sluice-rib"), threads, rov_on, obs_on,
                      bmp_station=bool(ctx.bmp_views))
    if base == "bird":
        return Bird(rov_on)
    return {"frr": Frr, "gobgp": GoBgp, "openbgpd": OpenBgpd}[base]()


# ---------------------------------------------------------------- one run

class Context:
    pass


def replay_bin(ctx):
    return os.path.join(ctx.build, "bgp/replay/sluice-replay")


def upstream_specs(workload, ctx):
    """[(argv tail with the routes, local address, AS, sessions)] for the workload."""
    if ctx.quick:
        routes = ["--synthetic", str(ctx.quick_prefixes)]
    else:
        routes = ["--mrt", os.path.join(ctx.data, "mrt", "pch-2015-10-23-fulltable-updates.mrt.gz")]
    if workload in ("1", "4", "5", "6"):  # 6: the churn upstreams start later (churn.py)
        return [(routes + ["--prepend-own-as"], f"{NET}.1.1", UPSTREAM_AS, 1)]
    if workload == "2":
        return [(routes + ["--prepend-own-as", "--path-variant", str(k)], f"{NET}.1.{k + 1}",
                 UPSTREAM_AS + k, 1) for k in range(4)]
    if workload == "3":
        if ctx.quick:  # 4 synthetic tables with different seeds stand in for the capture's peers
            return [(["--synthetic", str(ctx.quick_prefixes // 4), "--seed", str(k + 1),
                      "--prepend-own-as"], f"{NET}.1.{k + 1}", UPSTREAM_AS, 1) for k in range(4)]
        ris = os.path.join(ctx.data, "mrt", "ris-2018-12-18-updates-76peers.mrt.gz")
        return [(["--mrt", ris, "--all-peers", "--ipv4-only", "--prepend-own-as"],
                 f"{NET}.1.1", UPSTREAM_AS, ctx.ris_ipv4_peers)]
    raise ValueError(workload)


def ris_ipv4_peer_count(ctx):
    ris = os.path.join(ctx.data, "mrt", "ris-2018-12-18-updates-76peers.mrt.gz")
    ok, out = run_ok([replay_bin(ctx), "--mrt", ris, "--list-peers", "--ipv4-only"], timeout=120)
    if not ok:
        raise RuntimeError("sluice-replay --list-peers: " + out)
    return sum(1 for line in out.splitlines() if line.strip())


def add_addr(base, i):
    a, b, c, d = map(int, base.split("."))
    n = (a << 24 | b << 16 | c << 8 | d) + i
    return f"{n >> 24 & 255}.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"


def measure(device, workload, ctx, expect, log):
    """One run; returns a dict of numbers, or raises RuntimeError."""
    tmp = tempfile.mkdtemp(prefix=f"sluice-conv-{device.name}-")
    specs = upstream_specs(workload, ctx)
    upstream_peers = []
    for _, addr, asn, sessions in specs:
        upstream_peers += [(add_addr(addr, i), asn) for i in range(sessions)]
    if workload == "6":  # configured now, started once the table converged
        upstream_peers += churn.peers(NET, UPSTREAM_AS, ctx.churn_paces)
    floor = isinstance(device, Floor)
    procs, monitors, upstreams, roots = [], [], [], []
    cache = netns = counter = None
    kernel_fib = workload == "5" and not floor
    # An ROV device's monitor gets no --expect (it holds fewer prefixes than the floor's): its
    # run ends on the quiet rule, short when within --slack of the count computed here.
    quiet_target = expect
    if device.rov:
        quiet_target, expect = ctx.rov_expect, None
    try:
        if floor:
            # Each upstream straight into its own monitor, which listens.
            targets = []
            for i, (_, addr, asn, sessions) in enumerate(specs):
                port = free_port(MONITOR_ADDR)
                m = JsonChild([replay_bin(ctx), "--listen", f"{MONITOR_ADDR}:{port}",
                               "--local-as", str(MONITOR_AS), "--receive-only", "--linger",
                               "--json", "--quiet", "--hold-time", "90"]
                              + (["--expect", str(expect // len(specs))] if expect else []),
                              f"{tmp}/monitor{i}.out")
                monitors.append(m)
                targets.append(f"{MONITOR_ADDR}:{port}")
            time.sleep(0.3)
        else:
            port = free_port(DEVICE_ADDR)
            if device.rov:
                cache = rov.Stayrtr(ctx.vrps, tmp, Child, free_port)
            if kernel_fib:
                netns = kernel.Netns()
                Child.wrap = netns.wrap  # every process of the run, from here on
            topo = Topology(upstream_peers, port, cache.port if cache else None, kernel_fib)
            procs.append(device)
            roots = device.start(topo, tmp, ctx)
            if device.rov:
                t = time.monotonic()
                device.wait_vrps(ctx)
                log(f"    {device.name}: {ctx.vrp_count} VRPs in {time.monotonic() - t:.1f} s")
                cache.pause()  # resumed for the re-validation phase
            m = JsonChild([replay_bin(ctx), "--connect", f"{DEVICE_ADDR}:{port}",
                           "--local-address", MONITOR_ADDR, "--local-as", str(MONITOR_AS),
                           "--peer-as", str(DEVICE_AS), "--receive-only", "--linger", "--json",
                           "--quiet", "--hold-time", "90"]
                          + (["--expect", str(expect)] if expect else []),
                          f"{tmp}/monitor.out")
            monitors.append(m)
            targets = [f"{DEVICE_ADDR}:{port}"] * len(specs)
            if not wait_for(lambda: (m.last("progress") or {}).get("established") == 1, 30,
                            0.1):
                raise RuntimeError("the monitor's session did not come up\n" + device.logs()
                                   + m.tail())
            if kernel_fib:
                counter = JsonChild(kernel.counter_argv(ctx.build, expect), f"{tmp}/kernel.out")
                if not wait_for(lambda: counter.last("progress"), 10):
                    raise RuntimeError("the kernel route counter did not start\n"
                                       + counter.tail())
        pids = descendants(roots)
        sampler = Sampler(roots)
        sampler.start()
        time.sleep(0.3)
        before = descendants(roots)
        idle_rss = rss_bytes(before)
        cpu0 = cpu_seconds(before)
        usage0 = process_usage(before)
        threads0 = thread_usage(before)
        feed_begin = time.monotonic()
        for i, (routes, addr, asn, sessions) in enumerate(specs):
            argv = [replay_bin(ctx), "--connect", targets[i], "--local-address", addr,
                    "--local-as", str(asn), "--hold-time", "90", "--linger", "--json",
                    "--quiet"] + routes
            if not floor:
                argv += ["--peer-as", str(DEVICE_AS)]
            next_hop = kernel.NEXT_HOP if kernel_fib else device.next_hop
            argv += ["--next-hop", next_hop] if next_hop else ["--next-hop-self"]
            if workload == "4":
                argv.append("--withdraw-on-signal")
            upstreams.append(JsonChild(argv, f"{tmp}/upstream{i}.out"))
        total_sessions = sum(s[3] for s in specs)

        def check_alive():
            for c in upstreams + monitors + ([counter] if counter else []):
                if not c.alive():
                    raise RuntimeError(f"{c.argv[0]} exited early:\n{c.tail()}\n"
                                       + device.logs())

        def converged(sent_event, done_event, target_zero, begin):
            """Waits from `begin` (CLOCK_MONOTONIC, like the "mono" stamps); returns (end mono,
            prefixes held)."""
            deadline = begin + ctx.timeout
            all_sent_at = None
            while time.monotonic() < deadline:
                time.sleep(0.05)
                check_alive()
                done = [mm.last(done_event) for mm in monitors]
                if all(done):
                    held = sum((mm.last("progress") or {}).get("held", 0) for mm in monitors)
                    return max(d["mono"] for d in done), (0 if target_zero else expect or held)
                sent = sum(len(u.find(sent_event)) for u in upstreams)
                progress = [mm.last("progress") for mm in monitors]
                if sent >= total_sessions and all_sent_at is None:
                    all_sent_at = time.monotonic()
                if all_sent_at is not None and all(progress):
                    # Only reports written after everything was sent count.
                    if min(p["mono"] for p in progress) < all_sent_at + 1:
                        continue
                    changed = max(p["held_changed_mono"] for p in progress)
                    if changed < begin:
                        raise RuntimeError(f"the monitor's prefixes did not change (held "
                                           f"{sum(p['held'] for p in progress)})\n"
                                           + device.logs())
                    held = sum(p["held"] for p in progress)
                    # Within a few prefixes of the expected count (the AS 0 routes): a short
                    # wait; else a long one, as some daemons pause for seconds mid-table.
                    near = quiet_target and (held <= ctx.slack if target_zero
                                             else abs(held - quiet_target) <= ctx.slack)
                    quiet = ctx.quiet_seconds if near else ctx.long_quiet_seconds
                    if time.monotonic() - changed >= quiet:
                        return changed, held
            held = sum((mm.last("progress") or {}).get("held", 0) for mm in monitors)
            raise RuntimeError(f"no convergence within {ctx.timeout} s (monitor holds {held})\n"
                               + device.logs())

        def first_mono(event):
            found = [e["mono"] for u in upstreams for e in u.find(event)]
            return min(found) if found else None

        end, held = converged("table_sent", "held_all", False, feed_begin)
        start = first_mono("table_start")
        fib = None
        if counter:
            try:
                fib = kernel.converged(counter, quiet_target, ctx, time.monotonic(), check_alive)
            except RuntimeError as e:
                raise RuntimeError(f"{e}\n{device.logs()}")
        after = descendants(roots)
        cpu1 = cpu_seconds(after)
        usage1 = process_usage(after)
        threads1 = thread_usage(after)
        result = {"seconds": max(end, fib[0] if fib else end) - start, "cpu": cpu1 - cpu0,
                  "held": held,
                  "processes": usage_text(usage0, usage1) if len(usage1) > 1 else "",
                  "threads": thread_text(threads0, threads1)}
        if fib:
            result["fib"] = {"downstream": end - start, "kernel": fib[0] - start,
                             "routes": fib[1], "rate": kernel.install_rate(counter),
                             "overruns": (counter.last("progress") or {}).get("overruns", 0)}
        if workload == "4":
            cpu0 = cpu_seconds(descendants(roots))
            withdraw_begin = time.monotonic()
            for u in upstreams:
                u.proc.send_signal(signal.SIGUSR1)
            end, held = converged("sent", "held_none", True, withdraw_begin)
            start = first_mono("withdraw_start")
            if start is None:
                raise RuntimeError("the upstream did not start withdrawing")
            result = {"seconds": end - start, "cpu": cpu_seconds(descendants(roots)) - cpu0,
                      "held": held, "table_held": result["held"]}
        peak = sampler.stop()
        if device.rov and workload == "1" and ctx.revalidate_changes:
            result["reval"] = revalidate(device, ctx, cache, port, roots, upstreams + monitors,
                                         m)
        result["peak_rss"] = peak
        result["peak_pss"] = max(sampler.peak_pss, pss_bytes(descendants(roots)))
        base = result.get("table_held", result["held"])
        result["bytes_per_route"] = (peak - idle_rss) / base if base and roots else 0
        if workload == "6":
            result["churn"] = churn.run(sys.modules[__name__], device, ctx, tmp, port, roots,
                                        upstreams + monitors, log)
        del pids
        return result
    finally:
        for c in upstreams + monitors + ([counter] if counter else []):
            c.stop()
        # What a device's stop leaves behind (a supervisor killed before its children) dies too.
        left = descendants(roots)
        for d in procs:
            d.stop()
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        Child.wrap = None
        if netns:
            netns.delete()
        if cache:
            cache.stop()
        if ctx.keep:
            log(f"    kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def revalidate(device, ctx, cache, port, roots, children, monitor):
    """The re-validation phase: the cache's file rewritten with ctx.rewritten (the VRPs of
    --revalidate-changes with a new origin); from the rename until the UPDATEs the device sends
    the monitor stop (--revalidate-wait at least, then --quiet-seconds without one with
    prefixes). Returns seconds (None: nothing changed), UPDATEs, prefixes announced and withdrawn
    in them, the device's CPU seconds, the prefixes the monitor holds after, and `missed` (frames
    the capture lost: the counts are exact when 0)."""
    try:
        counter = rov.UpdateCounter(DEVICE_ADDR, port, MONITOR_ADDR)
    except OSError as e:
        raise RuntimeError(f"re-validation: no capture on lo (root needed): {e}")
    counter.start()
    staged = rov.write_vrps(ctx.rewritten, cache.path, replace=False)
    time.sleep(0.5)
    cpu0 = cpu_seconds(descendants(roots))
    cache.resume()
    t0 = time.monotonic()
    os.replace(staged, cache.path)
    while True:
        time.sleep(0.1)
        for c in children:
            if not c.alive():
                counter.stop()
                raise RuntimeError(f"{c.argv[0]} exited during re-validation:\n{c.tail()}")
        now, snap = time.monotonic(), counter.snapshot()
        last = snap["last_mono"] or t0
        if now - t0 >= ctx.revalidate_wait and now - last >= ctx.quiet_seconds:
            break
        if now - t0 >= ctx.timeout:
            break
    cpu = cpu_seconds(descendants(roots)) - cpu0
    missed = counter.stop()
    snap = counter.snapshot()
    # Against the script's RFC 6811 states: flips the monitor did not see, and prefixes sent
    # whose state did not change.
    to_invalid, from_invalid = ctx.flip_sets
    final = snap["final"]
    unseen = (sum(1 for p in to_invalid if final.get(p) is not False)
              + sum(1 for p in from_invalid if final.get(p) is not True))
    other = sum(1 for p in final if p not in to_invalid and p not in from_invalid)
    return {"seconds": snap["last_mono"] - t0 if snap["last_mono"] else None,
            "updates": snap["updates"], "announced": snap["announced"],
            "withdrawn": snap["withdrawn"], "cpu": cpu, "unseen": unseen, "other": other,
            "held": (monitor.last("progress") or {}).get("held", 0), "missed": missed}


# ---------------------------------------------------------------- report

def fmt_range(values, fmt):
    med = statistics.median(values)
    if len(values) == 1:
        return fmt(med)
    return f"{fmt(med)} ({fmt(min(values))}–{fmt(max(values))})"


def table_markdown(results, workloads, devices, runs, expect_of):
    lines = []
    for w in workloads:
        lines += [f"### Workload {w}: {WORKLOADS[w]}", ""]
        if expect_of.get(w):
            lines += [f"Expected prefixes at the monitor (from the floor run): {expect_of[w]:,}", ""]
        lines += ["| device | time s | CPU s | peak RSS MB | peak PSS MB | bytes/prefix | prefixes held "
                  "| runs |", "|---|---|---|---|---|---|---|---|"]
        for d in devices:
            r = results.get((w, d.name))
            if r is None:
                continue
            if isinstance(r, str):
                lines.append(f"| {d.label} | n/a: {r} | | | | | | |")
                continue
            ok = [x for x in r if isinstance(x, dict)]
            errors = [x for x in r if isinstance(x, str)]
            if not ok:
                lines.append(f"| {d.label} | failed: {errors[0][:120]} | | | | | | 0/{len(r)} |")
                continue
            floor = isinstance(d, Floor)
            held = sorted({x["held"] for x in ok})
            lines.append(
                f"| {d.label} | {fmt_range([x['seconds'] for x in ok], lambda v: f'{v:.2f}')} | "
                + ("–" if floor else fmt_range([x['cpu'] for x in ok], lambda v: f'{v:.2f}'))
                + " | "
                + ("–" if floor else fmt_range([x['peak_rss'] / 1e6 for x in ok],
                                               lambda v: f'{v:.0f}'))
                + " | "
                + ("–" if floor else fmt_range([x.get('peak_pss', 0) / 1e6 for x in ok],
                                               lambda v: f'{v:.0f}'))
                + " | "
                + ("–" if floor else fmt_range([x['bytes_per_route'] for x in ok],
                                               lambda v: f'{v:.0f}'))
                + f" | {', '.join(f'{h:,}' for h in held)} | {len(ok)}/{len(r)} |")
        lines.append("")
    return "\n".join(lines)


def chart(results, workloads, devices, path, log):
    if shutil.which("gnuplot") is None:
        log("gnuplot not found (Debian gnuplot-nox): no chart")
        return False
    data = path + ".dat"
    names = [d for d in devices
             if any(isinstance(results.get((w, d.name)), list) for w in workloads)]
    with open(data, "w") as f:
        f.write("device " + " ".join(f'"workload {w}"' for w in workloads) + "\n")
        for d in names:
            row = []
            for w in workloads:
                r = results.get((w, d.name))
                ok = [x for x in r if isinstance(x, dict)] if isinstance(r, list) else []
                row.append(f"{statistics.median([x['seconds'] for x in ok]):.3f}" if ok else "NaN")
            f.write('"' + d.label.replace('"', "") + '" ' + " ".join(row) + "\n")
    script = f"""set terminal pngcairo size 1200,600 noenhanced
set output '{path}'
set title 'Convergence time, median of runs (log scale; lower is better)'
set ylabel 'seconds'
set logscale y
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -30
set key top left autotitle columnheader
set grid ytics
plot for [i=2:{len(workloads) + 1}] '{data}' using i:xtic(1)
"""
    ok, out = run_ok(["gnuplot", "-e", script.replace("\n", "; ")], timeout=60)
    if not ok:
        with open(path + ".gp", "w") as f:
            f.write(script)
        ok, out = run_ok(["gnuplot", path + ".gp"], timeout=60)
    if not ok:
        log("gnuplot failed: " + out)
    os.remove(data)
    return ok


def prepare_rov(ctx, args, log):
    """ctx.vrps (the file), vrp_count, rov_expect (prefixes an ROV device keeps), rewritten (the
    VRPs of the re-validation phase) and flips (routes whose RFC 6811 state the rewrite turns
    to or from invalid), computed here from the PCH table (bgpdump -m)."""
    mrt = os.path.join(ctx.data, "mrt", "pch-2015-10-23-fulltable-updates.mrt.gz")
    t = time.monotonic()
    routes = rov.pch_routes(mrt)
    if args.make_vrps:
        ctx.vrps = args.vrps or os.path.join(args.out, "vrps.json")
        rov.write_vrps(rov.make_vrps(routes, args.make_vrps), ctx.vrps)
        log(f"wrote {ctx.vrps}")
    if not ctx.vrps:
        return
    ctx.vrps = os.path.abspath(ctx.vrps)
    vrps = rov.read_vrps(ctx.vrps)
    ctx.vrp_count = len(set(vrps))  # stayrtr drops duplicates
    ctx.vrp_count4 = len({v for v in vrps if isinstance(v[0], int)})
    before = rov.Validator(vrps).states(routes)
    ctx.rov_states = {k: sum(1 for v in before.values() if v == k)
                      for k in ("valid", "invalid", "not-found")}
    ctx.rov_expect = len(routes) - ctx.rov_states["invalid"]
    ctx.rewritten = rov.rewrite_vrps(vrps, routes, args.revalidate_changes)
    ctx.changed_vrps = sum(1 for a, b in zip(vrps, ctx.rewritten) if a != b)
    after = rov.Validator(ctx.rewritten).states(routes)
    ctx.flip_sets = ({k for k, v in after.items() if v == "invalid" and before[k] != "invalid"},
                     {k for k, v in after.items() if v != "invalid" and before[k] == "invalid"})
    ctx.flips = {"to_invalid": len(ctx.flip_sets[0]), "from_invalid": len(ctx.flip_sets[1])}
    log(f"VRPs: {ctx.vrp_count:,} in {ctx.vrps}; PCH routes {len(routes):,}: {ctx.rov_states}; "
        f"re-validation: {ctx.changed_vrps:,} VRPs change, {ctx.flips} "
        f"({time.monotonic() - t:.0f} s)")


def rov_markdown(results, devices, ctx):
    """The VRPs and the re-validation phase's table (what ROV costs: overhead_markdown)."""
    lines = ["### RPKI route origin validation (workload 1)", ""]
    if getattr(ctx, "vrp_count", None):
        lines += [f"VRPs: {ctx.vrp_count:,} (IPv4, `{os.path.basename(ctx.vrps)}`), served by "
                  "stayrtr on loopback. RFC 6811 states of the PCH table against them, computed "
                  f"by the script: {ctx.rov_states['valid']:,} valid, "
                  f"{ctx.rov_states['invalid']:,} invalid, {ctx.rov_states['not-found']:,} "
                  f"not-found; an ROV device should hold about {ctx.rov_expect:,} prefixes.", ""]
    lines.append("")
    if getattr(ctx, "flips", None):
        lines += [f"Re-validation: {ctx.changed_vrps:,} VRPs get a new origin AS (file rewritten "
                  "atomically; stayrtr re-reads it every second). Expected by the script: "
                  f"{ctx.flips['to_invalid']:,} prefixes turn invalid (withdrawn), "
                  f"{ctx.flips['from_invalid']:,} stop being invalid (announced). Time: from the "
                  "rename until the last UPDATE with prefixes the monitor was sent (captured on "
                  "lo).", "",
                  "| device | time s | UPDATEs | announced | withdrawn | flips not seen | "
                  "others sent | CPU s | held after | runs |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for d in devices:
            r = results.get(("1", d.name))
            ok = [x["reval"] for x in r if isinstance(x, dict) and "reval" in x] \
                if isinstance(r, list) else []
            if not ok:
                continue
            secs = [x["seconds"] for x in ok if x["seconds"] is not None]
            missed = sum(x["missed"] for x in ok)
            lines.append(
                f"| {d.label} | "
                + (fmt_range(secs, lambda v: f"{v:.2f}") if secs else "no change")
                + "".join(" | " + fmt_range([x[k] for x in ok], lambda v: f"{v:,.0f}")
                          for k in ("updates", "announced", "withdrawn", "unseen", "other"))
                + f" | {fmt_range([x['cpu'] for x in ok], lambda v: f'{v:.2f}')}"
                + f" | {fmt_range([x['held'] for x in ok], lambda v: f'{v:,.0f}')}"
                + f" | {len(ok)}{f' (capture lost {missed} frames)' if missed else ''} |")
        lines.append("")
    return "\n".join(lines)


def unavailable(d, w, ctx, args):
    """Why device `d` cannot run workload `w` here, or None."""
    ok, why = d.available(ctx)
    if ok and isinstance(d, Floor) and w == "3" and not args.quick:
        ok, why = False, "the monitor takes one session; the capture has one per peer"
    if ok and isinstance(d, Floor) and w == "6":
        ok, why = False, "no device between the upstreams and the monitor to time"
    if ok and w == "5":
        ok, why = d.kernel_available(ctx)
        if ok and not isinstance(d, Floor):
            ok, why = kernel.available(ctx.build)
    return None if ok else why


def run_order(devices, runs, interleave):
    """(run index, device) in the order to run them: each device's runs together, or with
    `interleave` round by round (every device once per round), so that a machine whose speed
    drifts weighs on every device alike and runs of one round can be compared pairwise. The
    floor, first in `devices`, runs first either way: it gives the expected counts."""
    if interleave:
        return [(i, d) for i in range(runs) for d in devices]
    return [(i, d) for d in devices for i in range(runs)]


def run_once(d, w, i, ctx, expect_of, log):
    """One measured run of device `d` on workload `w`: its result, or the error's first line."""
    try:
        # Workload 6's table is workload 1's: so is the expected count.
        r = measure(d, w, ctx, expect_of.get(w, expect_of.get("1") if w == "6" else None), log)
    except RuntimeError as e:
        log(f"workload {w} {d.name} run {i + 1}: FAILED {e}")
        log_station(d, log)
        return str(e).splitlines()[0]
    log(f"workload {w} {d.name} run {i + 1}: {r['seconds']:.3f} s, cpu {r['cpu']:.2f} s, "
        f"peak {r['peak_rss'] / 1e6:.0f} MB (PSS {r['peak_pss'] / 1e6:.0f} MB), held {r['held']}")
    if r.get("processes"):
        log(f"    per process (CPU, peak RSS): {r['processes']}")
    if r.get("threads"):
        log(f"    per thread (CPU): {r['threads']}")
    if "reval" in r:
        log(f"    re-validation: {r['reval']}")
    log_station(d, log)
    return r


def log_station(d, log):
    """What an -obs device's BMP station read in the run just ended, after the run's own lines."""
    if getattr(d, "station_summary", None):
        log(d.station_summary)
        d.station_summary = None


# Devices that are another device plus one feature: what the feature costs is their difference.
FEATURE_SUFFIXES = {"-obs": "a BMP station and the MRT update log", "-rov": "RPKI ROV"}


def overhead_markdown(results, workloads, devices, interleaved):
    """What each feature device (FEATURE_SUFFIXES) costs against the same device without it, in
    time and CPU: with interleaved runs the median (min-max) of the per-round ratios, else the
    ratio of the medians."""
    names = {d.name for d in devices}
    rows = []
    for w in workloads:
        for d in devices:
            suffix = next((x for x in FEATURE_SUFFIXES if d.name.endswith(x)), None)
            base = d.name[:-len(suffix)] if suffix else None
            a, b = results.get((w, base)), results.get((w, d.name))
            if base not in names or not isinstance(a, list) or not isinstance(b, list):
                continue
            cells = []
            for key in ("seconds", "cpu"):
                if interleaved:
                    ratios = [y[key] / x[key] for x, y in zip(a, b)
                              if isinstance(x, dict) and isinstance(y, dict) and x[key] > 0]
                else:
                    xs = [x[key] for x in a if isinstance(x, dict)]
                    ys = [y[key] for y in b if isinstance(y, dict)]
                    ratios = [statistics.median(ys) / statistics.median(xs)] if xs and ys else []
                cells.append(fmt_range(ratios, lambda v: f"{(v - 1) * 100:+.1f}%")
                             if ratios else "–")
            rounds = sum(isinstance(x, dict) and isinstance(y, dict) for x, y in zip(a, b))
            rows.append(f"| {w} | {d.name} | {base} | {FEATURE_SUFFIXES[suffix]} | {cells[0]} | "
                        f"{cells[1]} | {rounds if interleaved else 'not interleaved'} |")
    if not rows:
        return ""
    how = ("the median (min–max) of the per-round ratios" if interleaved else
           "the ratio of the medians (runs not interleaved: --interleave pairs them by round)")
    return "\n".join(["", "### What a feature costs", "",
                      f"Each device against the same device without the feature: {how}.", "",
                      "| workload | device | against | feature | time | CPU | rounds |",
                      "|---|---|---|---|---|---|---|"] + rows + [""])


def fib_markdown(results, devices):
    """Workload 5's own table: when the kernel and the downstream peer each held the table."""
    lines = ["", "#### Workload 5: when the kernel and the downstream peer held the table", "",
             "Each from the first UPDATE octet the upstream sent. The kernel's routes are "
             "counted from its rtnetlink notifications (main table, unicast, not the kernel's "
             "own connected routes); the install rate is routes over the time from the first "
             "route the kernel took to the last change. FRR runs zebra and bgpd (not -Z) here.",
             "", "| device | both s | downstream s | kernel s | kernel routes | install "
             "routes/s | runs |", "|---|---|---|---|---|---|---|"]
    for d in devices:
        r = results.get(("5", d.name))
        ok = [x for x in r if isinstance(x, dict) and "fib" in x] if isinstance(r, list) else []
        if not ok:
            continue
        fib = [x["fib"] for x in ok]
        rates = [f["rate"] for f in fib if f["rate"]]
        lost = sum(f["overruns"] for f in fib)
        lines.append(
            f"| {d.label} | {fmt_range([x['seconds'] for x in ok], lambda v: f'{v:.2f}')} | "
            + " | ".join(fmt_range([f[k] for f in fib], lambda v: f"{v:.2f}")
                         for k in ("downstream", "kernel"))
            + f" | {fmt_range([f['routes'] for f in fib], lambda v: f'{v:,.0f}')} | "
            + (fmt_range(rates, lambda v: f"{v:,.0f}") if rates else "–")
            + f" | {len(ok)}{f' (notifications lost {lost} times: recounted)' if lost else ''} |")
    lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--devices", default=",".join(ALL_DEVICES),
                    help="comma-separated, from: " + ", ".join(ALL_DEVICES))
    ap.add_argument("--workloads", default="1,2,3,4",
                    help="comma-separated, from 1 2 3 4 5 6 (5 needs root: network namespaces; "
                    "6 too: a capture on lo)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--interleave", action="store_true",
                    help="run the devices round by round (each once per round) instead of each "
                    "device's runs together; feature costs are then per-round ratios")
    ap.add_argument("--quick", action="store_true",
                    help="a small synthetic table instead of the captures (smoke test)")
    ap.add_argument("--quick-prefixes", type=int, default=20000)
    ap.add_argument("--build", default=os.environ.get("SLUICE_BUILD_DIR",
                                                      os.path.join(REPO, "build")))
    ap.add_argument("--data", default=os.environ.get("SLUICE_DATA_DIR", "/work/shared/data"),
                    help="the folder holding mrt/ (default $SLUICE_DATA_DIR)")
    ap.add_argument("--out", default=".", help="where results.md and convergence.png go")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per phase of a run")
    ap.add_argument("--quiet-seconds", type=float, default=3,
                    help="a monitor within --slack prefixes of the expected count and unchanged "
                    "this long after everything was sent has converged")
    ap.add_argument("--long-quiet-seconds", type=float, default=15,
                    help="the same when the expected count is unknown or further away")
    ap.add_argument("--slack", type=int, default=10, help="prefixes (see --quiet-seconds)")
    ap.add_argument("--keep", action="store_true", help="keep each run's temporary folder")
    ap.add_argument("--sluice-import-policy", default="",
                    help="a policy file (policy-statement \"import\") Sluice devices apply to "
                    "every upstream; the other daemons run without")
    ap.add_argument("--bmp-route-monitoring", default="pre-policy,post-policy,loc-rib",
                    help="the -obs devices' BMP station: the Route Monitoring it selects, a "
                    "comma-separated subset of pre-policy, post-policy, loc-rib; none: no "
                    "station, only the update log")
    ap.add_argument("--vrps", default="",
                    help="a stayrtr JSON VRP file for the -rov devices (with --make-vrps: "
                    "written there)")
    ap.add_argument("--make-vrps", type=int, default=0, metavar="N",
                    help="write N VRPs made from the PCH table (to --vrps, else OUT/vrps.json)")
    ap.add_argument("--revalidate-changes", type=int, default=10000,
                    help="ROV devices, workload 1: after convergence, this many VRPs get a new "
                    "origin AS; 0: no re-validation phase")
    ap.add_argument("--revalidate-wait", type=float, default=10,
                    help="seconds the re-validation phase lasts at least")
    ap.add_argument("--churn-paces", default="10,100",
                    type=lambda s: [float(x) for x in s.split(",") if x],
                    help="workload 6: the churn replay's --pace factors, one phase each")
    args = ap.parse_args()

    ctx = Context()
    ctx.__dict__.update(vars(args))
    ctx.build = os.path.abspath(args.build)
    views = [v for v in args.bmp_route_monitoring.split(",") if v]
    if views == ["none"]:
        views = []
    elif not views or any(v not in BMP_VIEWS for v in views):
        sys.exit(f"--bmp-route-monitoring: none, or a subset of {', '.join(BMP_VIEWS)}")
    ctx.bmp_views = [BMP_VIEWS[v] for v in views]

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    if not os.access(replay_bin(ctx), os.X_OK):
        sys.exit(f"{replay_bin(ctx)} not built (ninja -C {ctx.build} sluice-replay)")
    workloads = [w for w in args.workloads.split(",") if w]
    for w in workloads:
        if w not in WORKLOADS:
            sys.exit(f"unknown workload {w}")
    names = [n for n in args.devices.split(",") if n]
    for n in names:
        if n not in ALL_DEVICES:
            sys.exit(f"unknown device {n} (known: {', '.join(ALL_DEVICES)})")
    names.sort(key=lambda n: n != "floor")  # the floor first: it gives the expected counts
    devices = [make_device(n, ctx) for n in names]
    if "3" in workloads and not args.quick:
        ctx.ris_ipv4_peers = ris_ipv4_peer_count(ctx)
        log(f"RIS capture: {ctx.ris_ipv4_peers} IPv4 peers")

    started = datetime.datetime.now(datetime.timezone.utc)
    machine_line = machine.describe()  # before the daemons start: an idle machine's cost
    log(f"machine: {machine_line}")
    results, expect_of = {}, {}
    os.makedirs(args.out, exist_ok=True)
    if any(d.rov for d in devices) and not args.quick:
        prepare_rov(ctx, args, log)
    loads = []

    def write(final):
        """results.md after every device (an interrupted run keeps what it measured)."""
        load = open("/proc/loadavg").read().split()[:3]
        mean_load = (f"; load average (1 min) sampled during the runs: median "
                     f"{statistics.median(loads):.1f}, max {max(loads):.1f}" if loads else "")
        header = (f"Run {started:%Y-%m-%d %H:%M} UTC, {args.runs} run(s) each"
                  + (" (interleaved: round by round), " if args.interleave else ", ")
                  + (f"--quick ({args.quick_prefixes} synthetic prefixes)" if args.quick
                     else "real captures")
                  + (f"; Sluice import policy {args.sluice_import_policy}"
                     if args.sluice_import_policy else "")
                  + (f"; BMP Route Monitoring {args.bmp_route_monitoring}"
                     if any(d.obs for d in devices if isinstance(d, Sluice)) else "")
                  + f"; load average at the {'end' if final else 'last write'}: {' '.join(load)}"
                  + mean_load + f"; {machine_line}.\n")
        md = header + "\n" + table_markdown(results, workloads, devices, args.runs, expect_of)
        md += overhead_markdown(results, workloads, devices, args.interleave)
        if "1" in workloads and any(d.rov for d in devices):
            md += rov_markdown(results, devices, ctx)
        if "5" in workloads:
            md += fib_markdown(results, devices)
        if "6" in workloads:
            md += churn.markdown(results, devices, fmt_range)
        with open(os.path.join(args.out, "results.md"), "w") as f:
            f.write(md)
        return md

    # SIGTERM ends the run like Ctrl-C: the running daemons are stopped, results are kept.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        for w in workloads:
            active = []
            for d in devices:
                why = unavailable(d, w, ctx, args)
                if why:
                    results[(w, d.name)] = why
                    log(f"workload {w} {d.name}: n/a ({why})")
                else:
                    active.append(d)
            for i, d in run_order(active, args.runs, args.interleave):
                loads.append(float(open("/proc/loadavg").read().split()[0]))
                runs = results.setdefault((w, d.name), [])
                runs.append(run_once(d, w, i, ctx, expect_of, log))
                if isinstance(d, Floor):
                    held = [x["table_held"] if "table_held" in x else x["held"]
                            for x in runs if isinstance(x, dict)]
                    if held and w != "3":
                        # Workload 2: 4 monitors, each with the same table.
                        expect_of[w] = max(held) // len(upstream_specs(w, ctx))
                write(False)
    except KeyboardInterrupt:
        log("interrupted: writing what was measured")
    md = write(True)
    print(md)
    png = os.path.join(args.out, "convergence.png")
    if chart(results, workloads, devices, png, log):
        log(f"chart: {png}")

if __name__ == "__main__":
    main()
