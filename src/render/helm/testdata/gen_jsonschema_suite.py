#!/usr/bin/env python3
"""Writes jsonschema_suite.json.gz: JSON-Schema-Test-Suite's tests of drafts 4, 6, 7, 2019-09 and
2020-12 (tests/*.json, not optional/) with what santhosh-tekuri/jsonschema v6 — Helm v3.21's
validator — prints for each, framed as Helm's ValidateAgainstSingleSchema returns it. The unit
test src/render/helm/schema_suite_test.cpp checks ejob's validator against every one.

    gen_jsonschema_suite.py SUITE_DIR V6ORACLE

SUITE_DIR: a checkout of github.com/json-schema-org/JSON-Schema-Test-Suite (tests/, remotes/).
V6ORACLE: a program `V6ORACLE SCHEMA.json VALUES.json` that prints `OK` or `ERR[TEXT]`, TEXT being
what ValidateAgainstSingleSchema returns (Helm v3.21.4 pkg/chartutil/jsonschema.go, its loaders
included, with http://localhost:1234/ served from SUITE_DIR/remotes); built with Go from v6's
sources and golang.org/x/text (whose scientific numbers before v0.23.0 carry U+202F around the
`×`: they are removed here, as Helm's x/text writes none).

A schema without `$schema` gets its draft's (Helm sets no default draft: none would be 2020-12).
Boolean schemas outside 2020-12 are left out for that reason.
"""
import glob
import gzip
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading

DRAFTS = {
    "draft4": "http://json-schema.org/draft-04/schema#",
    "draft6": "http://json-schema.org/draft-06/schema#",
    "draft7": "http://json-schema.org/draft-07/schema#",
    "draft2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
}


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve_remotes(root):
    handler = lambda *a: Quiet(*a, directory=root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 1234), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def run(oracle, schema, data, tmp):
    """`schema` and `data` are JSON texts (numbers as written: -2.0 stays -2.0)."""
    with open(os.path.join(tmp, "s.json"), "w") as f:
        f.write(schema)
    with open(os.path.join(tmp, "v.json"), "w") as f:
        f.write(data)
    out = subprocess.run([oracle, os.path.join(tmp, "s.json"), os.path.join(tmp, "v.json")],
                         capture_output=True, text=True, timeout=60).stdout.strip()
    out = out.replace("\u202f", "")
    return "" if out == "OK" else out[len("ERR["):-1]


def main():
    suite, oracle = sys.argv[1], sys.argv[2]
    server = serve_remotes(os.path.join(suite, "remotes"))
    remotes = {}
    for path in sorted(glob.glob(os.path.join(suite, "remotes", "**", "*.json"), recursive=True)):
        rel = os.path.relpath(path, os.path.join(suite, "remotes"))
        with open(path) as f:
            remotes["http://localhost:1234/" + rel] = f.read()
    groups = []
    with tempfile.TemporaryDirectory() as tmp:
        for draft, url in DRAFTS.items():
            for path in sorted(glob.glob(os.path.join(suite, "tests", draft, "*.json"))):
                with open(path) as f:
                    for group in json.load(f):
                        schema = group["schema"]
                        if isinstance(schema, bool) and draft != "draft2020-12":
                            continue
                        if isinstance(schema, dict) and "$schema" not in schema:
                            schema = dict(schema, **{"$schema": url})
                        schema = json.dumps(schema)
                        tests = []
                        for t in group["tests"]:
                            data = json.dumps(t["data"])
                            tests.append({"data": data, "want": run(oracle, schema, data, tmp)})
                        groups.append({"where": f"{draft}/{os.path.basename(path)}: "
                                                f"{group['description']}",
                                       "schema": schema, "tests": tests})
    server.shutdown()
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jsonschema_suite.json.gz")
    with gzip.GzipFile(out, "wb", mtime=0) as f:
        f.write(json.dumps({"remotes": remotes, "groups": groups}, sort_keys=True).encode())
    print(f"{out}: {len(groups)} groups, {sum(len(g['tests']) for g in groups)} tests")


if __name__ == "__main__":
    main()
