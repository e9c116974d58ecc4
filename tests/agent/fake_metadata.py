"""Fake cloud instance metadata services on 127.0.0.1, one cloud each, answering the requests
ejob-agent's preemption watch makes the way each cloud documents them — headers required,
error answers and long-polls included:

  azure  Scheduled Events: GET /metadata/scheduledevents?api-version=2020-07-01 and
         /metadata/instance/compute/name?api-version=…&format=text, both with `Metadata: true`
         (else 400); events {"DocumentIncarnation", "Events": [{"EventId", "EventType",
         "ResourceType", "Resources", "EventStatus", "NotBefore" (HTTP date), "Description",
         "EventSource", "DurationInSeconds"}]}; POST {"StartRequests": [{"EventId"}]}
         acknowledges (the event then starts: EventStatus Started, NotBefore "").
  aws    IMDSv2: PUT /latest/api/token with X-aws-ec2-metadata-token-ttl-seconds (1–21600,
         else 400) gives a token; every GET needs X-aws-ec2-metadata-token (else 401);
         /latest/meta-data/spot/instance-action 404 until the notice, then
         {"action": "terminate", "time": "<RFC 3339>"}; …/events/recommendations/rebalance
         404 or {"noticeTime": …}; /latest/meta-data/instance-id.
  gce    GET /computeMetadata/v1/instance/preempted and …/maintenance-event with
         `Metadata-Flavor: Google` (else 403); answers carry Metadata-Flavor and ETag;
         wait_for_change=true returns when the value's ETag differs from last_etag, or after
         timeout_sec.

As a script: `fake_metadata.py CLOUD` prints its port, then reads commands on stdin, one a
line, and answers each with a line `ok` (or the requested data):
  notice [SECONDS]   publish the cloud's notice, the deadline SECONDS ahead (default 30)
  other-vm           (azure) publish a Preempt event that names another VM
  rebalance          (aws) publish a rebalance recommendation
  maintenance VALUE  (gce) set maintenance-event
  fail STATUS [N]    answer the next N (default 1) notice reads with HTTP STATUS
  slow SECONDS       wait SECONDS before every answer
  expire-tokens      (aws) forget every token issued (the next reads get 401)
  requests           print the requests seen as one JSON list of [method, path, headers]
It ends when stdin closes. The integration tests import FakeMetadata instead.
"""
import email.utils
import hashlib
import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

VM_NAME = "ejob-spot-vmss_3"
INSTANCE_ID = "i-0123456789abcdef0"


