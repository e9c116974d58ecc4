"""pods/portforward of the Kubernetes API test server, as the kubelet serves it over WebSocket
(k8s.io/kubelet cri/streaming/portforward/websocket.go, apiserver wsstream):

- GET .../pods/NAME/portforward?ports=P1,P2 upgraded with subprotocol v4.channel.k8s.io
  (binary frames; a client that offers no subprotocol gets the same framing);
- port i has data channel 2*i and error channel 2*i+1; every message starts with its channel
  byte; the server's first message on each channel is the port, 2 bytes little endian;
- a port that cannot be reached gets the kubelet's (containerd's) error text on its error
  channel; each port's connection lives until either side ends it; when every port is done the
  WebSocket is closed.

A pod is "listening" on port P when it carries the annotation test.ejob.dev/port-forward-P
whose value is a port on 127.0.0.1 the test opened; the server connects there. Without the
annotation nothing listens on P (connection refused, as in a real pod). A pod annotated
test.ejob.dev/announce-port: N names port N in its channel prefixes (a broken server)."""

import socket
import struct

import websocket_server as websocket
from store import ApiError

PROTOCOL = "v4.channel.k8s.io"
ANNOTATION = "test.ejob.dev/port-forward-"
ANNOUNCE = "test.ejob.dev/announce-port"  # a wrong port number in the channel prefixes (tests)


def parse_ports(text):
    ports = []
    for p in (text or "").split(","):
        if not p.isdigit() or not 0 < int(p) < 65536:
            raise ApiError(400, "BadRequest", f'unable to parse "{text}" as a port')
        ports.append(int(p))
    return ports


def refused(port, sandbox):
    """The kubelet's message when containerd finds nothing listening on the port."""
    dial4 = f"dial tcp4 127.0.0.1:{port}: connect: connection refused"
    dial6 = f"dial tcp6 [::1]:{port}: connect: connection refused"
    return (f"error forwarding port {port} to pod {sandbox}, uid : failed to execute portforward "
            f'in network namespace "/var/run/netns/cni-{sandbox}": failed to connect to '
            f'localhost:{port} inside namespace "{sandbox}", IPv4: {dial4} IPv6 {dial6} ')


def connect(pod, port):
    """The socket behind the pod's port, or None when nothing listens there."""
    target = (pod["metadata"].get("annotations") or {}).get(ANNOTATION + str(port))
    if target is None:
        return None
    try:
        s = socket.create_connection(("127.0.0.1", int(target)))
    except OSError:
        return None
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def serve(h, pod):
    """Serves one port-forward request of handler `h` for the stored `pod`."""
    if not websocket.is_upgrade(h):
        raise ApiError(400, "BadRequest", "Upgrade request required")
    ports = parse_ports(h.query.get("ports"))
    conn, _ = websocket.upgrade(h, [PROTOCOL, ""])
    sandbox = pod["metadata"]["uid"]
    targets = {}  # data channel -> socket
    announced = (pod["metadata"].get("annotations") or {}).get(ANNOUNCE)
    for i, port in enumerate(ports):
        prefix = struct.pack("<H", int(announced) if announced else port)
        conn.send(bytes([2 * i]) + prefix)
        conn.send(bytes([2 * i + 1]) + prefix)
        s = connect(pod, port)
        if s is None:
            conn.send(bytes([2 * i + 1]) + refused(port, sandbox).encode())
        else:
            targets[2 * i] = s
    try:
        pump(conn, targets)
        conn.close()
    except (websocket.Closed, websocket.ProtocolError, OSError):
        conn.drop()
    finally:
        for s in targets.values():
            s.close()


def pump(conn, targets):
    """Copies bytes between the WebSocket and the ports' sockets until every port is done or
    the client closes (websocket.Closed). Writes to the ports never block (what the client
    sends waits in a buffer), so a port that echoes cannot stall the loop."""
    channel_of = {s: ch for ch, s in targets.items()}
    pending = {s: bytearray() for s in targets.values()}
    for s in targets.values():
        s.setblocking(False)
    while channel_of:
        writers = [s for s in channel_of if pending[s]]
        readable, writable = conn.wait(list(channel_of), writers)
        for s in writable:
            try:
                n = s.send(pending[s])
            except BlockingIOError:
                n = 0
            except OSError:
                del channel_of[s]
                continue
            del pending[s][:n]
        for r in readable:
            if r is conn.sock:
                opcode, data = conn.read_message()
                s = targets.get(data[0]) if data else None
                if s is not None and s in channel_of:
                    pending[s] += data[1:]
                continue
            if r not in channel_of:
                continue
            try:
                chunk = r.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if chunk:
                conn.send(bytes([channel_of[r]]) + chunk)
            else:
                del channel_of[r]
