#!/usr/bin/env python3
"""Differential test runner: `ejob template` against the Go reference renderer.

A case is a txtar file (tests/diff/cases/<group>/<name>.txtar):

    free text: what the case checks
    -- args --
    --set
    a=1
    -- Chart.yaml --
    ...
    -- templates/x.yaml --
    ...
    -- extra/values1.yaml --
    ...

`args` holds extra command-line arguments, one per line (so values may contain spaces).
Files named `extra/...` are written beside the chart (for -f, --set-file); every other file
goes into the chart directory. A file marker `-- NAME nonl --` strips the final newline;
`-- NAME base64 --` writes the base64-decoded bytes (binary fixtures such as a cut-off .tgz).

Packaged subcharts are built from text members: `-- charts/sub.tgz!sub/Chart.yaml --` puts
the file `sub/Chart.yaml` into the gzip'd tar `charts/sub.tgz` (members in case order, mode
0644, mtime 0). `charts/sub.tgz:FORMAT!member` picks the tar format: gnu (default, long names
as `L` records), pax (long names as pax `path` records) or ustar (long names split into
prefix/name).
Both programs run in a fresh directory as
`template --chart chart --exact-name [--name release-name] ARGS...` (`--name release-name`
unless ARGS hold --name, --name-template or --generate-name).

Where Helm v3.21 and the oracle's libraries disagree (the oracle links Debian's Sprig 3.2.3 and
xstrings 1.3.3; Helm v3.21.4 links Sprig v3.3.0 and xstrings v1.5.0), the case cannot be
differential: a `-- want --` section then holds Helm v3.21's stdout, which ejob must print
byte for byte (exit status 0), and the free text must name where that answer comes from in a
line `want-source: ...` (an upstream test or source file at a tag) and why the oracle cannot
give it in a line `want-reason: ...`. The reference still runs, and must still answer
differently: once the oracle agrees, the section is dropped and the case is differential again.
A `-- want-error --` section does the same for a failure: ejob must fail, its stderr must hold
the section's text (its final newline aside), and the reference's stderr must not.

The free text may hold a line `expect: error`: the reference must then fail, otherwise it must
succeed (this keeps a case from silently testing something other than what it says).

A case passes when stdout is byte-identical (and, with --output-dir, the written trees too), both exit statuses are zero or both non-zero,
and, on failure, ejob's stderr contains the message the reference printed after `Error: `.

Usage:
    run_diff.py --ejob BIN --reference BIN --case FILE        one case (exit status 0/1)
    run_diff.py --ejob BIN --reference BIN --cases DIR [--summary] [-j N] [--verbose]
"""
import argparse
import base64
import concurrent.futures
import difflib
import gzip
import io
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

TIMEOUT_S = 30


def parse_txtar(text):
    """Returns (comment, [(name, content)])."""
    comment, files = [], []
    current, lines = None, []

    def flush():
        if current is not None:
            name, mode = current
            content = "".join(lines)
            if mode == "nonl" and content.endswith("\n"):
                content = content[:-1]
            if mode == "base64":
                content = base64.b64decode(content)
            files.append((name, content))

    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\n")
        if stripped.startswith("-- ") and stripped.endswith(" --") and len(stripped) > 6:
            flush()
            parts = stripped[3:-3].strip().split()
            mode = parts[-1] if len(parts) > 1 and parts[-1] in ("nonl", "base64") else ""
            current, lines = (parts[0], mode), []
        elif current is None:
            comment.append(line)
        else:
            lines.append(line)
    flush()
    return "".join(comment), files


def case_argv(files):
    """Builds the argument list shared by both programs."""
    extra = []
    for name, content in files:
        if name == "args":
            extra = [line for line in content.splitlines() if line != ""]
    argv = ["template", "--chart", "chart", "--exact-name"]
    # --name plays helm's NAME argument, which --name-template and --generate-name forbid
    if not {"--name", "--name-template", "--generate-name"} & set(extra):
        argv += ["--name", "release-name"]
    return argv + extra


def build_tgz(members, fmt):
    """A gzip'd tar of (member name, text) pairs, byte-for-byte reproducible."""
    formats = {"gnu": tarfile.GNU_FORMAT, "pax": tarfile.PAX_FORMAT, "ustar": tarfile.USTAR_FORMAT}
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=formats[fmt]) as tar:
        for member, content in members:
            data = content if isinstance(content, bytes) else content.encode("utf-8")
            info = tarfile.TarInfo(member)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def materialize(files, root):
    archives = {}
    for name, content in files:
        if name in ("args", "want", "want-error"):
            continue
        if "!" in name:
            archive, member = name.split("!", 1)
            archive, _, fmt = archive.partition(":")
            archives.setdefault(archive, [fmt or "gnu", []])[1].append((member, content))
            continue
        target = root / name if name.startswith("extra/") else root / "chart" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    for archive, (fmt, members) in archives.items():
        target = root / "chart" / archive
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(build_tgz(members, fmt))
    (root / "chart").mkdir(exist_ok=True)


