"""The server side of WebSocket (RFC 6455) for the Kubernetes API test server: the upgrade of a
request handled by server.Handler, frames (client frames must be masked), fragmented messages,
ping/pong and the closing handshake. Used by pods/portforward (portforward.py) and by the
/_test/websocket echo endpoint that the client's WebSocket tests talk to.

After the upgrade the handler's TLS socket is used directly from one thread: an ssl.SSLSocket
must not be read and written from two threads at once, so callers multiplex with wait()."""

import base64
import hashlib
import select
import socket
import ssl
import struct

from store import ApiError

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
CONT, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


class Closed(Exception):
    """The client closed the WebSocket (code None when it gave none) or dropped the connection."""

    def __init__(self, code=None, reason=""):
        super().__init__(code, reason)
        self.code = code
        self.reason = reason


class ProtocolError(Exception):
    pass


def accept_key(key):
    return base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()


def is_upgrade(h):
    return (h.headers.get("Upgrade", "").lower() == "websocket"
            and "upgrade" in [t.strip().lower() for t in h.headers.get("Connection", "").split(",")])


def upgrade(h, supported, choose=None, accept=None):
    """Answers 101 to the request of handler `h` when it asks for a WebSocket; returns
    (Conn, chosen subprotocol). `supported` lists the subprotocols served, in preference order
    ("" = none offered is fine). `choose` and `accept` override the answer (tests of the
    client's checks). Raises ApiError 400 for a request that is not a valid upgrade."""
    key = h.headers.get("Sec-WebSocket-Key", "")
    if not is_upgrade(h) or not key or h.headers.get("Sec-WebSocket-Version") != "13":
        raise ApiError(400, "BadRequest", "Upgrade request required")
    offered = [p.strip() for p in h.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()]
    chosen = next((p for p in supported if p in offered), None)
    if chosen is None and (offered or "" not in supported):
        raise ApiError(400, "BadRequest",
                       f"unable to upgrade connection: requested protocol(s) are not supported: "
                       f"{offered}; supports {[p for p in supported if p]}")
    chosen = choose if choose is not None else chosen
    lines = ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade",
             f"Sec-WebSocket-Accept: {accept or accept_key(key)}"]
    if chosen:
        lines.append(f"Sec-WebSocket-Protocol: {chosen}")
    h.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    h.wfile.flush()
    h.status_sent = 101
    h.close_connection = True
    return Conn(h.request), chosen


