"""Static checks of packaging/worker.Dockerfile (no Docker engine is available to build it).

Checks that the final stage's ENTRYPOINT is exactly a path a COPY --from=<build stage> of that
stage produces, that the copied file is what the build stage builds (`--target ejob-agent`
into the same build directory), that the final stage runs as a non-root user on a pinned CUDA
runtime base, that PyTorch is pinned, that PYTHON_EXEC points into what the stage installs,
and that /dev/shm is documented. Then it proves the checks can fail: each mutation of the file
must be refused with the expected message.

Also checks that the file says which base images it supports, and with --init checks the
Dockerfile that `ejob init` writes (templates/init/Dockerfile) the same way where it applies.

Usage: check_dockerfile.py PATH/TO/worker.Dockerfile
       check_dockerfile.py --init templates/init/Dockerfile
"""
import json
import os
import re
import shlex
import sys


def logical_lines(text):
    lines, cur = [], ""
    for raw in text.splitlines():
        if not cur and raw.lstrip().startswith("#"):
            continue
        if raw.rstrip().endswith("\\"):
            cur += raw.rstrip()[:-1] + " "
            continue
        cur += raw
        if cur.strip():
            lines.append(cur.strip())
        cur = ""
    return lines


def parse(text):
    """Returns (global ARGs, stages); a stage is {name, base, instructions: [(op, rest)]}."""
    args, stages = {}, []
    for line in logical_lines(text):
        op, _, rest = line.partition(" ")
        op = op.upper()
        if op == "FROM":
            m = re.match(r"(\S+)(?:\s+AS\s+(\S+))?$", rest.strip(), re.I)
            base = re.sub(r"\$\{(\w+)\}", lambda g: args.get(g.group(1), g.group(0)), m.group(1))
            stages.append({"name": m.group(2), "base": base, "ins": []})
        elif op == "ARG" and not stages:
            k, _, v = rest.partition("=")
            args[k.strip()] = v.strip()
        elif stages:
            stages[-1]["ins"].append((op, rest.strip()))
    return args, stages


def check(text):
    """Returns the list of problems (empty when the file is fine)."""
    problems = []
    _, stages = parse(text)
    if len(stages) < 2:
        return ["need a build stage and a final stage"]
    build, final = stages[0], stages[-1]
    build_runs = " ".join(rest for op, rest in build["ins"] if op == "RUN")
    m = re.search(r"cmake --build (\S+) --target ejob-agent", build_runs)
    if not m:
        problems.append("the first stage does not build the ejob-agent target")
    built = (m.group(1) + "/ejob-agent") if m else None
    entry = [rest for op, rest in final["ins"] if op == "ENTRYPOINT"]
    if len(entry) != 1:
        return problems + ["the final stage needs exactly one ENTRYPOINT"]
    try:
        entry_argv = json.loads(entry[0])
    except ValueError:
        return problems + ["ENTRYPOINT must use the exec (JSON array) form"]
    copies = {}
    for op, rest in final["ins"]:
        if op != "COPY":
            continue
        parts = shlex.split(rest)
        src_stage = next((p.split("=", 1)[1] for p in parts if p.startswith("--from=")), None)
        paths = [p for p in parts if not p.startswith("--")]
        copies[paths[-1]] = (src_stage, paths[:-1])
    if entry_argv[0] not in copies:
        problems.append("ENTRYPOINT %s is not produced by a COPY in the final stage" % entry_argv[0])
    else:
        src_stage, srcs = copies[entry_argv[0]]
        if src_stage != build["name"]:
            problems.append("ENTRYPOINT %s is copied from stage %s, not from the build stage %s"
                            % (entry_argv[0], src_stage, build["name"]))
        elif built is not None and built not in srcs:
            problems.append("ENTRYPOINT %s is copied from %s, but the build stage builds %s"
                            % (entry_argv[0], " ".join(srcs), built))
    # The agent must be run once in the final image, after it is copied in: a build on a newer
    # glibc than the base image's fails there, not in the first pod.
    copied_at = [i for i, (op, rest) in enumerate(final["ins"])
                 if op == "COPY" and rest.split()[-1].endswith("/ejob-agent")]
    runs_after = [rest for i, (op, rest) in enumerate(final["ins"])
                  if op == "RUN" and copied_at and i > copied_at[0]]
    if not any(re.search(r'ejob-agent"?,?\s*"?--version', r) for r in runs_after):
        problems.append("the final stage must run ejob-agent --version after copying it")
    users = [rest for op, rest in final["ins"] if op == "USER"]
    if not users or users[-1].split(":")[0] in ("0", "root"):
        problems.append("the final stage must run as a non-root USER")
    base = final["base"]
    if not re.match(r"nvidia/cuda:\d+\.\d+\.\d+-[\w-]*runtime-ubuntu\d+\.\d+$", base):
        problems.append("the final stage must start from a pinned nvidia/cuda runtime image, not %s" % base)
    if re.search(r":latest\b", text):
        problems.append("no image may be pulled as :latest")
    if not re.search(r"pip install[^\n]*\btorch==\d", " ".join(r for o, r in final["ins"] if o == "RUN")):
        problems.append("PyTorch must be installed with a pinned version (torch==X.Y.Z)")
    env = " ".join(rest for op, rest in final["ins"] if op == "ENV")
    m = re.search(r"PYTHON_EXEC=(\S+)", env)
    venv = re.search(r"python3 -m venv (\S+)", " ".join(r for o, r in final["ins"] if o == "RUN"))
    if not m or not venv or not m.group(1).startswith(venv.group(1) + "/"):
        problems.append("PYTHON_EXEC must point at the interpreter the final stage installs")
    if "/dev/shm" not in text:
        problems.append("the /dev/shm expectations must be documented")
    return problems + check_supported_bases(text)


