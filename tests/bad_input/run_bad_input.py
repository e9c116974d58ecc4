#!/usr/bin/env python3
"""The bad-input corpus: each case runs ejob (or ejob-agent) with one bad input — a flag, a job
file, values, a chart, a kubeconfig, an API server's answer, an agent's setting — and expects
the exact message and exit status it names, and that nothing was created or changed: not on
the Kubernetes API test server (tests/kube/server.py, every object and its resourceVersion),
not on disk (every file under the case's folder, HOME and XDG folders included).

    run_bad_input.py --ejob PATH [--agent PATH] [--update] [CASES.yaml ...] [-k NAME]

A case (one item of a YAML list in tests/bad_input/*.yaml):

    - name: submit: --workers is not a count      # unique in the corpus
      args: [submit, job.yaml, --workers, x]      # `agent` instead of args: ejob-agent's
      files: {job.yaml: "image: w:1\\n"}          # written into the case's folder (the cwd)
      env: {EJOB_X: "1"}                          # on top of the case's environment
      kubeconfig: |                               # instead of the test server's kubeconfig
        ...
      server: {config: {...}, faults: {...}}      # the test server's /_test/config, /_test/faults
      status: 2
      stderr: |
        ejob: error: ...
      stdout: ""                                   # (default "")

In expected texts `$DIR` stands for the case's folder, `$PORT` for the test server's port and
`$SERVER_DIR` for its folder (its CA and client certificates: ca.crt, admin.crt, ...), which a
case's kubeconfig may name too.
--update writes what ejob printed into the files (read the diff before committing it).
"""
import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
RETRY_LINE = re.compile(r"^ejob: [^\n]*; retrying in [0-9.]+ s \(attempt \d+ of \d+\)\n", re.M)
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "kube"))
import cli_test  # noqa: E402  the test server's harness (Server)


def disk_state(root):
    """Every file and folder under `root` with a digest of its contents; the cache folder
    (XDG_CACHE_HOME: what the cluster serves, as kubectl's discovery cache) is no state."""
    state = {}
    for folder, dirs, files in os.walk(root):
        if folder == root:
            dirs[:] = [d for d in dirs if d != ".cache"]
        for d in dirs:
            state[os.path.relpath(os.path.join(folder, d), root) + "/"] = "dir"
        for f in files:
            path = os.path.join(folder, f)
            try:
                with open(path, "rb") as fh:
                    state[os.path.relpath(path, root)] = hashlib.sha256(fh.read()).hexdigest()
            except OSError as e:
                state[os.path.relpath(path, root)] = "unreadable: %s" % e
    return state


def server_state(server):
    return {(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]):
            o["metadata"].get("resourceVersion") for o in server.objects()}


def write_files(root, files):
    for rel, text in (files or {}).items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        if rel.endswith(".sh"):
            os.chmod(path, 0o755)


class Runner:
    def __init__(self, ejob, agent):
        self.ejob = os.path.abspath(ejob)
        self.agent = os.path.abspath(agent) if agent else None
        self.server = cli_test.Server()

    def stop(self):
        self.server.stop()

    def placeholders(self, text, root):
        text = (text.replace(root, "$DIR").replace(self.server.dir, "$SERVER_DIR")
                .replace(":%d" % self.server.port, ":$PORT"))
        # The retries said on the way are progress, drawn with jitter and raced by concurrent
        # requests (a TLS refusal may first show as a reset connection): the corpus keeps the
        # final message whole, not those lines.
        text = RETRY_LINE.sub("", text)
        return re.sub(r"\((\d+) attempts in \d+ ms\)", r"(\1 attempts)", text)

    def run(self, case):
        """(status, stdout, stderr, what changed) of one case, in a fresh folder; a case that
        configures the server gets a server of its own."""
        shared = self.server
        if case.get("server"):
            self.server = cli_test.Server()
        root = tempfile.mkdtemp(prefix="ejob-bad-input-")
        try:
            write_files(root, case.get("files"))
            env = self.environment(case, root)
            self.setup_server(case.get("server") or {})
            before = (disk_state(root), server_state(self.server))
            program = [self.agent] + case["agent"] if "agent" in case else [self.ejob] + case["args"]
            p = subprocess.run(program, cwd=root, env=env, capture_output=True, text=True,
                               timeout=case.get("timeout", 60), input=case.get("stdin"))
            self.server.ctl("faults", {})  # the server's own answers for the look afterwards
            after = (disk_state(root), server_state(self.server))
            changed = changes(before, after)
            return (p.returncode, self.placeholders(p.stdout, root),
                    self.placeholders(p.stderr, root), changed)
        finally:
            shutil.rmtree(root, ignore_errors=True)
            if self.server is not shared:
                self.server.stop()
                self.server = shared

    def environment(self, case, root):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("EJOB_", "PET_", "KUBE"))}
        env.update(HOME=root, XDG_STATE_HOME=os.path.join(root, ".state"),
                   XDG_CACHE_HOME=os.path.join(root, ".cache"),
                   XDG_CONFIG_HOME=os.path.join(root, ".config"), NO_COLOR="1",
                   KUBECONFIG=self.server.kubeconfig)
        if "kubeconfig" in case:
            path = os.path.join(root, ".kube-config")
            with open(path, "w") as f:
                f.write(case["kubeconfig"].replace("$PORT", str(self.server.port))
                        .replace("$SERVER_DIR", self.server.dir))
            env["KUBECONFIG"] = path
        for k, v in (case.get("env") or {}).items():
            env[k] = str(v).replace("$DIR", root)
        return env

    def setup_server(self, server):
        """What the case's cluster has (`crds`: `ejob install-crds` done; `objects`: created
        with kubectl) and how it answers (`config`, `faults`)."""
        if server.get("crds"):
            subprocess.run([self.ejob, "install-crds"], env=dict(os.environ, KUBECONFIG=self.server.kubeconfig,
                           HOME=self.server.dir), capture_output=True, check=True)
        for obj in server.get("objects", []):
            subprocess.run(["kubectl", "create", "-f", "-"], input=obj, text=True, capture_output=True,
                           env=dict(os.environ, KUBECONFIG=self.server.kubeconfig, HOME=self.server.dir),
                           check=True)
        if server.get("config"):
            self.server.ctl("config", server["config"])
        if server.get("faults"):
            self.server.ctl("faults", server["faults"])


