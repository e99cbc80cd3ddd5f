"""RPKI route origin validation for convergence.py: a VRP file made from the PCH table, RFC 6811
validation of that table in Python (the count an ROV device should hold, the prefixes a VRP
change should flip), the VRP rewrite of the re-validation phase, a stayrtr cache on loopback, a
capture of the BGP messages of TCP streams on `lo` (also churn.py's) and a counter of the
UPDATEs one such stream carries.

Standard library only.
"""

import ipaddress
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time
import zlib

# ---------------------------------------------------------------- the table and VRPs


def pch_routes(mrt_path):
    """{(network int, length): origin AS or None (path ends in an AS_SET)} of the IPv4 routes an
    MRT file leaves announced, from `bgpdump -m` (Debian bgpdump). Raises RuntimeError."""
    if shutil.which("bgpdump") is None:
        raise RuntimeError("bgpdump not installed (Debian bgpdump)")
    proc = subprocess.run(["bgpdump", "-m", mrt_path], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("bgpdump -m " + mrt_path + ": " + proc.stderr[-500:])
    routes = {}
    for line in proc.stdout.splitlines():
        f = line.split("|")
        if len(f) < 6 or f[2] not in ("A", "W") or ":" in f[5]:
            continue
        try:
            net = ipaddress.IPv4Network(f[5], strict=False)
        except ValueError:
            continue
        key = (int(net.network_address), net.prefixlen)
        if f[2] == "W":
            routes.pop(key, None)
            continue
        path = f[6].split() if len(f) > 6 else []
        last = path[-1] if path else ""
        routes[key] = int(last) if last.isdigit() else None
    return routes


def prefix_text(net, length):
    return f"{ipaddress.IPv4Address(net)}/{length}"


def make_vrps(routes, count):
    """About `count` distinct IPv4 VRPs [(net, length, maxLength, asn)] for `routes`, a
    deterministic mix by a hash of each prefix: exact matches (valid; half with maxLength 24),
    wrong origins, AS 0 and a covering less specific with maxLength too short (invalid), a
    covering less specific with maxLength long enough (valid), and prefixes left uncovered
    (not-found)."""
    vrps, seen = [], set()

    def add(net, length, max_length, asn):
        v = (net, length, max_length, asn)
        if v not in seen and len(vrps) < count:
            seen.add(v)
            vrps.append(v)

    order = sorted(routes, key=lambda k: zlib.crc32(struct.pack(">IB", *k)))
    for net, length in order:
        if len(vrps) >= count:
            break
        origin = routes[(net, length)]
        h = zlib.crc32(struct.pack(">IBx", net, length)) % 100
        up = max(8, length - 2)
        cover = net & ~((1 << (32 - up)) - 1) & 0xFFFFFFFF
        if h < 15 or origin is None:  # uncovered: not-found (an AS_SET origin stays so too)
            continue
        if h < 85:
            # Valid; half of them allow more specifics up to /24, as many real ROAs do.
            wide = length < 24 and zlib.crc32(struct.pack(">IBx", net, length), 7) % 2
            add(net, length, 24 if wide else length, origin)
        elif h < 90:
            add(net, length, length, origin % 4200000000 + 1)  # wrong origin: invalid
        elif h < 92:
            add(net, length, length, 0)  # AS 0 (RFC 6483): invalid
        elif h < 95 and up < length:
            add(cover, up, up, origin)  # maxLength shorter than the route: invalid
        else:
            add(cover, up, min(32, length + 1), origin)  # covering less specific: valid
    return vrps


def write_vrps(vrps, path, replace=True):
    """The stayrtr (rpki-client) JSON file, written atomically: to PATH.new, renamed to `path`
    unless `replace` is false (then the caller renames it). Returns PATH.new."""
    roas = [{"prefix": prefix_text(n, ln), "maxLength": m, "asn": f"AS{a}"}
            for n, ln, m, a in vrps]
    tmp = path + ".new"
    with open(tmp, "w") as f:
        json.dump({"roas": roas}, f, separators=(",", ":"))
    if replace:
        os.replace(tmp, path)
    return tmp


def read_vrps(path):
    """[(net, length, maxLength, asn)] of a stayrtr JSON file's IPv4 and IPv6 ROAs (net: an int
    for IPv4; IPv6 ones have the prefix's text: counted, not validated here). Raises ValueError,
    KeyError."""
    with open(path) as f:
        doc = json.load(f)
    out = []
    for r in doc.get("roas", []):
        net = ipaddress.ip_network(r["prefix"], strict=False)
        asn = r["asn"]
        asn = int(asn[2:]) if isinstance(asn, str) and asn.upper().startswith("AS") else int(asn)
        out.append((int(net.network_address) if net.version == 4 else str(net), net.prefixlen,
                    int(r.get("maxLength", net.prefixlen)), asn))
    return out


class Validator:
    """RFC 6811 §2 origin validation of IPv4 routes against a VRP list."""

    def __init__(self, vrps):
        self.by_prefix = {}
        for net, length, max_length, asn in vrps:
            if isinstance(net, int):
                self.by_prefix.setdefault((net, length), []).append((max_length, asn))
        self.lengths = sorted({k[1] for k in self.by_prefix})

    def state(self, net, length, origin):
        """"valid", "invalid" or "not-found"; origin None (an AS_SET) matches no VRP."""
        covered = False
        for ln in self.lengths:
            if ln > length:
                break
            for max_length, asn in self.by_prefix.get((net & ~((1 << (32 - ln)) - 1)
                                                      & 0xFFFFFFFF, ln), ()):
                covered = True
                if origin is not None and asn == origin and asn != 0 and length <= max_length:
                    return "valid"
        return "invalid" if covered else "not-found"

    def states(self, routes):
        return {k: self.state(k[0], k[1], o) for k, o in routes.items()}


def rewrite_vrps(vrps, routes, changes):
    """`changes` VRPs of `vrps` with a new origin AS, spread evenly over those whose prefix is a
    route's: a VRP with the route's origin gets another AS (valid routes may turn invalid), any
    other gets the route's origin (invalid routes may turn valid). Returns the new list."""
    candidates = [i for i, v in enumerate(vrps)
                  if isinstance(v[0], int) and routes.get((v[0], v[1])) is not None]
    if not candidates or changes <= 0:
        return list(vrps)
    step = max(1, len(candidates) // changes)
    out = list(vrps)
    for i in candidates[::step][:changes]:
        net, length, max_length, asn = out[i]
        origin = routes[(net, length)]
        out[i] = (net, length, max_length, 64496 if asn == origin else origin)
    return out


# ---------------------------------------------------------------- stayrtr


class Stayrtr:
    """stayrtr serving a copy of a VRP file on 127.0.0.1, re-reading it every second."""

    def __init__(self, vrps_path, folder, start_child, free_port):
        self.path = os.path.join(folder, "vrps.json")
        shutil.copyfile(vrps_path, self.path)
        self.port = free_port("127.0.0.1")
        self.child = start_child(["stayrtr", "-cache", self.path, "-bind",
                                  f"127.0.0.1:{self.port}", "-checktime=false",
                                  "-metrics.addr", "", "-refresh", "1", "-loglevel", "warn"],
                                 os.path.join(folder, "stayrtr.out"))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.5).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("stayrtr did not listen:\n" + self.child.tail())

    def pause(self):
        """SIGSTOP: with -refresh 1 stayrtr re-reads and parses the file every second (about 0.9
        CPU seconds per second for 300,000 VRPs here), which would compete with the device
        under test; an RTR session needs nothing from the cache until its refresh timer."""
        os.kill(self.child.pid, signal.SIGSTOP)

    def resume(self):
        os.kill(self.child.pid, signal.SIGCONT)

    def stop(self):
        if self.child.alive():
            self.resume()
        self.child.stop()


# ---------------------------------------------------------------- BGP on lo

ETH_P_IP = 0x0800
PACKET_OUTGOING = 4
SOL_PACKET, PACKET_STATISTICS = 263, 6
SO_RCVBUFFORCE, SO_TIMESTAMPNS = 33, 35  # <asm-generic/socket.h>; SCM_TIMESTAMPNS is 35 too


class TcpStream:
    """One direction of one TCP connection, reassembled by sequence number and cut into BGP
    messages (RFC 4271 §4.1). Starts on an idle stream: the first payload octet seen starts a
    message."""

    def __init__(self):
        self.next_seq, self.pending, self.buf = None, {}, b""

    def segment(self, seq, payload):
        """Takes a segment's payload; returns the messages it completed (whole, header
        included), in order."""
        if self.next_seq is None:
            self.next_seq = seq
        self.pending[seq] = payload
        while True:
            progressed = False
            for s in list(self.pending):
                data = self.pending[s]
                off = (self.next_seq - s) & 0xFFFFFFFF
                if off < len(data):  # starts at or before next_seq and reaches past it
                    del self.pending[s]
                    self.buf += data[off:]
                    self.next_seq = (self.next_seq + len(data) - off) & 0xFFFFFFFF
                    progressed = True
                elif off < 1 << 31:  # entirely before next_seq: a retransmission
                    del self.pending[s]
            if not progressed:
                break
        out, at, buf = [], 0, self.buf
        while len(buf) - at >= 19:
            length = struct.unpack_from(">H", buf, at + 16)[0]
            if length < 19 or len(buf) - at < length:
                break
            out.append(buf[at:at + length])
            at += length
        self.buf = buf[at:]
        return out


class LoCapture(threading.Thread):
    """The BGP messages of some TCP streams on `lo` (AF_PACKET, needs root), each stamped with
    the kernel's receive time of the segment that completed it (SO_TIMESTAMPNS: CLOCK_REALTIME
    seconds, one clock for every stream on lo; `mono_offset` turns one into CLOCK_MONOTONIC).
    `streams`: [(src, sport, dst, dport)], a field None matching any; a stream follows the first
    connection it matches (segments of any later one are counted in `other_connections`).
    Subclasses take each message in message(index, msg, stamp), on the capture's thread."""

    def __init__(self, streams):
        super().__init__(daemon=True)
        address = lambda a: socket.inet_aton(a) if a else None  # noqa: E731
        self.patterns = [(address(s), sp, address(d), dp) for s, sp, d, dp in streams]
        self.connections = [None] * len(streams)
        self.streams = [TcpStream() for _ in streams]
        self.other_connections = 0
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IP))
        try:  # root may go past net.core.rmem_max
            self.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
        except OSError:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 20)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock.bind(("lo", 0))
        self.sock.settimeout(0.1)
        self.mono_offset = time.monotonic() - time.time()
        self.stop_flag = threading.Event()
        self.lock = threading.Lock()

    def run(self):
        ancillary = socket.CMSG_SPACE(16)
        while not self.stop_flag.is_set():
            try:
                frame, cmsgs, _, addr = self.sock.recvmsg(1 << 17, ancillary)
            except socket.timeout:
                continue
            if addr[2] == PACKET_OUTGOING:
                continue
            stamp = None
            for level, kind, data in cmsgs:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
                    sec, nsec = struct.unpack_from("qq", data)
                    stamp = sec + nsec * 1e-9
            self._frame(frame[14:], time.time() if stamp is None else stamp)

    def _frame(self, ip, stamp):
        if len(ip) < 20 or ip[9] != 6:
            return
        ihl = (ip[0] & 15) * 4
        total = struct.unpack(">H", ip[2:4])[0]
        tcp = ip[ihl:total]
        if len(tcp) < 20:
            return
        payload = tcp[(tcp[12] >> 4) * 4:]
        if not payload:
            return
        src, dst = ip[12:16], ip[16:20]
        sport, dport = struct.unpack(">HH", tcp[0:4])
        for i, (ps, psp, pd, pdp) in enumerate(self.patterns):
            if ((ps is not None and ps != src) or (psp is not None and psp != sport)
                    or (pd is not None and pd != dst) or (pdp is not None and pdp != dport)):
                continue
            connection = (src, sport, dst, dport)
            if self.connections[i] is None:
                self.connections[i] = connection
            elif self.connections[i] != connection:
                self.other_connections += 1
                continue
            seq = struct.unpack(">I", tcp[4:8])[0]
            for msg in self.streams[i].segment(seq, payload):
                self.message(i, msg, stamp)

    def message(self, index, msg, stamp):
        pass

    def stop(self):
        """Stops; returns the frames missed: the kernel's count of frames it dropped for us
        plus segments left out of order (0: nothing missed)."""
        self.stop_flag.set()
        self.join()
        try:
            _, drops = struct.unpack("II", self.sock.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
        except OSError:
            drops = -1
        self.sock.close()
        return drops + sum(len(s.pending) for s in self.streams)


class UpdateCounter(LoCapture):
    """Counts what one TCP stream on `lo` carries: BGP UPDATEs, the IPv4 prefixes they announce
    and withdraw, when the last one with prefixes arrived (CLOCK_MONOTONIC), and each prefix's
    last change (`final`: {(net, length): True announced, False withdrawn}). Starts on an idle
    stream."""

    def __init__(self, src, sport, dst):
        super().__init__([(src, sport, dst, None)])
        self.updates = self.announced = self.withdrawn = 0
        self.last_mono = None
        self.final = {}

    def message(self, index, msg, stamp):
        if msg[18] != 2:
            return
        w, a = update_prefixes(msg[19:])
        with self.lock:
            self.updates += 1
            self.withdrawn += len(w)
            self.announced += len(a)
            self.final.update((p, False) for p in w)
            self.final.update((p, True) for p in a)
            if w or a:
                self.last_mono = stamp + self.mono_offset

    def snapshot(self):
        with self.lock:
            return {"updates": self.updates, "announced": self.announced,
                    "withdrawn": self.withdrawn, "last_mono": self.last_mono,
                    "final": dict(self.final)}


def update_prefixes(body):
    """([(net, length)] withdrawn, [(net, length)] announced): the IPv4 prefixes of an UPDATE
    body (RFC 4271 §4.3, no ADD-PATH)."""

    def prefixes(data):
        out, i = [], 0
        while i < len(data):
            length, n = data[i], (data[i] + 7) // 8
            raw = data[i + 1:i + 1 + n] + bytes(4 - min(n, 4))
            out.append((struct.unpack(">I", raw[:4])[0], length))
            i += 1 + n
        return out

    if len(body) < 4:
        return [], []
    wlen = struct.unpack(">H", body[0:2])[0]
    alen = struct.unpack(">H", body[2 + wlen:4 + wlen])[0]
    return prefixes(body[2:2 + wlen]), prefixes(body[4 + wlen + alen:])