def check_supported_bases(text):
    if not re.search(r"^# Supported base images: \S", text, re.M):
        return ["the Dockerfile must say which base images it supports ('# Supported base images: ...')"]
    return []


def check_init(text):
    """The Dockerfile `ejob init` writes: one stage that copies the agent, runs it once, and
    makes it the entrypoint."""
    _, stages = parse(text)
    ins = stages[-1]["ins"] if stages else []
    problems = check_supported_bases(text)
    copied = [i for i, (op, rest) in enumerate(ins) if op == "COPY" and rest.split()[-1].endswith("/ejob-agent")]
    if not copied:
        return problems + ["the image must COPY ejob-agent in"]
    if not any(op == "RUN" and re.search(r'ejob-agent"?,?\s*"?--version', rest)
               for op, rest in ins[copied[0] + 1:]):
        problems.append("the image must run ejob-agent --version after copying it")
    entry = [rest for op, rest in ins if op == "ENTRYPOINT"]
    if entry != ['["%s"]' % ins[copied[0]][1].split()[-1]]:
        problems.append("the ENTRYPOINT must be the copied ejob-agent")
    return problems


MUTATIONS = [
    ("RUN /usr/local/bin/ejob-agent --version\n", "",
     "the final stage must run ejob-agent --version after copying it"),
    ('ENTRYPOINT ["/usr/local/bin/ejob-agent"]', 'ENTRYPOINT ["/usr/bin/ejob-agent"]',
     "ENTRYPOINT /usr/bin/ejob-agent is not produced by a COPY in the final stage"),
    ("/opt/ejob-build/ejob-agent /usr/local/bin", "/src/out/ejob-agent /usr/local/bin",
     "ENTRYPOINT /usr/local/bin/ejob-agent is copied from /src/out/ejob-agent, but the build "
     "stage builds /opt/ejob-build/ejob-agent"),
    ("COPY --from=agent-build", "COPY --from=worker",
     "ENTRYPOINT /usr/local/bin/ejob-agent is copied from stage worker, not from the build stage agent-build"),
    ("USER 1000:1000", "USER root", "the final stage must run as a non-root USER"),
    ("torch==2.5.1", "torch", "PyTorch must be installed with a pinned version (torch==X.Y.Z)"),
    ('ENTRYPOINT ["/usr/local/bin/ejob-agent"]', "ENTRYPOINT /usr/local/bin/ejob-agent",
     "ENTRYPOINT must use the exec (JSON array) form"),
    ("--target ejob-agent", "--target ejob", "the first stage does not build the ejob-agent target"),
    ("# Supported base images:", "# Bases:",
     "the Dockerfile must say which base images it supports ('# Supported base images: ...')"),
]

INIT_MUTATIONS = [
    ('RUN ["/usr/local/bin/ejob-agent", "--version"]\n', "",
     "the image must run ejob-agent --version after copying it"),
    ("# Supported base images:", "# Bases:",
     "the Dockerfile must say which base images it supports ('# Supported base images: ...')"),
    ('ENTRYPOINT ["/usr/local/bin/ejob-agent"]', 'ENTRYPOINT ["python"]',
     "the ENTRYPOINT must be the copied ejob-agent"),
]


def main():
    init = sys.argv[1] == "--init"
    path = sys.argv[-1]
    checker, mutations = (check_init, INIT_MUTATIONS) if init else (check, MUTATIONS)
    with open(path) as f:
        text = f.read()
    problems = checker(text)
    name = os.path.basename(path)
    for p in problems:
        print("%s: %s" % (name, p))
    ok = not problems
    for old, new, expected in mutations:
        if old not in text:
            print("self-test: %r not found in the Dockerfile" % old)
            ok = False
            continue
        got = checker(text.replace(old, new, 1))
        if got != [expected]:
            print("self-test: replacing %r gave %r, expected [%r]" % (old, got, expected))
            ok = False
    print("%s: %s" % (name, "ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
