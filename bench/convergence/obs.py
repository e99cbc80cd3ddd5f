"""Observability outputs for convergence.py: a BMP station on loopback that reads and counts
what a device exports (RFC 7854 messages by type) without doing anything else with it, so that
the device's cost of exporting, not a collector's CPU, is what a run measures.

Standard library only.
"""

import socket
import struct
import threading


class BmpSink:
    """A BMP station on 127.0.0.1: accepts connections and reads everything; counts octets, and
    with `parse` the messages by type (0 Route Monitoring, 1 Statistics Report, 2 Peer Down,
    3 Peer Up, 4 Initiation, 5 Termination)."""

    def __init__(self, parse=False):
        self.parse = parse  # False: count octets only (no CPU spent on parsing)
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.port = self.listener.getsockname()[1]
        self.counts, self.octets, self.connections = {}, 0, 0
        self.lock = threading.Lock()
        self.stopping = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopping:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn):
        buf = b""
        # One buffer for every read: recv(1 MiB) would allocate (mmap) and fault in a fresh
        # megabyte per call, CPU that a collector on another host would not take from the device.
        scratch = bytearray(1 << 20)
        with conn:
            while not self.stopping:
                try:
                    n = conn.recv_into(scratch)
                except OSError:
                    return
                if not n:
                    return
                if not self.parse:
                    with self.lock:
                        self.octets += n
                    continue
                chunk = bytes(scratch[:n])
                buf += chunk
                at = 0
                while len(buf) - at >= 6:
                    version, length, kind = struct.unpack_from(">BIB", buf, at)
                    if version != 3 or length < 6:
                        return  # not BMP v3: drop the connection
                    if len(buf) - at < length:
                        break
                    with self.lock:
                        self.counts[kind] = self.counts.get(kind, 0) + 1
                        self.octets += length
                    at += length
                buf = buf[at:]

    def route_monitoring(self):
        with self.lock:
            return self.counts.get(0, 0)

    def summary(self):
        with self.lock:
            return {"connections": self.connections, "octets": self.octets,
                    "messages": dict(self.counts)}

    def stop(self):
        self.stopping = True
        try:
            self.listener.close()
        except OSError:
            pass