class Conn:
    def __init__(self, sock):
        self.sock = sock
        self.close_sent = False
        self.pongs = []
        self.closes = None  # a list that receives the client's close frames, when set

    # ---- bytes ---------------------------------------------------------------------------------
    def readable(self):
        """Whether bytes wait (in the TLS layer's buffer or on the socket)."""
        if isinstance(self.sock, ssl.SSLSocket) and self.sock.pending():
            return True
        r, _, _ = select.select([self.sock], [], [], 0)
        return bool(r)

    def wait(self, readers, writers=(), timeout=None):
        """(ready to read among [self.sock] + readers, ready to write among writers)."""
        if isinstance(self.sock, ssl.SSLSocket) and self.sock.pending():
            return [self.sock], []
        r, w, _ = select.select([self.sock] + list(readers), list(writers), [], timeout)
        return r, w

    def recv_exact(self, n):
        data = bytearray(n)
        view, got = memoryview(data), 0
        while got < n:
            k = self.sock.recv_into(view[got:], n - got)
            if not k:
                raise Closed(None)
            got += k
        return bytes(data)

    # ---- frames --------------------------------------------------------------------------------
    def read_frame(self):
        b0, b1 = self.recv_exact(2)
        if not b1 & 0x80:
            raise ProtocolError("unmasked client frame")
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack(">H", self.recv_exact(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", self.recv_exact(8))[0]
        mask = self.recv_exact(4)
        data = self.recv_exact(n)
        # XOR with the repeated mask as one big integer (a byte loop is slow for MiBs).
        key = (mask * (n // 4 + 1))[:n]
        data = (int.from_bytes(data, "little") ^ int.from_bytes(key, "little")).to_bytes(n, "little")
        return bool(b0 & 0x80), b0 & 0x0F, data

    def send_frame(self, opcode, payload=b"", fin=True):
        n = len(payload)
        head = bytes([(0x80 if fin else 0) | opcode])
        if n < 126:
            head += bytes([n])
        elif n <= 0xFFFF:
            head += bytes([126]) + struct.pack(">H", n)
        else:
            head += bytes([127]) + struct.pack(">Q", n)
        self.sock.sendall(head + payload)

    def send(self, data):
        if isinstance(data, str):
            self.send_frame(TEXT, data.encode())
        else:
            self.send_frame(BINARY, data)

    def read_message(self):
        """The next data message as (opcode, bytes); answers pings, records pongs. Raises
        Closed after answering the client's close frame."""
        opcode, parts = None, []
        while True:
            fin, op, payload = self.read_frame()
            if op == CLOSE:
                code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else None
                if self.closes is not None:  # recorded before the answer the client waits for
                    self.closes.append({"code": code, "reason": payload[2:].decode(errors="replace")})
                if not self.close_sent:
                    self.close_sent = True
                    self.send_frame(CLOSE, payload[:2])
                raise Closed(code, payload[2:].decode(errors="replace"))
            if op == PING:
                self.send_frame(PONG, payload)
                continue
            if op == PONG:
                self.pongs.append(payload)
                continue
            if op == CONT:
                if opcode is None:
                    raise ProtocolError("continuation outside a message")
            else:
                opcode = op
            parts.append(payload)
            if fin:
                return opcode, b"".join(parts)

    def close(self, code=1000, reason=""):
        """Sends our close frame and waits (briefly) for the client's answer, which it returns
        (Closed; None when none came)."""
        answer = None
        try:
            if not self.close_sent:
                self.close_sent = True
                self.send_frame(CLOSE, struct.pack(">H", code) + reason.encode())
            self.sock.settimeout(5)
            while True:
                self.read_message()
        except Closed as c:
            answer = c
        except (ProtocolError, OSError, ValueError):
            pass
        self.drop()
        return answer

    def drop(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve_echo(h):
    """/_test/websocket: a WebSocket peer for the client's tests. Query: protocols (comma list
    served, default "echo.test"), choose (subprotocol to answer regardless), accept (a wrong
    Sec-WebSocket-Accept). Binary messages come back as they are; text messages are commands:
      fragment N TEXT   TEXT comes back as a text message in N frames
      ping PAYLOAD      the server pings; once the pong arrives it sends "pong PAYLOAD"
      close CODE REASON the server closes with that code and reason
      bad KIND          a frame no server may send (masked, opcode, continuation, reserved)
      drop              the connection ends without a close frame
      anything else     comes back as text
    The client's close code is recorded in h.server.websocket_closes."""
    supported = h.query.get("protocols", "echo.test").split(",")
    conn, _ = upgrade(h, supported, h.query.get("choose"), h.query.get("accept"))
    conn.closes = h.server.websocket_closes
    try:
        while True:
            opcode, data = conn.read_message()
            if opcode == BINARY:
                conn.send(data)
                continue
            words = data.decode().split(" ", 2)
            if words[0] == "fragment":
                n, text = int(words[1]), words[2].encode()
                size = -(-len(text) // n)
                pieces = [text[i * size:(i + 1) * size] for i in range(n)]
                for i, piece in enumerate(pieces):
                    conn.send_frame(TEXT if i == 0 else CONT, piece, fin=i == n - 1)
            elif words[0] == "ping":
                conn.send_frame(PING, words[1].encode())
                while len(conn.pongs) == 0:
                    fin, op, payload = conn.read_frame()
                    if op == PONG:
                        conn.pongs.append(payload)
                conn.send("pong " + conn.pongs.pop().decode())
            elif words[0] == "close":
                conn.close(int(words[1]), words[2] if len(words) > 2 else "")
                return
            elif words[0] == "bad":
                # Frames no server may send; the client must close with 1002.
                frames = {"masked": bytes([0x82, 0x81, 1, 2, 3, 4, 5]),
                          "opcode": bytes([0x83, 0x00]),
                          "continuation": bytes([0x80, 0x01, 0x61]),
                          "reserved": bytes([0xC2, 0x00])}
                conn.sock.sendall(frames[words[1]])
            elif words[0] == "drop":
                conn.drop()
                return
            else:
                conn.send(data.decode())
    except Closed:
        conn.drop()
    except (ProtocolError, OSError):
        conn.drop()
