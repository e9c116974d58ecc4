#!/usr/bin/env python3
"""A Kubernetes API server for ejob's tests (never shipped).

    server.py --dir DIR [--namespaces A,B] [--crd FILE]...

Makes a test PKI in DIR (certs.py), listens with TLS on 127.0.0.1 port 0, writes DIR/kubeconfig
(contexts admin-cert, admin-token, viewer-token, viewer-cert, pod-reader-token, basic, anonymous) and prints one
JSON line {"port": N} on stdout when ready. It stops when stdin closes or on POST /_test/shutdown.

Authentication: client certificates signed by DIR/ca.crt (CN = user), bearer tokens
(admin-token, viewer-token, plus those added with /_test/tokens), basic auth admin:admin-password.
Bad credentials are 401; no credentials is user system:anonymous (403 except /version, /healthz).
admin may do everything, viewer only get/list/watch, pod-reader (pod-reader-token) the same
but not pods/log, a role clusters often hand out.

Test control (no auth, never faulted, not counted), all JSON:
  POST /_test/faults {rate, kinds:[400|429|500|503|drop|drop_after|truncate|stall|cut_log|
                      wrong_type],
                      latency_ms, retry_after, methods:[..], path: regex, times, seed, cut_max}
  GET  /_test/requests            every API request seen: {method, path, query, status}
  POST /_test/requests/reset
  POST /_test/tokens {token: user|null}
  POST /_test/logs {namespace, pod, container, lines:[{time, text}], previous:[..], done}
  POST /_test/log-cut {namespace, pod, container, after: [N, ..]}  each of the pod's next
                                  log streams breaks after N lines, without the final chunk (a
                                  kubelet or an API server restarting, a proxy timing out)
  POST /_test/pod-phase {namespace, name, phase, exitCode}
  POST /_test/status {apiVersion, kind, namespace, name, status}  an object's status, as a
                                  controller writes it (a Deployment's readyReplicas)
  POST /_test/config {crd_establish_delay, bookmark_interval, evict_blocked:[pod names],
                      path_prefix: API paths only under it, as behind a proxy ("/k8s/clusters/c-1"),
                      operator: false = no operator at all (jobs stay without pods or status),
                      operators: {elasticjob|pytorchjob|trainjob: false} = not that one
                      (kubeflow.py plays training-operator and Trainer with JobSet),
                      forbidden: ["VERB RESOURCE[/SUB]"] denied by SelfSubjectAccessReviews,
                      gc_delay: seconds before the garbage collector acts on a deletion,
                      gc: false = no garbage collector (dependents and finalizers stay)}
  POST /_test/compact             forget watch history (older resourceVersions get 410)
  POST /_test/sync                wait until the ElasticJob controller and the collector are idle
  GET  /_test/objects             every stored object
  GET  /_test/websocket           a WebSocket echo peer (websocket_server.serve_echo)
  GET  /_test/websocket-closes    the close codes and reasons its clients sent

--crd FILE loads a file of CRDs (served and Established at once) and of objects of their
kinds (a ClusterTrainingRuntime), as a cluster where they were installed: ../shared/crds.

Pods forward ports (pods/portforward) to 127.0.0.1 ports named by their annotations
test.ejob.dev/port-forward-PORT, over WebSocket (v4.channel.k8s.io, portforward.py; ejob) or
SPDY/3.1 (spdy.py; kubectl).
"""

import argparse
import json
import os
import random
import re
import socket
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import certs  # noqa: E402
import controller  # noqa: E402
import routes  # noqa: E402
from store import ApiError, Store  # noqa: E402


