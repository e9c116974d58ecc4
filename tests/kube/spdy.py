"""pods/portforward over SPDY/3.1, the protocol kubectl speaks (Debian's kubectl 1.20 knows no
other): the HTTP upgrade `Upgrade: SPDY/3.1` with `X-Stream-Protocol-Version:
portforward.k8s.io`, then SPDY/3.1 frames on the connection (draft-mbelshe-httpbis-spdy-00):

- control frames: 8-byte header (C=1, version 3, type, flags, 24-bit length); data frames:
  31-bit stream id, flags (FIN = 1), 24-bit length;
- header blocks (SYN_STREAM, SYN_REPLY) are zlib streams, one per direction for the whole
  connection, with SPDY/3's preset dictionary, each block flushed with Z_SYNC_FLUSH; inside,
  a 32-bit pair count and 32-bit length-prefixed names and values;
- the client opens, per local connection, an error stream and a data stream (headers
  streamtype, port, requestid); each gets a SYN_REPLY; the error stream carries the kubelet's
  failure text, the data stream the port's bytes; FIN half-closes, RST_STREAM ends a stream.
Flow control (WINDOW_UPDATE) is not enforced by kubectl's spdystream and is ignored here."""

import select
import socket
import struct
import zlib

import portforward
from store import ApiError

# SPDY/3's header-compression dictionary (1423 bytes): length-prefixed header names and values
# ("_" stands for a space), then text.
_WORDS = ("options head post put delete trace accept accept-charset accept-encoding "
          "accept-language accept-ranges age allow authorization cache-control connection "
          "content-base content-encoding content-language content-length content-location "
          "content-md5 content-range content-type date etag expect expires from host if-match "
          "if-modified-since if-none-match if-range if-unmodified-since last-modified location "
          "max-forwards pragma proxy-authenticate proxy-authorization range referer retry-after "
          "server te trailer transfer-encoding upgrade user-agent vary via warning "
          "www-authenticate method get status 200_OK version HTTP/1.1 url public set-cookie "
          "keep-alive origin")
_TAIL = ("100101201202205206300302303304305306307402405406407408409410411412413414415416417502"
         "504505203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad "
         "Request401 Unauthorized403 Forbidden404 Not Found500 Internal Server Error501 Not "
         "Implemented503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec "
         "00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,"
         "image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript,"
         "publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.")
DICTIONARY = b"".join(struct.pack(">I", len(w)) + w.replace("_", " ").encode()
                      for w in _WORDS.split(" ")) + _TAIL.encode()

SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE = 1, 2, 3, 4, 6, 7, 8, 9
FIN = 0x01
PROTOCOL = "portforward.k8s.io"


def is_upgrade(h):
    return h.headers.get("Upgrade", "").lower() == "spdy/3.1"


def upgrade(h):
    """Answers 101 with the port-forward stream protocol, or raises ApiError 400."""
    offered = [p.strip() for p in h.headers.get_all("X-Stream-Protocol-Version", []) for p in p.split(",")]
    if PROTOCOL not in offered:
        raise ApiError(400, "BadRequest", f"unable to upgrade: unable to negotiate protocol: "
                                          f"client supports {offered}, server supports [{PROTOCOL}]")
    h.wfile.write(("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
                   f"X-Stream-Protocol-Version: {PROTOCOL}\r\n\r\n").encode())
    h.wfile.flush()
    h.status_sent = 101
    h.close_connection = True


