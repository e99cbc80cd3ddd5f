"""RPKI route origin validation for convergence.py: a VRP file made from the PCH table, RFC 6811
validation of that table in Python (the count an ROV device should hold, the prefixes a VRP
change should flip), the VRP rewrite of the re-validation phase, a stayrtr cache on loopback and
a counter of the BGP UPDATEs one TCP stream carries on `lo`.

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


# ---------------------------------------------------------------- UPDATE counter

ETH_P_IP = 0x0800
PACKET_OUTGOING = 4
SOL_PACKET, PACKET_STATISTICS = 263, 6


class UpdateCounter(threading.Thread):
    """Counts what one TCP stream on `lo` carries (AF_PACKET, needs root): BGP UPDATEs, the
    IPv4 prefixes they announce and withdraw, when the last one with prefixes arrived
    (CLOCK_MONOTONIC), and each prefix's last change (`final`: {(net, length): True announced,
    False withdrawn}). Starts on an idle stream: the first byte seen starts a BGP message."""

    def __init__(self, src, sport, dst):
        super().__init__(daemon=True)
        self.src, self.sport, self.dst = (socket.inet_aton(src), sport, socket.inet_aton(dst))
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IP))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 20)
        self.sock.bind(("lo", 0))
        self.sock.settimeout(0.1)
        self.stop_flag = threading.Event()
        self.updates = self.announced = self.withdrawn = 0
        self.last_mono = None
        self.final = {}
        self.next_seq, self.pending, self.buf = None, {}, b""
        self.lock = threading.Lock()

    def run(self):
        while not self.stop_flag.is_set():
            try:
                frame, addr = self.sock.recvfrom(1 << 17)
            except socket.timeout:
                continue
            if addr[2] != PACKET_OUTGOING:
                self._frame(frame[14:], time.monotonic())

    def _frame(self, ip, mono):
        if len(ip) < 20 or ip[9] != 6 or ip[12:16] != self.src or ip[16:20] != self.dst:
            return
        ihl = (ip[0] & 15) * 4
        total = struct.unpack(">H", ip[2:4])[0]
        tcp = ip[ihl:total]
        if len(tcp) < 20 or struct.unpack(">H", tcp[0:2])[0] != self.sport:
            return
        seq = struct.unpack(">I", tcp[4:8])[0]
        payload = tcp[(tcp[12] >> 4) * 4:]
        if not payload:
            return
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
        self._parse(mono)

    def _parse(self, mono):
        while len(self.buf) >= 19:
            length = struct.unpack(">H", self.buf[16:18])[0]
            if length < 19 or len(self.buf) < length:
                break
            msg, self.buf = self.buf[:length], self.buf[length:]
            if msg[18] == 2:
                w, a = update_prefixes(msg[19:])
                with self.lock:
                    self.updates += 1
                    self.withdrawn += len(w)
                    self.announced += len(a)
                    self.final.update((p, False) for p in w)
                    self.final.update((p, True) for p in a)
                    if w or a:
                        self.last_mono = mono

    def snapshot(self):
        with self.lock:
            return {"updates": self.updates, "announced": self.announced,
                    "withdrawn": self.withdrawn, "last_mono": self.last_mono,
                    "final": dict(self.final)}

    def stop(self):
        """Stops; returns the kernel's count of frames it dropped for us (0: nothing missed)."""
        self.stop_flag.set()
        self.join()
        try:
            _, drops = struct.unpack("II", self.sock.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
        except OSError:
            drops = -1
        self.sock.close()
        return drops + len(self.pending)


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