def changes(before, after):
    out = []
    for what, b, a in (("file", before[0], after[0]), ("object", before[1], after[1])):
        for key in sorted(set(b) | set(a), key=str):
            if b.get(key) != a.get(key):
                state = "created" if key not in b else "removed" if key not in a else "changed"
                out.append("%s %s %s" % (what, key, state))
    return out


class Literal(str):
    pass


class Flow(list):
    pass


yaml.add_representer(Literal, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", v, style="|"))
yaml.add_representer(Flow, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v, flow_style=True))


def as_yaml_text(value):
    return Literal(value) if "\n" in value and not value.startswith((" ", "\n")) else value


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ejob", required=True)
    ap.add_argument("--agent")
    ap.add_argument("--update", action="store_true")
    ap.add_argument("-k", dest="only", help="run the cases whose name contains this")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = args.files or sorted(os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".yaml"))
    runner = Runner(args.ejob, args.agent)
    failed, total, names = [], 0, set()
    try:
        for path in files:
            with open(path) as f:
                cases = yaml.safe_load(f)
            for case in cases:
                if case["name"] in names:
                    failed.append("%s: the name is taken twice" % case["name"])
                names.add(case["name"])
                if args.only and args.only not in case["name"]:
                    continue
                total += 1
                failed += check_case(runner, case, args.update)
            if args.update:
                with open(path) as f:
                    header = "".join(l for l in f.readlines() if l.startswith("#"))
                with open(path, "w") as f:
                    f.write(header + dump_cases(cases))
    finally:
        runner.stop()
    for f in failed:
        print("FAIL " + f)
    print("%d cases, %d failed" % (total, len(failed)))
    return 1 if failed else 0


def check_case(runner, case, update):
    status, out, err, changed = runner.run(case)
    problems = []
    if changed:
        problems.append("%s: bad input changed things: %s" % (case["name"], "; ".join(changed)))
    if status == 0:
        problems.append("%s: exit 0 for a bad input" % case["name"])
    if update:
        case.update(status=status, stderr=err)
        if out:
            case["stdout"] = out
        else:
            case.pop("stdout", None)
        return problems
    if status != case.get("status") or err != case.get("stderr") or out != case.get("stdout", ""):
        problems.append("%s: expected exit %s and\n%s%s\ngot exit %d and\n%s%s" % (
            case["name"], case.get("status"), case.get("stderr"), case.get("stdout", ""), status,
            err, out))
    return problems


def dump_cases(cases):
    order = ["name", "args", "agent", "files", "env", "kubeconfig", "server", "stdin", "status",
             "stdout", "stderr"]
    out = []
    for case in cases:
        item = {}
        for key in order + [k for k in case if k not in order]:
            if key in case:
                value = case[key]
                if isinstance(value, str):
                    value = as_yaml_text(value)
                elif isinstance(value, list) and all(isinstance(v, str) for v in value):
                    value = Flow(value)
                elif isinstance(value, dict):
                    value = {k: as_yaml_text(v) if isinstance(v, str) else v for k, v in value.items()}
                item[key] = value
        out.append(yaml.dump([item], sort_keys=False, allow_unicode=True, width=100))
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