class Session:
    """One SPDY connection: frames in and out, and the port-forward stream pairs."""

    def __init__(self, sock, pod):
        self.sock = sock
        self.pod = pod
        self.inflate = zlib.decompressobj(zdict=DICTIONARY)
        self.deflate = zlib.compressobj(zdict=DICTIONARY)
        self.pairs = {}      # requestid -> {"error": id, "data": id}
        self.targets = {}    # data stream id -> socket
        self.pending = {}    # socket -> bytes to write
        self.stream_of = {}  # socket -> data stream id

    # ---- frames ----------------------------------------------------------------------------
    def recv_exact(self, n):
        data = bytearray(n)
        view, got = memoryview(data), 0
        while got < n:
            k = self.sock.recv_into(view[got:], n - got)
            if not k:
                raise EOFError
            got += k
        return bytes(data)

    def control(self, ftype, payload, flags=0):
        self.sock.sendall(struct.pack(">HHI", 0x8003, ftype, (flags << 24) | len(payload)) + payload)

    def data(self, stream, payload=b"", flags=0):
        self.sock.sendall(struct.pack(">II", stream, (flags << 24) | len(payload)) + payload)

    def header_block(self, headers):
        raw = struct.pack(">I", len(headers))
        for k, v in headers.items():
            raw += struct.pack(">I", len(k)) + k.encode() + struct.pack(">I", len(v)) + v.encode()
        return self.deflate.compress(raw) + self.deflate.flush(zlib.Z_SYNC_FLUSH)

    def parse_headers(self, block):
        raw = self.inflate.decompress(block)
        n, pos, headers = struct.unpack(">I", raw[:4])[0], 4, {}
        for _ in range(n):
            klen = struct.unpack(">I", raw[pos:pos + 4])[0]
            key = raw[pos + 4:pos + 4 + klen].decode()
            pos += 4 + klen
            vlen = struct.unpack(">I", raw[pos:pos + 4])[0]
            headers[key] = raw[pos + 4:pos + 4 + vlen].decode()
            pos += 4 + vlen
        return headers

    # ---- the session -----------------------------------------------------------------------
    def run(self):
        while True:
            readers = [self.sock] + list(self.stream_of)
            writers = [s for s in self.stream_of if self.pending.get(s)]
            if self.sock.pending():
                readable, writable = [self.sock], []
            else:
                readable, writable, _ = select.select(readers, writers, [])
            for s in writable:
                self.flush_target(s)
            for r in readable:
                if r is self.sock:
                    if not self.frame():
                        return
                elif r in self.stream_of:
                    self.from_target(r)

    def frame(self):
        """Handles one frame; False when the client ended the session."""
        try:
            head = self.recv_exact(8)
        except EOFError:
            return False
        word, flags_len = struct.unpack(">II", head)
        flags, length = flags_len >> 24, flags_len & 0xFFFFFF
        payload = self.recv_exact(length) if length else b""
        if not word & 0x80000000:
            self.on_data(word & 0x7FFFFFFF, flags, payload)
            return True
        ftype = word & 0xFFFF
        if ftype == SYN_STREAM:
            stream = struct.unpack(">I", payload[:4])[0] & 0x7FFFFFFF
            self.on_syn_stream(stream, self.parse_headers(payload[10:]))
        elif ftype == RST_STREAM:
            self.close_stream(struct.unpack(">I", payload[:4])[0] & 0x7FFFFFFF)
        elif ftype == PING:
            self.control(PING, payload)
        elif ftype == GOAWAY:
            return False
        elif ftype == HEADERS:
            self.parse_headers(payload[4:])  # keeps the shared zlib stream in step
        return True

    def on_syn_stream(self, stream, headers):
        self.control(SYN_REPLY, struct.pack(">I", stream) + self.header_block({}))
        pair = self.pairs.setdefault(headers.get("requestid", ""), {})
        pair[headers.get("streamtype")] = stream
        pair["port"] = int(headers.get("port", "0"))
        if "error" in pair and "data" in pair:
            self.start(pair)

    def start(self, pair):
        port = pair["port"]
        target = portforward.connect(self.pod, port)
        if target is None:
            text = portforward.refused(port, self.pod["metadata"]["uid"])
            self.data(pair["error"], text.encode())
            self.data(pair["error"], flags=FIN)
            self.data(pair["data"], flags=FIN)
            return
        target.setblocking(False)
        self.targets[pair["data"]] = target
        self.stream_of[target] = pair["data"]
        self.pending[target] = bytearray()
        pair["target"] = target

    def on_data(self, stream, flags, payload):
        target = self.targets.get(stream)
        if target is None:
            return  # the error stream, or a stream already ended
        self.pending[target] += payload
        self.flush_target(target)
        if flags & FIN:
            # The client is done sending: half-close the port once what it sent is written.
            self.pending[target] = _Finishing(self.pending[target])
            if not self.pending[target]:
                self.shutdown_target(target)

    def flush_target(self, target):
        buf = self.pending.get(target)
        if not buf:
            return
        try:
            n = target.send(buf)
        except BlockingIOError:
            return
        except OSError:
            self.close_target(target)
            return
        del buf[:n]
        if not buf and isinstance(buf, _Finishing):
            self.shutdown_target(target)

    def shutdown_target(self, target):
        try:
            target.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def from_target(self, target):
        try:
            chunk = target.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        stream = self.stream_of[target]
        if chunk:
            self.data(stream, chunk)
            return
        self.data(stream, flags=FIN)
        for pair in self.pairs.values():
            if pair.get("data") == stream:
                self.data(pair["error"], flags=FIN)
        self.close_target(target)

    def close_target(self, target):
        stream = self.stream_of.pop(target, None)
        self.targets.pop(stream, None)
        self.pending.pop(target, None)
        target.close()

    def close_stream(self, stream):
        target = self.targets.get(stream)
        if target is not None:
            self.close_target(target)

    def close(self):
        for target in list(self.stream_of):
            self.close_target(target)


class _Finishing(bytearray):
    """Bytes still to write to a port whose client side has half-closed."""


def serve(h, pod):
    upgrade(h)
    session = Session(h.request, pod)
    try:
        session.run()
    except (OSError, EOFError, zlib.error):
        pass
    finally:
        session.close()
