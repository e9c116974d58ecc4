#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/) from inputs the
tree already has: the differential cases (tests/diff/cases), the elasticjob chart and the
examples; and, for the binary protocols, small hand-made messages in each framing. Inputs a
fuzzer found are added by hand beside these (named crash-*, leak-*, timeout-*) and are never
rewritten: this script only writes seed-* files.

  tests/fuzz/make_seeds.py            rewrite every seed-* file
"""
import gzip
import hashlib
import io
import json
import pathlib
import pickle
import re
import struct
import sys
import tarfile
import types

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests/fuzz/corpus"
PER_TARGET = 120  # seeds per target from the diff cases: enough shapes, a small tree


def txtar(path):
    """The files of a txtar case: name -> text (`name nonl` keeps no final newline)."""
    files, name, lines = {}, None, []
    for line in path.read_text(errors="replace").splitlines(keepends=True):
        m = re.match(r"^-- (.+) --\n?$", line)
        if m:
            if name:
                files[name] = "".join(lines)
            name, lines = m.group(1), []
        elif name:
            lines.append(line)
    if name:
        files[name] = "".join(lines)
    return {k.removesuffix(" nonl"): (v[:-1] if k.endswith(" nonl") and v.endswith("\n") else v)
            for k, v in files.items()}


def cases():
    return sorted((ROOT / "tests/diff/cases").glob("*/*.txtar"))


class Seeds:
    def __init__(self, target):
        self.dir = CORPUS / target
        self.dir.mkdir(parents=True, exist_ok=True)
        for old in self.dir.glob("seed-*"):
            old.unlink()
        self.seen = set()

    def add(self, data):
        if isinstance(data, str):
            data = data.encode()
        digest = hashlib.sha1(data).hexdigest()[:12]
        if digest in self.seen or len(self.seen) >= PER_TARGET:
            return
        self.seen.add(digest)
        (self.dir / f"seed-{digest}").write_bytes(data)


def render_seeds():
    template, yaml_, schema, strvals, archive = (Seeds(t) for t in
                                                 ("template", "yaml", "schema", "strvals",
                                                  "chart_archive"))
    flags = {"--set": 0, "--set-string": 1, "--set-json": 2, "--set-file": 3, "--set-literal": 4}
    for case in cases():
        files = txtar(case)
        helpers = "".join(v for k, v in files.items() if k.endswith(".tpl") and "!" not in k)
        for name, text in files.items():
            # The depth cases nest 100000 deep: ejob renders them on its 4 GiB stack
            # (src/util/big_stack), which ASan cannot follow an exception out of.
            if case.parent.name == "depth" or re.search(r"\b10000\d*\b", text):
                break
            if name.startswith("templates/") and not name.endswith(".tpl"):
                template.add(text + "\0" + helpers)
                break
        if "values.yaml" in files:
            yaml_.add(files["values.yaml"])
        if "values.schema.json" in files:
            schema.add(files["values.schema.json"] + "\0" + files.get("values.yaml", ""))
        args = files.get("args", "").splitlines()
        for flag, value in zip(args, args[1:]):
            if flag in flags:
                strvals.add(bytes([flags[flag]]) + value.encode())
        members = {k: v for k, v in files.items() if ".tgz!" in k}
        if members:
            archive.add(tgz({k.split("!", 1)[1]: v for k, v in members.items()}))
    chart = ROOT / "charts/elasticjob"
    yaml_.add((chart / "values.yaml").read_text())
    schema.add((chart / "values.schema.json").read_text() + "\0" + (ROOT / "examples/job.yaml").read_text())
    archive.add(tgz({f"elasticjob/{p.relative_to(chart)}": p.read_text()
                     for p in sorted(chart.rglob("*")) if p.is_file()}))


def tgz(members):
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 0
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(out.getvalue(), mtime=0)  # the same bytes on every run


def job_seeds():
    jobs, json_, quantity, lines, kubeconfig = (Seeds(t) for t in
                                                ("job_file", "json", "quantity", "log_lines",
                                                 "kubeconfig"))
    for p in sorted((ROOT / "examples").glob("*.yaml")):
        jobs.add(p.read_text())
    for p in sorted((ROOT / "tests/golden").glob("*/job.yaml"))[:40]:
        jobs.add(p.read_text())
    for case in cases():
        for name, text in txtar(case).items():
            if name.endswith(".json"):
                json_.add(text)
    json_.add('{"a": [1, 2.5e300, -0, "\\u00e9\\ud83d\\ude00", null, true], "b": {}}')
    for q in ["8", "500m", "1.5", "16Gi", "1e3", "+2", ".5", "1.", "2E", "3e-2", "1Ki", "0"]:
        quantity.add(q)
    lines.add(b"\x03line one\nline two\n\npartial")
    lines.add(b"\x00" + b"a\r\nb\n" * 20)
    for p in [ROOT / "src/kubeapi/kubeconfig_test.cpp"]:
        for m in re.finditer(r'R"\((apiVersion: v1\n.*?)\)"', p.read_text(), re.S):
            kubeconfig.add(m.group(1))


def http(status, body, extra=""):
    return (f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{extra}"
            f"Content-Length: {len(body)}\r\n\r\n{body}").encode()


def api_seeds():
    api, ws, resp, etcd = (Seeds(t) for t in ("kube_api", "websocket", "http_response", "etcd_json"))
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns",
                                                           "resourceVersion": "5", "uid": "u"}}
    status = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "nope",
              "reason": "Conflict", "details": {"name": "p", "causes": [
                  {"reason": "FieldManagerConflict", "message": "conflict with \"kubectl\"",
                   "field": ".spec.replicas"}]}, "code": 409}
    bodies = {
        0: {"kind": "APIResourceList", "groupVersion": "apps/v1", "resources": [
            {"name": "deployments", "kind": "Deployment", "namespaced": True},
            {"name": "deployments/status", "kind": "Deployment", "namespaced": True}]},
        1: {"kind": "PodList", "metadata": {"resourceVersion": "7", "continue": "x"}, "items": [pod]},
        4: pod, 5: pod, 6: {"kind": "EventList", "metadata": {}, "items": [
            {"involvedObject": {"uid": "u"}, "lastTimestamp": "2024-01-01T00:00:00Z",
             "message": "m"}]}, 7: status}
    for op, body in bodies.items():
        api.add(bytes([op, 0]) + json.dumps(body).encode())
        api.add(bytes([op, 128 + 4]) + json.dumps(status).encode())
    events = "".join(json.dumps(e) + "\n" for e in [
        {"type": "ADDED", "object": pod}, {"type": "BOOKMARK", "object": pod},
        {"type": "ERROR", "object": {"kind": "Status", "code": 410}},
        {"type": "ERROR", "object": status}])
    api.add(bytes([2, 0]) + events.encode())
    api.add(bytes([3, 0]) + b"2024-01-01T00:00:00Z line\nmore\n")
    for piece in (0, 1, 7):
        ws.add(bytes([piece]) + b"\x82\x05\x01hello" + b"\x89\x00" + b"\x01\x02\x01a\x80\x01b"
               + b"\x88\x02\x03\xe8")
        ws.add(bytes([piece]) + b"\x82\x7e\x00\x80" + b"x" * 128)
    for piece in (0, 3):
        resp.add(bytes([piece]) + http(200, '{"action":"get"}'))
        resp.add(bytes([piece]) + b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                 b"5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n")
        resp.add(bytes([piece]) + b"HTTP/1.0 200 OK\r\nConnection: close\r\n\r\nuntil the end")
    node = {"key": "/rdzv/v", "value": '{"status": "joinable", "version": "1", "participants": [0]}',
            "modifiedIndex": 7, "createdIndex": 7, "ttl": 30, "expiration": "2024-01-01T00:00:00Z"}
    etcd.add(json.dumps({"action": "get", "node": node}))
    etcd.add(json.dumps({"action": "get", "node": {"key": "/d", "dir": True, "nodes": [node]}}))
    etcd.add(json.dumps({"errorCode": 100, "message": "Key not found", "cause": "/x", "index": 3}))
    etcd.add(json.dumps({"status": "final", "version": "3", "participants": [0, 1],
                         "keep_alives": ["/k/0"], "num_workers_waiting": 2}))
    etcd.add(json.dumps({"role": "default", "rank": 0, "local_world_size": 2}))


def store_seeds():
    server, client = Seeds("tcp_store_server"), Seeds("tcp_store_client")
    b = lambda s: struct.pack("<q", len(s)) + s
    i64 = lambda v: struct.pack("<q", v)
    # torch 1.13: SET 0, COMPARE_SET 1, GET 2, ADD 3, CHECK 4, WAIT 5, GETNUMKEYS 6, WATCH 7,
    # DELETE 8; torch 2.x after VALIDATE+magic: ... (tcp_store_wire.cpp's tables).
    t1 = [b"\x00" + b(b"/k") + b(b"v"), b"\x02" + b(b"/k"), b"\x03" + b(b"/n") + i64(5),
          b"\x04" + i64(1) + b(b"/k"), b"\x05" + i64(1) + b(b"/k"), b"\x06",
          b"\x01" + b(b"/k") + b(b"v") + b(b"w"), b"\x07" + b(b"/k"), b"\x08" + b(b"/k")]
    server.add(b"".join(t1))
    for cmd in t1:
        server.add(cmd)
    hello = b"\x00\xce\xf7\x85\x3c"
    for code in range(0, 16):
        server.add(hello + bytes([code]) + b(b"/k") + b(b"v") + i64(1))
    server.add(hello + b"\x0e" + struct.pack("<I", 7))  # PING? (whichever code it is)
    for first in range(0, 22):
        client.add(bytes([first]) + b(b"value") + i64(3) + b"\x00" + b(b"x") * 3)
    client.add(b"\x01" + struct.pack("<I", 0) + b(b"v"))


def pickle_seeds():
    seeds = Seeds("state_pickle")
    mod = types.ModuleType("torch.distributed.elastic.rendezvous.dynamic_rendezvous")
    for part in ["torch", "torch.distributed", "torch.distributed.elastic",
                 "torch.distributed.elastic.rendezvous"]:
        sys.modules.setdefault(part, types.ModuleType(part))
    sys.modules[mod.__name__] = mod
    import dataclasses, datetime

    for torch2 in (False, True):
        host = "addr" if torch2 else "fqdn"
        Node = dataclasses.make_dataclass("_NodeDesc", [(host, str), ("pid", int), ("local_id", int)],
                                          frozen=True)
        fields = ["round", "complete", "deadline", "closed", "participants", "wait_list"]
        if torch2:
            fields.append("redundancy_list")
        fields.append("last_heartbeats")

        class State:
            pass
        State.__name__ = State.__qualname__ = "_RendezvousState"
        Node.__module__ = State.__module__ = mod.__name__
        mod._NodeDesc, mod._RendezvousState = Node, State
        tz = datetime.timezone.utc if torch2 else None
        a, c = Node("host-a", 10, 0), Node("host-b", 11, 0)
        s = State()
        s.round, s.complete, s.closed = 3, True, False
        s.deadline = datetime.datetime(2024, 1, 2, 3, 4, 5, 678, tzinfo=tz)
        s.participants, s.wait_list = {a: 0, c: 1}, {c}
        if torch2:
            s.redundancy_list = set()
        s.last_heartbeats = {a: datetime.datetime(2024, 1, 2, tzinfo=tz)}
        for protocol in (2, 3, 4, 5):
            seeds.add(pickle.dumps(s, protocol=protocol))


if __name__ == "__main__":
    render_seeds()
    job_seeds()
    api_seeds()
    store_seeds()
    pickle_seeds()
    total = sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file())
    print(f"corpus: {sum(1 for p in CORPUS.rglob('*') if p.is_file())} files, {total} bytes")
