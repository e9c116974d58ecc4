#!/usr/bin/env python3
"""A plain HTTP server of documents for the tests of src/kubeapi/url_fetch (never shipped).

    http_docs.py

Listens on 127.0.0.1 port 0, prints one JSON line {"port": N} on stdout when ready, and stops
when stdin closes. Paths:
  /schema.json        200, a JSON document (gzip-encoded when the request accepts gzip)
  /missing.json       404
  /teapot             418
  /hops/N             N > 0: 302 to the relative /hops/N-1; 0: 200 {"hops": 0}
  /no-location        302 without a Location header
  /to-ftp             302 to ftp://127.0.0.1/x
  /slow-head          answers nothing for 5 s
  /slow-body          200 with Content-Length 100, the start of a JSON object, then nothing for 5 s
  /short-body         200 with Content-Length 100, the start of a JSON object, then the
                      connection closes
  /big/N              200 with N bytes
  /headers            200, the request's headers as a JSON object (names in lower case)
  http://HOST/PATH    (a request through a proxy, absolute form) 200 {"proxied": "HOST/PATH"}
"""

import gzip
import http.server
import json
import socketserver
import sys
import threading
import time

SCHEMA = b'{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}\n'


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path
        if path.startswith("http://"):
            self.answer(200, json.dumps({"proxied": path[len("http://"):]}).encode())
        elif path == "/schema.json":
            self.schema()
        elif path.startswith("/hops/"):
            self.hops(int(path[len("/hops/"):]))
        elif path.startswith("/big/"):
            self.answer(200, b"x" * int(path[len("/big/"):]))
        elif path == "/headers":
            seen = {k.lower(): v for k, v in self.headers.items()}
            self.answer(200, json.dumps(seen).encode())
        else:
            self.other(path)

    def schema(self):
        if "gzip" in self.headers.get("Accept-Encoding", ""):
            self.answer(200, gzip.compress(SCHEMA), [("Content-Encoding", "gzip")])
        else:
            self.answer(200, SCHEMA)

    def hops(self, n):
        if n > 0:
            self.answer(302, headers=[("Location", "/hops/%d" % (n - 1))])
        else:
            self.answer(200, b'{"hops": 0}')

    def other(self, path):
        if path == "/no-location":
            self.answer(302)
        elif path == "/to-ftp":
            self.answer(302, headers=[("Location", "ftp://127.0.0.1/x")])
        elif path == "/teapot":
            self.answer(418, b"short and stout")
        elif path == "/slow-head":
            time.sleep(5)
            self.answer(200, b"late")
        elif path == "/slow-body":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b"{\"type\": \"o")
            self.wfile.flush()
            time.sleep(5)
        elif path == "/short-body":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b"{\"type\": \"o")
            self.close_connection = True
        else:
            self.answer(404, b"404 page not found\n")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
