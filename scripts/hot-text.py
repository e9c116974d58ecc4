#!/usr/bin/env python3
"""Writes cli/lean/hot-text.txt: the sections of the functions `ejob template` runs, which the
lean link (cmake/EjobLean.cmake) places side by side at the start of the executable's text.

Why: the kernel maps a file's pages 64 KiB at a time around each page fault ("fault-around"),
and all of them count in the resident set. Linked in the compiler's order, the ~1.2 MiB of
functions a render runs were spread over ~90 such windows, 5.6 MiB of resident text of the
process's ~22 MiB peak (bench/README.md). Placed together they fill ~20.

    scripts/hot-text.py BUILD_DIR [OUT] [--charts DIR]
    scripts/hot-text.py --check EJOB [LIST]

--check (test lean-text/ejob) fails when under 80% of the list's functions are still in EJOB:
the code has moved on, and the list should be written again.

BUILD_DIR holds an `ejob` built with -ffunction-sections (any lean build: the flag is on for
them). Each command below runs under callgrind; every function one of them executes is listed
as its input section, `.text.SYMBOL`, in the order of its address (so related code stays
together). A function missing from a later build (renamed, inlined) is simply not found by
the linker: the list ages gracefully, and rerunning this script refreshes it.

--charts DIR adds a render of each chart in DIR (a folder of charts, as bench/charts.py takes:
the public charts users render, fetched for the work) to the commands, so that what those
charts run and the starter chart does not (schema checks, semver constraints, .Files) is
placed with the rest.
"""

import bisect
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def commands(ejob, big_chart, charts_dir=None):
    """What a user's render runs: the job chart, a starter chart, a big chart, version, help,
    and each chart of charts_dir."""
    job = os.path.join(ROOT, "examples", "digits.yaml")
    public = []
    if charts_dir:
        public = [[ejob, "template", "--chart", os.path.join(charts_dir, name), "--name", "bench",
                   "--exact-name"] for name in sorted(os.listdir(charts_dir))
                  if os.path.isdir(os.path.join(charts_dir, name))]
    return public + [
        [ejob, "template", "--chart", os.path.join(ROOT, "bench", "starter"), "--name", "bench",
         "--exact-name"],
        [ejob, "template", "--chart", big_chart, "--name", "bench", "--exact-name"],
        [ejob, "template", job],
        [ejob, "--version"],
    ]


def executed_addresses(cmd, out_file):
    """Instruction addresses of `ejob` itself that cmd executed (callgrind --dump-instr)."""
    subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=yes",
                    f"--callgrind-out-file={out_file}"] + cmd,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    names, addrs, obj, last = {}, set(), None, 0
    ejob = os.path.realpath(cmd[0])
    with open(out_file, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"(c?ob)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
            if m:
                if m.group(3):
                    names[m.group(2)] = m.group(3)
                if m.group(1) == "ob":
                    obj = names.get(m.group(2))
                continue
            tok = line.split(maxsplit=1)[0] if line.strip() else ""
            if tok.startswith("0x"):
                last = int(tok, 16)
            elif tok[:1] in ("+", "-") and tok[1:].isdigit():
                last += int(tok)
            elif tok != "*":
                continue
            if obj is not None and os.path.realpath(obj) == ejob:
                addrs.add(last)
    return addrs


def function_symbols(ejob):
    """(start, size, name) of every function symbol, sorted by address."""
    out = subprocess.run(["nm", "-S", "--defined-only", ejob], capture_output=True, text=True,
                         check=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            syms.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    return sorted(syms)


def hot_sections(addrs, syms):
    """The input section of each function holding one of addrs, in address order."""
    starts = [s[0] for s in syms]
    hot = {}
    for a in addrs:
        i = bisect.bisect_right(starts, a) - 1
        if i >= 0 and a < syms[i][0] + syms[i][1]:
            hot[syms[i][0]] = syms[i][2]
    return [section_of(name) for _, name in sorted(hot.items()) if not name.endswith(".cold")]


def section_of(function):
    """GCC's -ffunction-sections name for a function (a `.cold` part is .text.unlikely.*)."""
    if function == "main" or function.startswith("_GLOBAL__sub_I_"):
        return f".text.startup.{function}"  # static constructors run once, at start
    return f".text.{function}"


def check(ejob, listed):
    """Exit status 1 when under 80% of the listed functions are still functions of ejob."""
    names = {name for _, _, name in function_symbols(ejob)}
    with open(listed, encoding="utf-8") as f:
        wanted = [re.sub(r"^\.text\.(startup\.)?", "", line.strip()) for line in f if line.strip()]
    found = sum(1 for w in wanted if w in names)
    print(f"hot-text: {found} of the {len(wanted)} functions listed in {listed} are in {ejob}")
    if found < 0.8 * len(wanted):
        print("hot-text: the list is out of date: run scripts/hot-text.py BUILD_DIR", file=sys.stderr)
        return 1
    return 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--check":
        default = os.path.join(ROOT, "cli", "lean", "hot-text.txt")
        sys.exit(check(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else default))
    args = sys.argv[1:]
    charts_dir = None
    if "--charts" in args:
        at = args.index("--charts")
        if at + 1 >= len(args):
            sys.exit(__doc__)
        charts_dir = args[at + 1]
        del args[at:at + 2]
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    build = args[0]
    out = args[1] if len(args) == 2 else os.path.join(ROOT, "cli", "lean", "hot-text.txt")
    ejob = os.path.join(build, "ejob")
    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "big")
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_big_chart.py"), big],
                       stdout=subprocess.DEVNULL, check=True)
        addrs = set()
        for i, cmd in enumerate(commands(ejob, big, charts_dir)):
            addrs |= executed_addresses(cmd, os.path.join(tmp, f"callgrind.{i}"))
    sections = hot_sections(addrs, function_symbols(ejob))
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(sections) + "\n")
    print(f"hot-text: {len(sections)} sections -> {out}")


if __name__ == "__main__":
    main()
