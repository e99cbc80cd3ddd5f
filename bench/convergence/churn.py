"""Workload 6 of convergence.py, churn on a full table: with the PCH table converged, a second
upstream replays one session of the RIS rrc15 2010-02-27 16:00 and 16:10 update captures (the
capture peer with the most announcements over both files) at `--pace` 10, then, from a third
upstream in a fresh session, at `--pace` 100. Each phase times every prefix event the churn
upstream sends against the device's next UPDATE to the monitor for that prefix.

    PCH upstream 127.19.1.1 ─┐
    churn upstream 127.19.1.2 (pace 10), then 127.19.1.3 (pace 100) ─► device ─► monitor

The phase, for one pace:
  - a capture on `lo` (rov.LoCapture, AF_PACKET, root) of the churn upstream → device stream,
    the device → monitor stream and the device → churn upstream stream, each BGP message stamped
    with the kernel's receive time of the segment that completed it (one clock for all);
  - it waits until the device has sent the monitor no prefix for --quiet-seconds, starts the
    churn replay (`sluice-replay --mrt BOTH --peer ADDR --pace F --prepend-own-as`), and ends
    when the replay has written everything and the device has again sent the monitor no prefix
    for --quiet-seconds (with a FEA: and the FIB point below stopped growing);
  - before a next phase, the churn upstream is stopped (Cease) and the capture runs on until
    the device has re-sent the monitor every prefix whose best route was the churn upstream's,
    and gone quiet: each phase starts from the PCH table alone.

Matching, per prefix: each prefix event the churn upstream sent (an announcement or a withdrawal
in an UPDATE; time: when that UPDATE had entered the device) is matched with the device's first
UPDATE to the monitor for that prefix (announce or withdraw) after it and before the upstream's
next event for the prefix or the end of the phase: latency = the difference of the two capture
stamps. An event with no such downstream UPDATE "changed nothing downstream" and is counted, not
timed. Downstream prefix changes matched to no event are counted as "extra" (0 when the device
sends one change per event).

FIB (devices with a FEA: sluice-rib*, sluice-mgr): the FEA's profiling point fea_route_in_kernel
(stage/profile.h: each route change once the forwarding plane, here the dummy one, accepted it;
CLOCK_REALTIME, microseconds: the capture's clock) is enabled for the phase, read back afterwards
and matched the same way.

Standard library only.
"""

import gzip
import os
import re
import shutil
import socket
import statistics
import struct
import subprocess
import time

import rov

# The capture: two 5-minute files of one collector; concatenated they are one gzip stream.
CAPTURES = ["ris-rrc15-2010-02-27-1600-updates.mrt.gz", "ris-rrc15-2010-02-27-1610-updates.mrt.gz"]
FIB_POINT = "fea_route_in_kernel"


def peers(net, upstream_as, paces):
    """[(address, AS)] of the churn upstreams, one per pace: NET.1.2 with UPSTREAM_AS + 1, ..."""
    return [(f"{net}.1.{k + 2}", upstream_as + k + 1) for k in range(len(paces))]


def has_fea(device):
    return getattr(device, "with_rib", False) or device.name == "sluice-mgr"


# ---------------------------------------------------------------- the capture file


def capture_file(data, folder):
    """The two RIS files as one gzip file (their members concatenated) in `folder`."""
    path = os.path.join(folder, "ris-rrc15-2010-02-27-1600+1610-updates.mrt.gz")
    with open(path, "wb") as out:
        for name in CAPTURES:
            with open(os.path.join(data, "mrt", name), "rb") as f:
                shutil.copyfileobj(f, out)
    return path