def run_prog(binary, argv, cwd):
    try:
        p = subprocess.run([os.path.abspath(binary)] + argv, cwd=cwd, capture_output=True,
                           timeout=TIMEOUT_S)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return -1, b"", b"timed out after %d s" % TIMEOUT_S
    except OSError as e:
        return -1, b"", f"cannot run {binary}: {e}".encode()


def reference_message(stderr):
    """The Helm message: everything after `Error: ` (it may span lines), without the final
    newline."""
    text = stderr.decode("utf-8", "replace")
    at = text.find("Error: ")
    while at > 0 and text[at - 1] != "\n":
        at = text.find("Error: ", at + 1)
    if at < 0:
        return text.strip()
    return text[at + len("Error: "):].rstrip("\n")


def written_files(root, argv):
    """The files under --output-dir (relative path -> bytes), or {} without the flag."""
    if "--output-dir" not in argv:
        return {}
    out = root / argv[argv.index("--output-dir") + 1]
    if not out.is_dir():
        return {}
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def tree_diff(ref, ejob):
    lines = []
    for name in sorted(set(ref) | set(ejob)):
        if name not in ejob:
            lines.append(f"  missing in ejob: {name}")
        elif name not in ref:
            lines.append(f"  extra in ejob: {name}")
        elif ref[name] != ejob[name]:
            diff = difflib.unified_diff(ref[name].decode("utf-8", "replace").splitlines(True),
                                        ejob[name].decode("utf-8", "replace").splitlines(True),
                                        "reference/" + name, "ejob/" + name, n=2)
            lines.append("".join(diff))
    return "\n".join(lines)


def compare(ejob, reference, files, expect_error=None):
    """Runs both programs; returns (ok, report)."""
    argv = case_argv(files)
    with tempfile.TemporaryDirectory(prefix="ejob-diff-") as tmp:
        root = Path(tmp)
        materialize(files, root)
        rrc, rout, rerr = run_prog(reference, argv, root)
        # fresh copy for ejob so that --output-dir and similar side effects do not mix
        with tempfile.TemporaryDirectory(prefix="ejob-diff-") as tmp2:
            root2 = Path(tmp2)
            materialize(files, root2)
            erc, eout, eerr = run_prog(ejob, argv, root2)
            written = [written_files(root, argv), written_files(root2, argv)]
    problems = []
    if written[0] != written[1]:
        problems.append("--output-dir trees differ:\n" + tree_diff(*written))
    if expect_error is not None and expect_error != (rrc != 0):
        problems.append("the reference " + ("succeeded" if rrc == 0 else "failed") +
                        ", the case expects the opposite (fix the case)")
    if (rrc == 0) != (erc == 0):
        problems.append(f"exit status: reference {rrc}, ejob {erc}")
    if rout != eout:
        diff = difflib.unified_diff(
            rout.decode("utf-8", "replace").splitlines(keepends=True),
            eout.decode("utf-8", "replace").splitlines(keepends=True),
            "reference", "ejob", n=2)
        problems.append("stdout differs:\n" + "".join(diff))
    if rrc != 0:
        msg = reference_message(rerr)
        if msg.encode("utf-8") not in eerr:
            problems.append(f"ejob's stderr lacks the reference message:\n  want: {msg}\n"
                            f"  got:  {eerr.decode('utf-8', 'replace').strip()}")
    if rrc != 0 and rrc != 1:
        problems.append(f"reference crashed (status {rrc}): {rerr.decode('utf-8', 'replace')}")
    if problems:
        head = "argv: " + " ".join(argv) + "\n"
        if rrc != 0:
            head += "reference stderr: " + rerr.decode("utf-8", "replace").strip() + "\n"
        return False, head + "\n".join(problems)
    return True, ""


def case_lines(comment, key):
    """The values of the free text's `KEY: value` lines."""
    return [line.split(":", 1)[1].strip() for line in comment.splitlines()
            if line.startswith(key + ":") and line.split(":", 1)[1].strip()]


def run_fresh(binary, files, argv):
    with tempfile.TemporaryDirectory(prefix="ejob-diff-") as tmp:
        materialize(files, Path(tmp))
        return run_prog(binary, argv, Path(tmp))