def rfc3339(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


class FakeMetadata:
    """One cloud's service; `url` is what EJOB_SPOT_METADATA_URL takes."""

    def __init__(self, cloud):
        self.cloud = cloud
        self.lock = threading.Condition()
        self.events = []          # azure
        self.incarnation = 1
        self.acks = []
        self.tokens = set()       # aws
        self.instance_action = None
        self.rebalance_at = None
        self.preempted = "FALSE"  # gce
        self.maintenance = "NONE"
        self.failures = []        # statuses for the next notice reads
        self.delay = 0.0
        self.requests = []
        self.notice_reads = 0
        handler = type("Handler", (_Handler,), {"fake": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def port(self):
        return self.server.server_address[1]

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    # What the tests do to the cloud.
    def notice(self, seconds=30.0):
        deadline = time.time() + seconds
        with self.lock:
            if self.cloud == "azure":
                self.events.append(_azure_event("preempt-1", "Preempt", [VM_NAME], deadline))
                self.incarnation += 1
            elif self.cloud == "aws":
                self.instance_action = {"action": "terminate", "time": rfc3339(deadline)}
            else:
                self.preempted = "TRUE"
            self.lock.notify_all()
        return deadline

    def other_vm(self):
        with self.lock:
            self.events.append(_azure_event("other-1", "Preempt", ["another-vm"], time.time() + 30))
            self.events.append(_azure_event("reboot-1", "Reboot", [VM_NAME], time.time() + 600))
            self.incarnation += 1

    def rebalance(self):
        with self.lock:
            self.rebalance_at = time.time()

    def set_maintenance(self, value):
        with self.lock:
            self.maintenance = value
            self.lock.notify_all()

    def fail(self, status, count=1):
        with self.lock:
            self.failures += [int(status)] * int(count)

    def expire_tokens(self):
        with self.lock:
            self.tokens.clear()

    def seen(self):
        with self.lock:
            return list(self.requests)


def _azure_event(event_id, event_type, resources, not_before):
    return {"EventId": event_id, "EventType": event_type, "ResourceType": "VirtualMachine",
            "Resources": resources, "EventStatus": "Scheduled",
            "NotBefore": email.utils.formatdate(not_before, usegmt=True),
            "Description": "Virtual machine is being evicted.", "EventSource": "Platform",
            "DurationInSeconds": -1}


def _etag(value):
    return hashlib.sha1(value.encode()).hexdigest()[:16]


class _Handler(BaseHTTPRequestHandler):
    fake = None
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, content_type="text/plain", headers=None):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def handle_any(self, method):
        fake = self.fake
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        with fake.lock:
            fake.requests.append([method, self.path, dict(self.headers.items())])
            delay = fake.delay
        time.sleep(delay)
        getattr(self, "serve_" + fake.cloud)(method, url.path, query)

    def do_GET(self):
        self.handle_any("GET")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_POST(self):
        self.handle_any("POST")

    def failure(self):
        """A failure planned for this notice read, or None."""
        with self.fake.lock:
            self.fake.notice_reads += 1
            return self.fake.failures.pop(0) if self.fake.failures else None

    # Azure: IMDS wants `Metadata: true` and a known api-version.
    def serve_azure(self, method, path, query):
        if self.headers.get("Metadata") != "true":
            return self.answer(400, json.dumps({"error": "Bad request. Required metadata header "
                                                "not specified"}), "application/json")
        if path == "/metadata/instance/compute/name" and method == "GET":
            return self.answer(200, VM_NAME)
        if path != "/metadata/scheduledevents":
            return self.answer(404, json.dumps({"error": "Not found"}), "application/json")
        if query.get("api-version") != "2020-07-01":
            return self.answer(400, json.dumps({"error": "Bad request. api-version is invalid"}),
                               "application/json")
        if method == "POST":
            return self.azure_start(json.loads(self.body() or b"{}"))
        status = self.failure()
        if status:
            return self.answer(status, json.dumps({"error": "Too many requests"}), "application/json")
        with self.fake.lock:
            doc = {"DocumentIncarnation": self.fake.incarnation, "Events": self.fake.events}
            return self.answer(200, json.dumps(doc), "application/json")

    def azure_start(self, request):
        with self.fake.lock:
            for r in request.get("StartRequests", []):
                self.fake.acks.append(r.get("EventId"))
                for e in self.fake.events:
                    if e["EventId"] == r.get("EventId"):
                        e["EventStatus"], e["NotBefore"] = "Started", ""
            self.fake.incarnation += 1
        return self.answer(200, "")

    # AWS: IMDSv2 session tokens.
    def serve_aws(self, method, path, query):
        if path == "/latest/api/token" and method == "PUT":
            return self.aws_token()
        if method != "GET":
            return self.answer(405, "")
        with self.fake.lock:
            known = self.headers.get("X-aws-ec2-metadata-token") in self.fake.tokens
        if not known:
            return self.answer(401, "")
        if path == "/latest/meta-data/instance-id":
            return self.answer(200, INSTANCE_ID)
        if path == "/latest/meta-data/spot/instance-action":
            status = self.failure()
            if status:
                return self.answer(status, "")
            with self.fake.lock:
                action = self.fake.instance_action
            return self.answer(200, json.dumps(action)) if action else self.aws_not_found()
        if path == "/latest/meta-data/events/recommendations/rebalance":
            with self.fake.lock:
                at = self.fake.rebalance_at
            return self.answer(200, json.dumps({"noticeTime": rfc3339(at)})) if at else \
                self.aws_not_found()
        return self.aws_not_found()

    def aws_token(self):
        ttl = self.headers.get("X-aws-ec2-metadata-token-ttl-seconds", "")
        if not ttl.isdigit() or not 1 <= int(ttl) <= 21600:
            return self.answer(400, "")
        token = "AQAEA" + hashlib.sha1(str(time.time()).encode()).hexdigest()
        with self.fake.lock:
            self.fake.tokens.add(token)
        return self.answer(200, token, headers={"X-aws-ec2-metadata-token-ttl-seconds": ttl})

    def aws_not_found(self):
        return self.answer(404, "<?xml version=\"1.0\" encoding=\"iso-8859-1\"?>\n"
                           "<html><head><title>404 - Not Found</title></head></html>\n",
                           "text/html")

    # GCE: Metadata-Flavor both ways, ETags and long-polls.
    def serve_gce(self, method, path, query):
        flavor = {"Metadata-Flavor": "Google"}
        if self.headers.get("Metadata-Flavor") != "Google":
            return self.answer(403, "Missing Metadata-Flavor:Google header.", headers=flavor)
        keys = {"/computeMetadata/v1/instance/preempted": "preempted",
                "/computeMetadata/v1/instance/maintenance-event": "maintenance"}
        if method != "GET" or path not in keys:
            return self.answer(404, "Not Found", headers=flavor)
        if keys[path] == "preempted":
            status = self.failure()
            if status:
                return self.answer(status, "Service Unavailable", headers=flavor)
        value = self.gce_value(keys[path], query)
        return self.answer(200, value, "application/text",
                           dict(flavor, ETag=_etag(value)))

    def gce_value(self, key, query):
        """The value now, or, for wait_for_change, once its ETag differs from last_etag."""
        fake = self.fake
        deadline = time.time() + float(query.get("timeout_sec", "60"))
        with fake.lock:
            while query.get("wait_for_change") == "true" and \
                    _etag(getattr(fake, key)) == query.get("last_etag") and time.time() < deadline:
                fake.lock.wait(max(0.0, deadline - time.time()))
            return getattr(fake, key)


def main():
    fake = FakeMetadata(sys.argv[1])
    print(fake.port, flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command, args = words[0], words[1:]
        if command == "notice":
            fake.notice(float(args[0]) if args else 30.0)
        elif command == "other-vm":
            fake.other_vm()
        elif command == "rebalance":
            fake.rebalance()
        elif command == "maintenance":
            fake.set_maintenance(args[0])
        elif command == "fail":
            fake.fail(*args)
        elif command == "slow":
            fake.delay = float(args[0])
        elif command == "expire-tokens":
            fake.expire_tokens()
        elif command == "requests":
            print(json.dumps(fake.seen()), flush=True)
            continue
        print("ok", flush=True)
    fake.close()


if __name__ == "__main__":
    main()