def choose_peer(replay, mrt):
    """(address, AS, announcements) of the IPv4 capture peer with the most announcements, from
    `sluice-replay --list-peers`. Raises RuntimeError."""
    try:
        proc = subprocess.run([replay, "--mrt", mrt, "--list-peers", "--ipv4-only"],
                              capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RuntimeError(f"sluice-replay --list-peers: {e}")
    best = None
    for line in proc.stdout.splitlines():
        m = re.match(r"\s*\d+\s+(\S+) AS(\d+)\s+(\d+) announcements", line)
        if m and (best is None or int(m.group(3)) > best[2]):
            best = (m.group(1), int(m.group(2)), int(m.group(3)))
    if proc.returncode != 0 or best is None:
        raise RuntimeError("sluice-replay --list-peers: " + (proc.stderr or proc.stdout)[-500:])
    return best


def update_times(mrt, address):
    """[seconds since the epoch] of the BGP4MP UPDATEs from IPv4 peer `address` in an MRT file
    (RFC 6396 §4.4: BGP4MP and BGP4MP_ET, MESSAGE and MESSAGE_AS4)."""
    peer = socket.inet_aton(address)
    with gzip.open(mrt, "rb") as f:
        data = f.read()
    out, at = [], 0
    while at + 12 <= len(data):
        stamp, kind, subtype, length = struct.unpack_from(">IHHI", data, at)
        body = data[at + 12:at + 12 + length]
        at += 12 + length
        if kind == 17 and len(body) >= 4:  # BGP4MP_ET: microseconds first
            stamp += struct.unpack_from(">I", body)[0] / 1e6
            body = body[4:]
        elif kind != 16:
            continue
        if subtype not in (1, 4):
            continue
        n = 4 if subtype == 4 else 2
        if len(body) < 2 * n + 4 or struct.unpack_from(">H", body, 2 * n + 2)[0] != 1:
            continue
        msg = body[2 * n + 12:]
        if body[2 * n + 4:2 * n + 8] == peer and len(msg) >= 19 and msg[18] == 2:
            out.append(stamp)
    return out


# ---------------------------------------------------------------- capture on lo

UP, DOWN, BACK = 0, 1, 2


class ChurnCapture(rov.LoCapture):
    """The phase's streams: UP (churn upstream → device), DOWN (device → monitor), BACK (device
    → churn upstream: only counted, and its End-of-RIB stamped). `up` and `down` hold
    (stamp, [withdrawn], [announced]) of each UPDATE with prefixes."""

    def __init__(self, device_addr, port, monitor_addr, churn_addr):
        super().__init__([(churn_addr, None, device_addr, port),
                          (device_addr, port, monitor_addr, None),
                          (device_addr, port, churn_addr, None)])
        self.up, self.down = [], []
        self.down_updates = self.back_updates = 0
        self.back_eor = None
        self.last_down = None

    def message(self, index, msg, stamp):
        if msg[18] != 2:
            return
        if index == BACK:
            self.back_updates += 1
            if self.back_eor is None and len(msg) == 23 and msg[19:23] == bytes(4):
                self.back_eor = stamp
            return
        w, a = rov.update_prefixes(msg[19:])
        with self.lock:
            if index == UP:
                if w or a:
                    self.up.append((stamp, w, a))
            else:
                self.down_updates += 1
                if w or a:
                    self.down.append((stamp, w, a))
                    self.last_down = stamp


# ---------------------------------------------------------------- matching


def events_by_prefix(updates):
    """{(net, length): [stamp, ...]} of (stamp, withdrawn, announced) UPDATEs, in order."""
    out = {}
    for stamp, w, a in updates:
        for p in w:
            out.setdefault(p, []).append(stamp)
        for p in a:
            out.setdefault(p, []).append(stamp)
    return out


def match(sent, seen, end):
    """Each event of `sent` ({prefix: [stamps]}) against the first of `seen` for its prefix at
    or after it and before the prefix's next event in `sent` (or `end`). Returns (latencies in
    seconds of the matched events, events with no match, events of `seen` matched to none)."""
    latencies, unmatched, extra = [], 0, 0
    for prefix, times in sent.items():
        after = seen.get(prefix, [])
        j = 0
        for i, t in enumerate(times):
            limit = times[i + 1] if i + 1 < len(times) else end
            while j < len(after) and after[j] < t:
                j += 1
                extra += 1
            if j < len(after) and after[j] < limit:
                latencies.append(after[j] - t)
                j += 1
                while j < len(after) and after[j] < limit:
                    j += 1
                    extra += 1
            else:
                unmatched += 1
        extra += len(after) - j
    extra += sum(len(v) for p, v in seen.items() if p not in sent)
    return latencies, unmatched, extra


def percentile(values, q):
    """The nearest-rank q-th percentile (0 < q <= 100) of a sorted list."""
    return values[max(0, -(-len(values) * q // 100) - 1)]


def latency_numbers(latencies, unmatched):
    v = sorted(latencies)
    return {"timed": len(v), "unchanged": unmatched,
            "p50": percentile(v, 50) * 1e3 if v else None,
            "p99": percentile(v, 99) * 1e3 if v else None,
            "max": v[-1] * 1e3 if v else None}


# ---------------------------------------------------------------- the FEA's profiling point


def sluice_cli(bench, ctx, tmp, *args):
    """(ok, output) of the sluice CLI, tried up to 3 times: under load a connection to the
    Finder can fail."""
    for _ in range(3):
        ok, out = bench.run_ok([os.path.join(ctx.build, "rtrmgr/cli/sluice"), "--finder",
                                f"unix:{tmp}/finder.sock", "--timeout", "60000", *args],
                               timeout=90)
        if ok:
            break
        time.sleep(0.5)
    return ok, out


def fib_point(bench, ctx, tmp, verb):
    ok, out = sluice_cli(bench, ctx, tmp, "profile", verb, FIB_POINT, "on", "fea")
    if not ok:
        raise RuntimeError(f"sluice profile {verb} {FIB_POINT} on fea: {out[-500:]}")
    return out


def fib_count(bench, ctx, tmp):
    ok, out = sluice_cli(bench, ctx, tmp, "profile", "list", "on", "fea")
    m = re.search(FIB_POINT + r"\s+\S+\s+(\d+) entries", out)
    return int(m.group(1)) if ok and m else -1


def fib_changes(text):
    """({(net, length): [stamps]}, entries dropped) from `sluice profile get` lines
    "fea fea_route_in_kernel SECONDS.MICROS add|replace|delete PREFIX"."""
    out, dropped = {}, 0
    for line in text.splitlines():
        f = line.split()
        if len(f) == 3 and f[1:] == ["entries", "dropped"]:
            dropped += int(f[0])
        if len(f) != 5 or f[1] != FIB_POINT or ":" in f[4]:
            continue
        addr, _, length = f[4].partition("/")
        key = (struct.unpack(">I", socket.inet_aton(addr))[0], int(length))
        out.setdefault(key, []).append(float(f[2]))
    return out, dropped


# ---------------------------------------------------------------- one phase


def run(bench, device, ctx, tmp, port, roots, children, log):
    """The churn phases of one run, after the PCH table converged. `bench` is convergence.py
    (its addresses, JsonChild, run_ok and /proc helpers); `children` the run's replays, which
    must stay up. Returns [one dict per pace]; raises RuntimeError."""
    replay = os.path.join(ctx.build, "bgp/replay/sluice-replay")
    mrt = capture_file(ctx.data, tmp)
    peer, peer_as, announcements = choose_peer(replay, mrt)
    times = update_times(mrt, peer)
    span = times[-1] - times[0] if times else 0
    out = []
    paces = ctx.churn_paces
    for k, ((addr, asn), pace) in enumerate(zip(peers(bench.NET, bench.UPSTREAM_AS, paces),
                                                paces)):
        argv = [replay, "--connect", f"{bench.DEVICE_ADDR}:{port}", "--local-address", addr,
                "--local-as", str(asn), "--peer-as", str(bench.DEVICE_AS), "--hold-time", "90",
                "--linger", "--json", "--quiet", "--mrt", mrt, "--peer", peer, "--ipv4-only",
                "--prepend-own-as", "--pace", f"{pace:g}"]
        argv += ["--next-hop", device.next_hop] if device.next_hop else ["--next-hop-self"]
        r = phase(bench, device, ctx, tmp, port, roots, children, argv, addr, span / pace,
                  k + 1 < len(paces), log)
        r.update({"pace": pace, "peer": f"{peer} AS{peer_as}", "capture_announcements":
                  announcements, "capture_updates": len(times)})
        log(f"    churn pace {pace:g} ({peer} AS{peer_as}, {len(times)} UPDATEs over "
            f"{span:.0f} s): {r['events']} events in {r['updates']} UPDATEs; timed "
            f"{r['down']['timed']}, changed nothing {r['down']['unchanged']}, extra "
            f"{r['extra']}; p50 {fmt_ms(r['down']['p50'])} p99 {fmt_ms(r['down']['p99'])} max "
            f"{fmt_ms(r['down']['max'])} ms; cpu {r['cpu']:.2f} s"
            + (f"; FIB timed {r['fib']['timed']}, unchanged {r['fib']['unchanged']}, p50 "
               f"{fmt_ms(r['fib']['p50'])} p99 {fmt_ms(r['fib']['p99'])} max "
               f"{fmt_ms(r['fib']['max'])} ms" if r.get("fib") else "")
            + (f"; the FIB point dropped {r['fib']['dropped']} entries"
               if r.get("fib", {}).get("dropped") else "")
            + (f"; End-of-RIB to the churn upstream after {r['back_eor']:.2f} s"
               if r["back_eor"] is not None else "")
            + (f"; capture missed {r['missed']} frames" if r["missed"] else "")
            + (f"; replay sent {r['replay_sent']}" if r["replay_sent"] != r["events"] else ""))
        out.append(r)
    return out


def fmt_ms(v):
    return "–" if v is None else f"{v:.1f}"


def phase(bench, device, ctx, tmp, port, roots, children, argv, addr, duration, teardown,
          log):
    """One pace: settle, replay, wait until quiet, match. With `teardown`, the churn session is
    then closed and the phase returns once the device has re-sent the monitor every prefix whose
    best route was the churn upstream's (and gone quiet), so the next phase starts clean."""
    fea = has_fea(device)
    try:
        cap = ChurnCapture(bench.DEVICE_ADDR, port, bench.MONITOR_ADDR, addr)
    except OSError as e:
        raise RuntimeError(f"churn: no capture on lo (root needed): {e}")
    cap.start()
    churn, watched = None, list(children)

    def check():
        for c in watched:
            if not c.alive():
                raise RuntimeError(f"{c.argv[0]} exited during the churn:\n{c.tail()}\n"
                                   + device.logs())

    def quiet_since(t):
        """Seconds without a prefix to the monitor, counting from `t` (time.time()) at most."""
        with cap.lock:
            last = cap.last_down
        return time.time() - max(t, last or 0)

    def wait_quiet(t, what):
        deadline = time.monotonic() + ctx.timeout
        while quiet_since(t) < ctx.quiet_seconds:
            check()
            if time.monotonic() > deadline:
                raise RuntimeError(f"churn: the monitor stream did not go quiet ({what})")
            time.sleep(0.1)

    try:
        wait_quiet(time.time(), "before the phase")
        if fea:
            fib_point(bench, ctx, tmp, "clear")
            fib_point(bench, ctx, tmp, "enable")
        cpu0 = bench.cpu_seconds(bench.descendants(roots))
        churn = bench.JsonChild(argv, os.path.join(tmp, f"churn-{addr}.out"))
        watched.append(churn)
        deadline = time.monotonic() + duration + ctx.timeout
        while not churn.find("table_sent"):
            check()
            if time.monotonic() > deadline:
                raise RuntimeError(f"churn: the replay did not finish in {duration:.0f} s + "
                                   f"{ctx.timeout:.0f} s\n{churn.tail()}")
            time.sleep(0.1)
        wait_quiet(time.time(), "after the replay")
        if fea:  # the FEA may trail the monitor: its point must stop growing too
            seen, deadline = -2, time.monotonic() + ctx.timeout
            while time.monotonic() < deadline:
                n = fib_count(bench, ctx, tmp)
                if n == seen:
                    break
                seen = n
                time.sleep(1)
        end = time.time()
        cpu = bench.cpu_seconds(bench.descendants(roots)) - cpu0
        if fea:
            fib_point(bench, ctx, tmp, "disable")
        with cap.lock:
            up, down = list(cap.up), list(cap.down)
            down_updates, back_updates, back_eor = (cap.down_updates, cap.back_updates,
                                                    cap.back_eor)
        if teardown:
            closed = time.time()
            watched.remove(churn)
            churn.stop()
            held = held_by_churn(up, down, end)
            t = settle_teardown(cap, held, closed, ctx, check)
            log(f"    churn session closed: the device re-sent {t[0]:,} of the {len(held):,} "
                f"prefixes it held from it in {t[1]:.2f} s")
            wait_quiet(closed, "after the churn session closed")
    finally:
        missed = cap.stop()
        if churn:
            churn.stop()
            churn.reader.join(5)
    if fea:
        changes, dropped = fib_changes(fib_point(bench, ctx, tmp, "get"))
        fib_point(bench, ctx, tmp, "clear")
    sent = events_by_prefix(up)
    latencies, unchanged, extra = match(sent, events_by_prefix(down), end)
    t0 = up[0][0] if up else None
    r = {"updates": len(up), "events": sum(len(w) + len(a) for _, w, a in up),
         "withdrawals": sum(len(w) for _, w, _ in up),
         "down": latency_numbers(latencies, unchanged), "extra": extra,
         "down_updates": down_updates, "cpu": cpu, "missed": missed,
         "back_updates": back_updates,
         "back_eor": back_eor - t0 if back_eor and t0 else None,
         "seconds": (up[-1][0] - t0) if t0 else 0}
    if fea:
        f_lat, f_unchanged, f_extra = match(sent, changes, end)
        r["fib"] = latency_numbers(f_lat, f_unchanged)
        r["fib"].update({"extra": f_extra, "dropped": dropped})
    summary = churn.last("summary") if churn else None
    s = (summary or {}).get("sessions") or [{}]
    r["replay_sent"] = s[0].get("prefixes_sent", 0) + s[0].get("withdrawals_sent", 0)
    return r


def held_by_churn(up, down, end):
    """The prefixes whose last event from the churn upstream is an announcement that changed
    the monitor's route (so the churn route is the device's best): each must change at the
    monitor again when the churn session closes."""
    last = {}
    for stamp, w, a in up:
        last.update((p, (stamp, False)) for p in w)
        last.update((p, (stamp, True)) for p in a)
    changed = set()
    for stamp, w, a in down:
        if stamp < end:
            changed.update(p for p in w + a if p in last and last[p][1] and stamp >= last[p][0])
    return changed


def settle_teardown(cap, held, closed, ctx, check):
    """Waits until every prefix of `held` changed at the monitor after `closed` (time.time()),
    at most --timeout seconds; returns (how many did, seconds from `closed` to the last)."""
    done, at, last = set(), 0, closed
    deadline = time.monotonic() + ctx.timeout
    while len(done) < len(held) and time.monotonic() < deadline:
        check()
        time.sleep(0.1)
        with cap.lock:
            new = cap.down[at:]
            at = len(cap.down)
        for stamp, w, a in new:
            if stamp > closed:
                hit = [p for p in w + a if p in held]
                done.update(hit)
                if hit:
                    last = stamp
    return len(done), last - closed


# ---------------------------------------------------------------- report


def markdown(results, devices, fmt_range):
    """The workload 6 section: per device and pace, the medians (min–max) over runs."""
    lines = ["", "### Churn on a full table (workload 6)", "",
             "With the PCH table converged, a second upstream replays a RIS rrc15 session "
             "(2010-02-27 16:00 and 16:10 update files, the IPv4 capture peer with the most "
             "announcements) at the given pace; the next pace from a fresh upstream after the "
             "previous one's session ended. Latency: from an UPDATE entering the device to the "
             "device's next UPDATE to the monitor for the same prefix (FIB: to the FEA's change "
             "of that prefix, fea_route_in_kernel), both stamped by a capture on lo. \"Changed "
             "nothing\": prefix events with no downstream UPDATE for the prefix before its next "
             "event or the end of the phase (not timed). \"Extra\": downstream prefix changes "
             "matched to no event. CPU: the device's, over the phase.", "",
             "| device | pace | prefix events | timed | changed nothing | p50 ms | p99 ms | "
             "max ms | extra | FIB timed | FIB p50 ms | FIB p99 ms | FIB max ms | CPU s | runs |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    rows, labels = {}, {d.name: d.label for d in devices}
    for d in devices:
        r = results.get(("6", d.name))
        if r is None:
            continue
        if isinstance(r, str):
            lines.append(f"| {d.label} | n/a: {r} |" + " |" * 13)
            continue
        ok = [x["churn"] for x in r if isinstance(x, dict) and "churn" in x]
        if not ok:
            errors = [x for x in r if isinstance(x, str)] or ["no churn phase"]
            lines.append(f"| {d.label} | failed: {errors[0][:120]} |" + " |" * 12
                         + f" 0/{len(r)} |")
            continue
        for i in range(min(len(x) for x in ok)):
            ph = [x[i] for x in ok]

            def col(get, fmt):
                vals = [get(p) for p in ph]
                vals = [v for v in vals if v is not None]
                return fmt_range(vals, fmt) if vals else "–"
            ms = lambda v: f"{v:.1f}"  # noqa: E731
            count = lambda v: f"{v:,.0f}"  # noqa: E731
            fib = [p.get("fib") for p in ph]
            missed = sum(p["missed"] for p in ph)
            p99 = [p["down"]["p99"] for p in ph if p["down"]["p99"] is not None]
            if p99:
                rows[(d.name, ph[0]["pace"])] = p99
            lines.append(
                f"| {d.label} | {ph[0]['pace']:g} | {col(lambda p: p['events'], count)} | "
                f"{col(lambda p: p['down']['timed'], count)} | "
                f"{col(lambda p: p['down']['unchanged'], count)} | "
                f"{col(lambda p: p['down']['p50'], ms)} | {col(lambda p: p['down']['p99'], ms)} | "
                f"{col(lambda p: p['down']['max'], ms)} | {col(lambda p: p['extra'], count)} | "
                + (" | ".join(col(lambda p: p["fib"][k], fmt) for k, fmt in
                              (("timed", count), ("p50", ms), ("p99", ms), ("max", ms)))
                   if all(fib) else "– | – | – | –")
                + f" | {col(lambda p: p['cpu'], lambda v: f'{v:.2f}')} | {len(ph)}"
                + (f" (capture missed {missed} frames)" if missed else "") + " |")
    lines.append("")
    bird = {pace: statistics.median(v) for (n, pace), v in rows.items() if n == "bird"}
    for (n, pace), v in rows.items():
        if n.startswith("sluice") and pace in bird:
            lines.append(f"- {labels[n]}, pace {pace:g}: p99 {statistics.median(v):.1f} ms "
                         f"against BIRD's {bird[pace]:.1f} ms.")
    lines.append("")
    return "\n".join(lines)