class Faults:
    """Fault injection chosen by the test: which requests, which fault, how often. Kinds: 400,
    429, 500, 503 (answered), drop (connection closed unanswered), drop_after (closed after the
    work was done), truncate (half a body), stall (headers, then silence with the connection
    open: a hung apiserver under a watch), cut_log (a pod's log stream breaks after 0 to
    cut_max lines, half a line and no final chunk; other requests are answered), wrong_type
    (a 2xx answer's metadata.name, and each list item's, is the number 7: a proxy or a server
    that is not Kubernetes)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.configure({})

    def configure(self, cfg):
        with self.lock:
            self.rate = float(cfg.get("rate", 0))
            self.kinds = cfg.get("kinds", ["500"])
            self.latency = float(cfg.get("latency_ms", 0)) / 1000.0
            self.retry_after = cfg.get("retry_after", 0)
            self.methods = set(cfg.get("methods", []))
            self.path = re.compile(cfg.get("path", ""))
            self.times = cfg.get("times")
            self.random = random.Random(cfg.get("seed", 1))
            self.cut_max = int(cfg.get("cut_max", 20))

    def log_cut(self):
        """The lines a stream picked for cut_log sends before it breaks."""
        with self.lock:
            return self.random.randint(0, self.cut_max)

    def pick(self, method, path):
        with self.lock:
            if self.methods and method not in self.methods:
                return self.latency, None
            if not self.path.search(path):
                return self.latency, None
            if self.times is not None:
                if self.times <= 0:
                    return self.latency, None
                self.times -= 1
                return self.latency, self.random.choice(self.kinds)
            if self.rate > 0 and self.random.random() < self.rate:
                return self.latency, self.random.choice(self.kinds)
            return self.latency, None


def mistyped(obj):
    """`obj` (an object or a list) with metadata.name a number, as the wrong_type fault sends it."""
    obj = json.loads(json.dumps(obj))
    for o in [obj] + [i for i in obj.get("items") or [] if isinstance(i, dict)]:
        if isinstance(o.get("metadata"), dict) and "name" in o["metadata"]:
            o["metadata"]["name"] = 7
    return obj


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, directory, namespaces=()):
        super().__init__(("127.0.0.1", 0), Handler)
        self.dir = directory
        self.store = Store(namespaces)
        self.faults = Faults()
        self.requests = []
        self.requests_lock = threading.Lock()
        self.tokens = {"admin-token": "admin", "viewer-token": "viewer", "pod-reader-token": "pod-reader"}
        self.logs = {}
        self.log_cuts = {}  # (ns, pod, container) -> lines after which the next streams break
        self.websocket_closes = []
        self.config = {"bookmark_interval": 1.0, "evict_blocked": [], "path_prefix": ""}
        self.stopping = threading.Event()
        self.controller = controller.Controller(self.store, self.config)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(os.path.join(directory, "server.crt"), os.path.join(directory, "server.key"))
        ctx.load_verify_locations(os.path.join(directory, "ca.crt"))
        ctx.verify_mode = ssl.CERT_OPTIONAL
        ctx.set_alpn_protocols(["http/1.1"])
        self.ssl = ctx

    def get_request(self):
        sock, addr = self.socket.accept()
        # As Go's net/http (kube-apiserver) does; without it, headers and body written apart
        # meet the client's delayed ACK and each answer waits ~40 ms.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # The handshake runs in the handler's thread, not the accept loop.
        return self.ssl.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), addr

    def handle_error(self, request, client_address):
        pass  # handshake failures and dropped clients are expected in tests


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ejob-test-apiserver"

    def log_message(self, fmt, *args):
        pass

    def setup(self):
        super().setup()
        try:
            self.request.do_handshake()
        except (ssl.SSLError, OSError):
            self.close_connection = True
            self.rfile = self.wfile = None

    def handle(self):
        if self.rfile is None:
            return
        super().handle()

    def do_GET(self):
        self.dispatch()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_GET

    # ---- plumbing ----------------------------------------------------------------------------
    def body(self):
        if hasattr(self, "_body"):
            return self._body
        n = int(self.headers.get("Content-Length") or 0)
        self._body = self.rfile.read(n) if n else b""
        return self._body

    def send_json(self, code, obj, headers=None, content_type="application/json"):
        if self.fault == "wrong_type" and 200 <= code < 300 and isinstance(obj, dict):
            obj = mistyped(obj)
        data = json.dumps(obj).encode()
        if self.fault == "truncate":
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.drop()
            return
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self.status_sent = code

    def send_error_status(self, err):
        self.send_json(err.code, err.status(), err.headers)
        self.status_sent = err.code

    def start_chunked(self, content_type):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.status_sent = 200

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_chunked(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def stall(self):
        """A hung apiserver: the response starts (a watch's headers) and then nothing comes,
        and the connection stays open, until the server stops."""
        self.start_chunked("application/json")
        self.server.stopping.wait()
        self.close_connection = True

    def drop(self):
        self.close_connection = True
        try:
            self.wfile.flush()
            self.request.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # ---- dispatch ----------------------------------------------------------------------------
    def dispatch(self):
        url = urllib.parse.urlsplit(self.path)
        self.__dict__.pop("_body", None)  # the handler lives as long as the connection
        path, outside = url.path, False
        prefix = self.server.config["path_prefix"]
        if prefix and not path.startswith("/_test/"):
            # A proxy in front of the API server (Rancher's /k8s/clusters/ID): only its paths
            # reach the server, without the prefix; others are not found.
            outside = path != prefix and not path.startswith(prefix + "/")
            path = path if outside else path[len(prefix):] or "/"
        url = url._replace(path=path)
        self.url_path = url.path
        self.query = {k: v[-1] for k, v in urllib.parse.parse_qs(url.query, keep_blank_values=True).items()}
        self.fault = None
        self.status_sent = 0
        if url.path.startswith("/_test/"):
            self.body()
            try:
                routes.control(self)
            except ApiError as err:
                self.send_error_status(err)
            return
        latency, fault = self.server.faults.pick(self.command, url.path)
        if latency:
            time.sleep(latency)
        self.body()
        try:
            if fault in ("400", "429", "500", "503"):
                self.fault_status(fault)
            elif fault == "drop":
                self.drop()
            elif fault == "stall":
                self.stall()
            else:
                self.fault = fault
                if outside:
                    raise ApiError(404, "NotFound", "the server could not find the requested resource")
                self.user = self.authenticate()
                routes.api(self)
                if fault == "drop_after":
                    self.drop()
        except ApiError as err:
            if self.fault == "drop_after":
                self.drop()
            else:
                self.send_error_status(err)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        finally:
            with self.server.requests_lock:
                self.server.requests.append({"method": self.command, "path": url.path,
                                             "query": url.query, "status": self.status_sent,
                                             "fault": fault, "peer": self.client_address[1],
                                             "userAgent": self.headers.get("User-Agent", "")})

    def fault_status(self, fault):
        code = int(fault)
        if code == 429:
            err = ApiError(429, "TooManyRequests", "too many requests, please try again later",
                           {"retryAfterSeconds": self.server.faults.retry_after},
                           {"Retry-After": str(self.server.faults.retry_after)})
        elif code == 503:
            err = ApiError(503, "ServiceUnavailable", "the server is currently unable to handle the request")
        elif code == 400:
            # What a pod's log answers while its kubelet has not started the container, though
            # the pod's status may say otherwise already.
            err = ApiError(400, "BadRequest", "container is waiting to start: ContainerCreating")
        else:
            err = ApiError(500, "InternalError", "Internal error occurred: injected fault")
        self.send_error_status(err)

    def authenticate(self):
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            user = self.server.tokens.get(auth[7:])
            if user is None:
                raise ApiError(401, "Unauthorized", "Unauthorized")
            return user
        if auth.startswith("Basic "):
            import base64
            try:
                pair = base64.b64decode(auth[6:]).decode()
            except ValueError:
                pair = ""
            if pair == "admin:admin-password":
                return "admin"
            raise ApiError(401, "Unauthorized", "Unauthorized")
        cert = self.request.getpeercert()
        if cert:
            for rdn in cert.get("subject", ()):
                for k, v in rdn:
                    if k == "commonName":
                        return v
        return "system:anonymous"


def write_kubeconfig(directory, port):
    def data(name):
        import base64
        with open(os.path.join(directory, name), "rb") as f:
            return base64.b64encode(f.read()).decode()

    server = f"https://127.0.0.1:{port}"
    users = {
        "admin-cert": {"client-certificate-data": data("admin.crt"), "client-key-data": data("admin.key")},
        "viewer-cert": {"client-certificate-data": data("viewer.crt"), "client-key-data": data("viewer.key")},
        "admin-token": {"token": "admin-token"},
        "viewer-token": {"token": "viewer-token"},
        "pod-reader-token": {"token": "pod-reader-token"},
        "basic": {"username": "admin", "password": "admin-password"},
        "anonymous": {},
    }
    cfg = {
        "apiVersion": "v1", "kind": "Config", "preferences": {},
        "clusters": [{"name": "test", "cluster": {"server": server,
                                                  "certificate-authority-data": data("ca.crt")}}],
        "users": [{"name": n, "user": u} for n, u in users.items()],
        "contexts": [{"name": n, "context": {"cluster": "test", "user": n, "namespace": "default"}}
                     for n in users],
        "current-context": "admin-cert",
    }
    with open(os.path.join(directory, "kubeconfig"), "w") as f:
        json.dump(cfg, f, indent=1)


def install_files(srv, paths):
    """The CRDs of `paths`, Established, then the other objects (their kinds now served)."""
    import yaml  # Debian's python3-yaml, a test dependency
    docs = [d for p in paths for d in yaml.safe_load_all(open(p)) if d]
    store = srv.store
    crd_res = store.resource("apiextensions.k8s.io", "v1", "customresourcedefinitions")
    for d in docs:
        if d.get("kind") == "CustomResourceDefinition":
            store.create(crd_res, None, d, "kubectl", False)
            with store.lock:
                srv.controller.establish(d["metadata"]["name"])
    for d in docs:
        if d.get("kind") != "CustomResourceDefinition":
            res = store.resource_for_kind(d["apiVersion"], d["kind"])
            ns = d.get("metadata", {}).get("namespace", "default") if res.namespaced else None
            store.create(res, ns, d, "kubectl", False)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--namespaces", default="",
                        help="comma-separated namespaces that exist from the start, beyond a fresh "
                             "cluster's default, kube-system, kube-public and kube-node-lease")
    parser.add_argument("--crd", action="append", default=[],
                        help="a YAML file of CRDs and objects of their kinds, installed from the start")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    certs.make_pki(args.dir)
    srv = Server(args.dir, [n for n in args.namespaces.split(",") if n])
    install_files(srv, args.crd)
    port = srv.server_address[1]
    write_kubeconfig(args.dir, port)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    srv.controller.start()
    print(json.dumps({"port": port}), flush=True)

    def watch_stdin():
        sys.stdin.read()
        srv.stopping.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    srv.stopping.wait()
    with srv.store.changed:
        srv.store.changed.notify_all()
    srv.shutdown()


if __name__ == "__main__":
    main()