def compare_want_error(ejob, reference, files, argv, problems):
    """`-- want-error --`: ejob fails with Helm v3.21's message; the oracle's differs."""
    want = dict(files)["want-error"].rstrip("\n").encode("utf-8")
    _, _, rerr = run_fresh(reference, files, argv)
    erc, _, eerr = run_fresh(ejob, files, argv)
    if erc == 0 or want not in eerr:
        problems.append(f"ejob's stderr lacks the case's want-error (exit {erc}):\n"
                        f"  want: {want.decode()}\n  got:  {eerr.decode('utf-8', 'replace').strip()}")
    if want in rerr:
        problems.append("the reference now prints the want-error itself: drop the section so "
                        "that the case is differential again")
    return (False, "argv: " + " ".join(argv) + "\n" + "\n".join(problems)) if problems else (True, "")


def compare_want(ejob, reference, files, comment):
    """A case with `-- want --` or `-- want-error --`: ejob gives Helm v3.21's stated answer;
    the oracle still differs."""
    argv = case_argv(files)
    problems = [f"the case lacks a `{key}:` line" for key in ("want-source", "want-reason")
                if not case_lines(comment, key)]
    if "want-error" in dict(files):
        return compare_want_error(ejob, reference, files, argv, problems)
    want = dict(files)["want"]
    want = want if isinstance(want, bytes) else want.encode("utf-8")
    _, rout, _ = run_fresh(reference, files, argv)
    erc, eout, eerr = run_fresh(ejob, files, argv)
    if erc != 0:
        problems.append(f"ejob failed ({erc}): {eerr.decode('utf-8', 'replace').strip()}")
    if eout != want:
        diff = difflib.unified_diff(want.decode("utf-8", "replace").splitlines(keepends=True),
                                    eout.decode("utf-8", "replace").splitlines(keepends=True),
                                    "want (Helm v3.21)", "ejob", n=2)
        problems.append("stdout differs from the case's want:\n" + "".join(diff))
    if rout == want:
        problems.append("the reference now prints the want itself: drop the `-- want --` "
                        "section so that the case is differential again")
    return (False, "argv: " + " ".join(argv) + "\n" + "\n".join(problems)) if problems else (True, "")


def reference_fails(reference, files):
    """Whether the reference renderer rejects the case."""
    with tempfile.TemporaryDirectory(prefix="ejob-diff-") as tmp:
        materialize(files, Path(tmp))
        return run_prog(reference, case_argv(files), Path(tmp))[0] != 0


def run_case(ejob, reference, path):
    comment, files = parse_txtar(Path(path).read_text(encoding="utf-8"))
    expect_error = any(line.strip() == "expect: error" for line in comment.splitlines())
    if any(name in ("want", "want-error") for name, _ in files):
        return compare_want(ejob, reference, files, comment)
    return compare(ejob, reference, files, expect_error)


def case_name(cases_dir, path):
    return str(Path(path).relative_to(cases_dir).with_suffix(""))


def summary(args):
    cases_dir = Path(args.cases)
    paths = sorted(cases_dir.rglob("*.txtar"))
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futs = {pool.submit(run_case, args.ejob, args.reference, p): p for p in paths}
        for fut in concurrent.futures.as_completed(futs):
            results[futs[fut]] = fut.result()
    groups = {}
    for p in paths:
        g = case_name(cases_dir, p).split("/")[0]
        groups.setdefault(g, [0, 0, []])
        ok, report = results[p]
        groups[g][0 if ok else 1] += 1
        if not ok:
            groups[g][2].append((case_name(cases_dir, p), report))
    total_pass = sum(v[0] for v in groups.values())
    print(f"{'group':<20} {'pass':>5} {'fail':>5}")
    for g, (npass, nfail, _) in sorted(groups.items()):
        print(f"{g:<20} {npass:>5} {nfail:>5}")
    print(f"{'TOTAL':<20} {total_pass:>5} {len(paths) - total_pass:>5}  "
          f"({100.0 * total_pass / max(1, len(paths)):.1f}% pass of {len(paths)})")
    failing = [(n, r) for v in groups.values() for n, r in v[2]]
    if failing:
        print("\nfailing cases:")
        for name, report in sorted(failing):
            print(f"  {name}")
            if args.verbose:
                print("    " + report.replace("\n", "\n    "))
    return 0 if not failing else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ejob", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--case", help="run one case file")
    ap.add_argument("--cases", help="run every case under this directory")
    ap.add_argument("--summary", action="store_true", help="with --cases: print a summary")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--verbose", action="store_true", help="with --cases: print each failure")
    args = ap.parse_args()
    if args.case:
        ok, report = run_case(args.ejob, args.reference, args.case)
        if not ok:
            print(report)
        return 0 if ok else 1
    if args.cases:
        return summary(args)
    ap.error("give --case or --cases")
    return 2


if __name__ == "__main__":
    sys.exit(main())
