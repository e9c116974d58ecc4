#!/usr/bin/env python3
"""Runs one golden case of `ejob` (tests/golden/<case>/) and compares its output.

A case folder holds:
  cmd              the arguments after `ejob`, one line, shell quoting (shlex)
  any inputs       job files, -f files... (the command runs inside the case folder)
  expected.out     expected stdout
  expected.err     expected stderr (absent = empty)
  expected.status  expected exit status (absent = 0)

For a successful `template` case the same manifests are also rendered by the Go reference
renderer (`ejob-reference`, tests/reference) from the same chart and the values ejob computed
(`ejob values` with the same arguments), and must be byte-identical: so real Helm renders
what ejob renders. The release name is --name with --exact-name, else the ElasticJob's name
as ejob printed it (its suffix follows from the inputs, so the case is reproducible). `--update` rewrites the expected files from ejob's output instead.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile


def read(path, default=""):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return default


def write(path, text):
    if text == "" and path.endswith((".err", ".status")):
        if os.path.exists(path):
            os.remove(path)
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def run(argv, cwd):
    # A team config of whoever runs the tests is not part of any case; a case that tests one
    # holds it as team-config.yaml.
    team = os.path.exists(os.path.join(cwd, "team-config.yaml"))
    env = dict(os.environ, EJOB_CONFIG="team-config.yaml" if team else os.devnull)
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=120, env=env)
    return p.returncode, p.stdout, p.stderr


def flag_value(args, names, default):
    """The value of the last of `names` in args (`--x v` or `--x=v`), else default."""
    value = default
    for i, a in enumerate(args):
        for n in names:
            if a == n and i + 1 < len(args):
                value = args[i + 1]
            elif a.startswith(n + "="):
                value = a[len(n) + 1:]
    return value


def without_output_flags(args):
    """The arguments minus template's output-only flags, which `ejob values` does not take."""
    out, skip = [], False
    for i, a in enumerate(args):
        if skip:
            skip = False
        elif a in ("-s", "--show-only", "--kube-version", "--output-dir") and "--" not in args[:i]:
            skip = True
        elif not a.startswith(("--show-only=", "--kube-version=", "--output-dir=")):
            out.append(a)
    return out


def job_name_in(manifests):
    """metadata.name of the ElasticJob in rendered manifests, else None."""
    for doc in manifests.split("\n---"):
        if "\nkind: ElasticJob\n" in "\n" + doc + "\n":
            m = re.search(r"^metadata:\n(?:  .*\n)*?  name: (\S+)$", doc, re.M)
            if m:
                return m.group(1)
    return None


def team_namespace(case):
    """The namespace the case's team-config.yaml sets (what `ejob values` does not show)."""
    for line in read(os.path.join(case, "team-config.yaml")).splitlines():
        if line.startswith("namespace:"):
            return line.split(":", 1)[1].strip()
    return None


def reference_check(opts, case, args, stdout):
    """Renders with ejob-reference from `ejob values`; returns an error text or None."""
    head = args[: args.index("--")] if "--" in args else args
    code, values, err = run([opts.ejob, "values"] + without_output_flags(args[1:]), case)
    if code != 0:
        return f"ejob values failed ({code}): {err}"
    chart = flag_value(head, ["--chart"], os.path.join(opts.charts, "elasticjob"))
    own_chart = any(a == "--chart" or a.startswith("--chart=") for a in head)
    default_ns = "default" if own_chart else team_namespace(case) or "elastic-job"
    namespace = flag_value(head, ["-n", "--namespace"], default_ns)
    name = flag_value(head, ["--name"], None)
    if "--exact-name" not in head:
        # The name ejob made (the given or default model name and a suffix that follows
        # from the inputs): the ElasticJob's, as printed.
        name = job_name_in(stdout)
        if name is None:
            return "without --exact-name the case must print the ElasticJob to name the release"
    show_only = []
    for i, a in enumerate(head[:-1]):
        if a in ("-s", "--show-only"):
            show_only += ["--show-only", head[i + 1]]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(values)
    try:
        code, ref, err = run([opts.reference, "template", "--chart", os.path.abspath(
            os.path.join(case, chart)), "--name", name, "-n", namespace, "-f", f.name]
            + show_only, case)
    finally:
        os.remove(f.name)
    if code != 0:
        return f"ejob-reference failed ({code}): {err}"
    if ref != stdout:
        return "ejob-reference renders differently:\n" + diff(ref, stdout)
    return None


def diff(expected, actual):
    import difflib
    return "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                        "expected", "actual"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ejob", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--charts", required=True, help="the repository's charts/ folder")
    ap.add_argument("--case", required=True)
    ap.add_argument("--update", action="store_true")
    opts = ap.parse_args()
    opts.update = opts.update or os.environ.get("EJOB_GOLDEN_UPDATE") == "1"
    # The command runs inside the case folder: make the given paths independent of it.
    opts.ejob, opts.reference, opts.charts = (
        os.path.abspath(p) for p in (opts.ejob, opts.reference, opts.charts))
    case = opts.case
    args = shlex.split(read(os.path.join(case, "cmd")).strip())
    code, out, err = run([opts.ejob] + args, case)
    exp_out = os.path.join(case, "expected.out")
    exp_err = os.path.join(case, "expected.err")
    exp_status = os.path.join(case, "expected.status")
    if opts.update:
        write(exp_out, out)
        write(exp_err, err)
        write(exp_status, "" if code == 0 else f"{code}\n")
    failures = []
    want_status = int(read(exp_status, "0").strip() or 0)
    if code != want_status:
        failures.append(f"exit status {code}, expected {want_status}")
    if out != read(exp_out):
        failures.append("stdout differs:\n" + diff(read(exp_out), out))
    if err != read(exp_err):
        failures.append("stderr differs:\n" + diff(read(exp_err), err))
    if code == 0 and args and args[0] == "template":
        problem = reference_check(opts, case, args, out)
        if problem:
            failures.append(problem)
    for f in failures:
        print(f"{os.path.basename(case)}: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
