"""Observability outputs for convergence.py: a BMP station on loopback that reads and counts
what a device exports (RFC 7854 messages by type) without doing anything else with it, so that
the device's cost of exporting, not a collector's CPU, is what a run measures.

Standard library only.
"""

import fcntl
import os
import socket
import struct
import threading
import time

# The pipe between the socket and /dev/null: 1 MiB (F_SETPIPE_SZ), the default maximum for
# unprivileged users; a pipe that stays at the kernel's 64 KiB only takes more splices.
PIPE_BYTES = 1 << 20
# The discarding reader is woken when this much has arrived (SO_RCVLOWAT; the kernel grows the
# receive buffer to match), not at every segment: on loopback each wake-up is the sender's CPU
# too, and a collector on another host would cost it nothing.
WAKE_BYTES = 256 << 10


class BmpSink:
    """A BMP station on 127.0.0.1: accepts connections and takes everything they carry; counts
    octets, and with `parse` reads and counts the messages by type (0 Route Monitoring,
    1 Statistics Report, 2 Peer Down, 3 Peer Up, 4 Initiation, 5 Termination)."""

    def __init__(self, parse=False):
        self.parse = parse  # False: count octets only (no CPU spent on parsing)
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.port = self.listener.getsockname()[1]
        self.counts, self.octets, self.connections = {}, 0, 0
        self.readers, self.reader_cpu = [], 0.0  # reader_cpu: seconds, of the finished readers
        self.lock = threading.Lock()
        self.stopping = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopping:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            reader = threading.Thread(target=self._read, args=(conn,), daemon=True)
            with self.lock:
                self.connections += 1
                self.readers.append(reader)
            reader.start()

    def _read(self, conn):
        started = time.thread_time()
        with conn:
            if self.parse:
                self._read_messages(conn)
            else:
                self._discard(conn)
        with self.lock:
            self.reader_cpu += time.thread_time() - started

    def _discard(self, conn):
        """Moves what arrives to /dev/null through a pipe (splice(2)): the kernel hands the
        socket's pages over without copying them to user space, which is closer to a collector on
        another host than reading them would be."""
        pipe_r, pipe_w = os.pipe()
        devnull = os.open(os.devnull, os.O_WRONLY)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, WAKE_BYTES)
        try:
            fcntl.fcntl(pipe_w, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        except OSError:
            pass
        try:
            while not self.stopping:
                n = os.splice(conn.fileno(), pipe_w, PIPE_BYTES)
                if not n:
                    return
                left = n
                while left:
                    left -= os.splice(pipe_r, devnull, left)
                with self.lock:
                    self.octets += n
        except OSError:
            return
        finally:
            for fd in (pipe_r, pipe_w, devnull):
                os.close(fd)

    def _read_messages(self, conn):
        buf = b""
        # One buffer for every read: recv(1 MiB) would allocate (mmap) and fault in a fresh
        # megabyte per call.
        scratch = bytearray(1 << 20)
        while not self.stopping:
            try:
                n = conn.recv_into(scratch)
            except OSError:
                return
            if not n:
                return
            buf += bytes(scratch[:n])
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
                    "messages": dict(self.counts), "reader_cpu": self.reader_cpu}

    def stop(self, wait_s=5.0):
        """Stops accepting; waits up to `wait_s` for the readers to see their connections end
        (the device's, once it has stopped), so that summary() counts all they read."""
        self.stopping = True
        try:
            self.listener.close()
        except OSError:
            pass
        with self.lock:
            readers = list(self.readers)
        for reader in readers:
            reader.join(wait_s)
