"""A topic's end offset, asked of a Kafka broker with the smallest request that answers it.

Shared by the benchmarks (`bench/kafka-side-by-side.sh`, `bench/plugin-host.py`): no client
library, one persistent connection to the bootstrap broker, ListOffsets v1 with timestamp -1
(the high watermark) for partition 0.
"""

import socket
import struct


class EndOffsetProbe:
    """End offset of partition 0 of `topic` on the broker at `bootstrap` (HOST:PORT)."""

    def __init__(self, bootstrap, topic):
        host, port = bootstrap.rsplit(":", 1)
        self.addr = (host, int(port))
        self.topic = topic.encode()
        self.sock, self.corr = None, 0

    def _connect(self):
        self.sock = socket.create_connection(self.addr, timeout=5)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _recvn(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise EOFError("broker closed the connection")
            buf += chunk
        return buf

    def end_offset(self):
        """The end offset, 0 while the topic does not exist, None when the broker did not answer."""
        try:
            if self.sock is None:
                self._connect()
            self.corr += 1
            client = b"connect-rs-bench-probe"
            req = struct.pack(">hhih", 2, 1, self.corr, len(client)) + client
            req += struct.pack(">ii", -1, 1) + struct.pack(">h", len(self.topic)) + self.topic
            req += struct.pack(">iiq", 1, 0, -1)
            self.sock.sendall(struct.pack(">i", len(req)) + req)
            (n,) = struct.unpack(">i", self._recvn(4))
            r = self._recvn(n)
            corr, _topics = struct.unpack_from(">ii", r, 0)
            (tlen,) = struct.unpack_from(">h", r, 8)
            p = 10 + tlen + 4
            _part, err, _ts, off = struct.unpack_from(">ihqq", r, p)
            if corr != self.corr:
                raise EOFError("correlation id mismatch")
            return off if err == 0 else 0
        except (OSError, EOFError, struct.error):
            if self.sock is not None:
                self.sock.close()
            self.sock = None
            return None
