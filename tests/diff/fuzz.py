#!/usr/bin/env python3
"""Differential fuzzer: seeded random templates and values rendered by `ejob template` and by
the Go reference renderer; every divergence is reported and saved as a regression case.

Each generated case is a chart whose values.yaml is a random tree (edge numbers, YAML 1.1
words, special strings, nested maps and lists) and whose template defines a random body
(text, trim markers, comments, variables, if/else if/else, range with break/continue, with,
include, tpl, pipelines of functions called with random argument types) printed through
`include "body" . | quote`, so that any output stays one valid YAML string. Some cases also
carry random --set / --set-string arguments, and some a values.schema.json with one keyword.

Usage:
    fuzz.py --ejob BIN --reference BIN --seed 1 --count 200       fixed batch (CTest)
    fuzz.py --ejob BIN --reference BIN --seed 7 --minutes 10       run for a while
    options: --save DIR (default tests/diff/cases/fuzz), --no-save, -j N
Exit status 1 when any case diverged.
"""
import argparse
import json
import concurrent.futures
import os
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_diff  # noqa: E402

CHART = """apiVersion: v2
name: fuzz
version: 0.1.0
appVersion: "1.0"
"""
KEYS = ["a", "b", "c", "name", "port", "list", "x1", "x10", "x9", "Key", "_u", "dash-key",
        "y", "on", "img", "tag", "enabled"]
INTS = ["0", "1", "-3", "42", "1000000", "123456", "1234567", "9007199254740993", "0777", "0x1F"]
FLOATS = ["1.5", "0.1", "1e-05", "1e21", "3.0", "-0.0", "2.5e-5", "0.0001", "1e6", "123456.5"]
PLAIN_WORDS = ["yes", "no", "on", "off", "~", "null", "true", "False", "1_000", "12:30",
               "2020-01-02", "hello", "web-app", "v1.2.3"]
STRINGS = ["", "hello", "yes", "on", "1.0", "a: b", " lead", "trail ", "multi\nline",
           "multi\nline\n", "tab\there", "ünï", "<&>", "%d", "{{ .Values.a }}", "0x10", "007",
           "true", "#hash", "- dash", "it's", "quote\"d", "back\\slash", "x" * 90,
           "word " * 20, "\u0001ctl", "1e3", "-", "null", "a,b,c", "A.B.C"]
# function name -> argument kinds (the last one receives the piped value):
# a any, s string, i int, n number, l list, m map. Left out: keys/values (Go map order is
# random), set (can build a cyclic map, which crashes Go when printed).
FUNCS = {
    "toString": "a", "quote": "a", "squote": "a", "toJson": "a", "toYaml": "a", "toRawJson": "a",
    "typeOf": "a", "kindOf": "a", "empty": "a", "not": "a", "len": "l", "upper": "s",
    "lower": "s", "title": "s", "trim": "s", "b64enc": "s", "sha256sum": "s", "int": "a",
    "int64": "a", "float64": "a", "first": "l", "last": "l", "sortAlpha": "l", "uniq": "l",
    "compact": "l", "reverse": "l", "fromYaml": "s", "fromJson": "s", "toPrettyJson": "a",
    "print": "a", "println": "aa", "html": "s", "js": "s", "urlquery": "a",
    "toStrings": "l", "add1": "n", "floor": "n", "ceil": "n", "trimAll": "ss", "snakecase": "s",
    "nospace": "s", "b64dec": "s", "fromYamlArray": "s", "fromJsonArray": "s", "deepCopy": "a",
    "toDecimal": "a", "default": "aa", "eq": "aa", "ne": "aa", "lt": "nn",
    "gt": "nn", "le": "ss", "ge": "nn", "and": "aa", "or": "aaa", "add": "nn", "sub": "nn",
    "mul": "nn", "div": "nn", "mod": "nn", "max": "nnn", "min": "nn", "addf": "nn", "mulf": "nn",
    "subf": "nn", "hasKey": "ms", "has": "al", "contains": "ss", "hasPrefix": "ss",
    "hasSuffix": "ss", "trimSuffix": "ss", "trimPrefix": "ss", "trunc": "is", "indent": "is",
    "nindent": "is", "repeat": "is", "split": "ss", "splitList": "ss", "join": "sl",
    "append": "la", "prepend": "la", "without": "la", "pick": "ms", "omit": "ms", "get": "ms",
    "dict": "sasa", "list": "aa", "tuple": "a", "coalesce": "aa", "cat": "aa", "until": "i",
    "regexMatch": "ss", "abbrev": "is", "wrap": "is", "concat": "ll", "slice": "li",
    "semverCompare": "ss", "printf": "fa", "round": "ni", "replace": "sss", "ternary": "aaa",
    "substr": "iis", "regexReplaceAll": "sss", "plural": "ssi", "dig": "ssam",
    "untilStep": "iii", "splitn": "sis", "regexFindAll": "ssi", "wrapWith": "iss",
    "index": "mx", "required": "sa", "include": "ha", "tpl": "ta",
}
FORMATS = ['"%v"', '"%d"', '"%s"', '"%q"', '"%x"', '"%5.2f"', '"%T"', '"%v-%v"', '"%-4s|"',
           '"%+v"', '"%e"', '"%g"', '"%03d"']
SEMVERS = ['">=1.2.0"', '"^1.0"', '"1.2.3"', '"~2.1"', '"v1.25.3-gke.100"', '">=1.21-0"']
PATTERNS = ['"^[a-z]+$"', '"[0-9]+"', '"a(x*)b"', '"\\\\d"', '"(l+)"', '"e"']
def quote_go(s):
    """A Go string literal."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") \
        .replace("\t", "\\t").replace("\u0001", "\\x01") + '"'


class Gen:
    """Generates one case from a seeded random source."""

    def __init__(self, rng):
        self.r = rng
        self.vars = [[]]
        self.paths = []
        self.depth = 0

    # ---- values ----------------------------------------------------------------------------
    def scalar_yaml(self):
        """A scalar in YAML syntax and the kind it decodes to."""
        r = self.r
        k = r.random()
        if k < 0.25:
            return r.choice(INTS), "n"
        if k < 0.45:
            return r.choice(FLOATS), "n"
        if k < 0.6:
            w = r.choice(PLAIN_WORDS)
            kind = {"yes": "b", "no": "b", "on": "b", "off": "b", "true": "b", "False": "b",
                    "~": "z", "null": "z", "1_000": "n"}.get(w, "s")
            return w, kind
        return quote_go(r.choice(STRINGS)), "s"

    def value_yaml(self, indent, path, depth):
        r = self.r
        k = r.random()
        pad = "  " * indent
        if depth < 3 and k < 0.25:
            keys = r.sample(KEYS, r.randint(0, 4))
            self.paths.append((path, "m"))
            if not keys:
                return " {}"
            return "".join(f"\n{pad}{key}:" + self.value_yaml(indent + 1, path + [key], depth + 1)
                           for key in keys)
        if depth < 3 and k < 0.4:
            self.paths.append((path, "l"))
            n = r.randint(0, 4)
            if n == 0:
                return " []"
            return "".join(f"\n{pad}-" + self.value_yaml(indent + 1, path + ["#"], depth + 1)
                           for _ in range(n))
        text, kind = self.scalar_yaml()
        self.paths.append((path, kind))
        return " " + text

    def values(self):
        out = []
        for key in self.r.sample(KEYS, self.r.randint(3, 8)):
            out.append(f"{key}:" + self.value_yaml(1, [key], 0))
        return "\n".join(out) + "\n"

    # ---- expressions -----------------------------------------------------------------------
    def value_ref(self, kind="a"):
        """`$.Values.path` of a value of the kind (any kind when none fits)."""
        r = self.r
        named = [(p, k) for p, k in self.paths if "#" not in p and all(
            c.replace("_", "a").isalnum() for c in p)]
        fit = [p for p, k in named if kind in ("a", k)]
        if fit and r.random() < 0.95:
            return "$.Values." + ".".join(r.choice(fit))
        if named and r.random() < 0.8:
            return "$.Values." + ".".join(r.choice(named)[0])
        return "$.Values." + r.choice(["missing", "a", "list"])

    def literal(self, kind="a"):
        r = self.r
        if kind == "a":
            kind = r.choice("snisbz")
        if kind == "i":
            return r.choice(["0", "1", "2", "3", "-1", "10", "1_000", "0x10", "'a'", "2.0"])
        if kind == "n":
            return r.choice(["1", "2", "7", "-1", "1.5", "2.0", "1e6", "0.00001", "-0.0", "0"])
        if kind == "b":
            return r.choice(["true", "false"])
        if kind == "z":
            return "nil"
        return quote_go(r.choice(STRINGS + ["a", "b", "-", ",", "%s", ".", "x", "l"]))

    def term(self, kind="a"):
        r = self.r
        if r.random() < 0.03:
            kind = "a"  # occasionally a wrong type on purpose
        if kind == "i":
            if r.random() < 0.2 and self.depth < 3:
                self.depth += 1
                inner = self.term(r.choice("nl"))
                self.depth -= 1
                return f"(int {inner})" if inner[0] != "(" or r.random() < 0.5 else f"(len {inner})"
            return self.literal("i")
        visible = [v for scope in self.vars for v in scope]
        k = r.random()
        if kind == "l" and k < 0.5 and self.depth < 3:
            self.depth += 1
            items = " ".join(self.term() for _ in range(r.randint(0, 3)))
            self.depth -= 1
            return f"(list {items})" if r.random() < 0.8 else '(splitList "," "b,a,,c")'
        if kind == "m" and k < 0.5 and self.depth < 3:
            self.depth += 1
            kv = " ".join(f'"{r.choice(KEYS)}" {self.term()}' for _ in range(r.randint(0, 3)))
            self.depth -= 1
            return f"(dict {kv})"
        if k < 0.4:
            return self.value_ref(kind)
        if k < 0.47 and visible and kind == "a":
            return r.choice(visible)
        if k < 0.5 and kind == "a":
            return r.choice(["$.Release", "$.Release.Name", "$.Chart.Name", "$.Values.AsMap"])
        if k < (0.65 if kind == "a" else 0.5) and self.depth < 3:
            return "(" + self.pipeline() + ")"
        if kind in "lm":
            return self.value_ref(kind)
        return self.literal(kind)

    def args_for(self, kinds):
        r = self.r
        out = []
        for c in kinds:
            if c == "f":
                out.append(r.choice(FORMATS))
            elif c == "h":
                out.append('"helper"')
            elif c == "t":
                out.append(r.choice(['"{{ .Values.a }}-{{ .Release.Name }}"', '"[{{ . }}]"',
                                     '"{{ include \\"helper\\" . }}"']))
            elif c == "x":
                out.append(quote_go(r.choice(KEYS)))
            else:
                out.append(self.term(c))
        return out

    def call(self):
        """A function name and its arguments (the last one may be replaced by a pipe)."""
        r = self.r
        self.depth += 1
        name = r.choice(list(FUNCS))
        kinds = FUNCS[name]
        if name == "semverCompare" and r.random() < 0.7:
            args = [r.choice(SEMVERS), r.choice(SEMVERS)]
        elif name.startswith("regex") and r.random() < 0.8:
            args = [r.choice(PATTERNS)] + self.args_for(kinds[1:])
        else:
            args = self.args_for(kinds)
        self.depth -= 1
        return name, args

    def pipeline(self):
        r = self.r
        name, args = self.call()
        if r.random() < 0.35:
            stages = [" ".join([name] + args)]
            for _ in range(r.randint(1, 2)):
                g, gargs = self.call()
                stages.append(" ".join([g] + gargs[:-1]))
            return " | ".join(stages)
        return " ".join([name] + args)

    # ---- statements ------------------------------------------------------------------------
    def lm(self):
        return "{{- " if self.r.random() < 0.3 else "{{ "

    def rm(self):
        return " -}}" if self.r.random() < 0.3 else " }}"

    def text(self):
        return self.r.choice(["\n", " ", "x", "\n  ", "text ", "\t", "<no value>", ": ", "\n\n", "-"])

    def stmts(self, n, in_range=False):
        return "".join(self.stmt(in_range) for _ in range(n))

    def stmt(self, in_range):
        r = self.r
        k = r.random()
        if self.depth > 2 or k < 0.3:
            return self.text()
        if k < 0.55:
            return self.lm() + self.pipeline() + self.rm()
        if k < 0.62:
            name = f"$v{len([v for s in self.vars for v in s])}"
            self.vars[-1].append(name)
            return self.lm() + f"{name} := {self.pipeline()}" + self.rm()
        if k < 0.65 and any(self.vars):
            name = r.choice([v for s in self.vars for v in s])
            return self.lm() + f"{name} = {self.pipeline()}" + self.rm()
        self.depth += 1
        try:
            if k < 0.75:
                out = self.lm() + "if " + self.pipeline() + self.rm() + self.block(in_range)
                if r.random() < 0.3:
                    out += self.lm() + "else if " + self.pipeline() + self.rm() + self.block(in_range)
                if r.random() < 0.5:
                    out += self.lm() + "else" + self.rm() + self.block(in_range)
                return out + self.lm() + "end" + self.rm()
            if k < 0.85:
                i, v = f"$i{self.depth}", f"$e{self.depth}"
                self.vars.append([i, v])
                body = self.stmts(r.randint(1, 3), True)
                self.vars.pop()
                src = self.value_ref(r.choice("lmm")) if r.random() < 0.8 else self.term("l")
                out = self.lm() + f"range {i}, {v} := {src}" + self.rm() + body
                if r.random() < 0.3:
                    out += self.lm() + "else" + self.rm() + self.block(in_range)
                return out + self.lm() + "end" + self.rm()
            if k < 0.92:
                out = self.lm() + "with " + self.pipeline() + self.rm() + self.block(in_range)
                if r.random() < 0.3:
                    out += self.lm() + "else" + self.rm() + self.block(in_range)
                return out + self.lm() + "end" + self.rm()
            if k < 0.95 and in_range:
                return "{{ " + r.choice(["break", "continue"]) + " }}"
            if k < 0.97:
                return "{{/* comment */}}" if r.random() < 0.5 else "{{- /* c */ -}}"
            if k < 0.99:
                return self.lm() + "include \"helper\" " + self.term() + self.rm()
            return self.lm() + "tpl \"{{ .Values.a }}-{{ .Release.Name }}\" $" + self.rm()
        finally:
            self.depth -= 1

    def block(self, in_range):
        self.vars.append([])
        out = self.stmts(self.r.randint(1, 3), in_range)
        self.vars.pop()
        return out

    def set_arg(self):
        r = self.r
        parts = []
        for _ in range(r.randint(1, 3)):
            key = r.choice(KEYS)
            for _ in range(r.randint(0, 2)):
                key += r.choice([".", "[0].", "[1]."]) + r.choice(KEYS)
            if r.random() < 0.1:
                key += "[2]"
            val = r.choice(["1", "true", "null", "x", "007", "1.5", "{a,b}", "a\\,b", "",
                            "-3", "1e3", "yes", "0"])
            parts.append(f"{key}={val}")
        return ",".join(parts)

    def schema(self):
        """A values.schema.json constraining one top-level key, so that at most one path fails
        (gojsonschema walks sibling properties in Go's random map order)."""
        r = self.r
        kw = r.choice(["type", "enum", "minimum", "maximum", "exclusiveMinimum", "multipleOf",
                       "minLength", "maxLength", "pattern", "minItems", "maxItems", "required",
                       "const", "anyOf", "not", "uniqueItems"])
        arg = {
            "type": lambda: r.choice(["string", "integer", "number", "boolean", "array", "object",
                                      "null", ["string", "null"], ["integer", "object"]]),
            "enum": lambda: r.sample([1, 1.5, "x", "yes", None, True, [1], {"a": 1}, 0], 3),
            "minimum": lambda: r.choice([0, 1, 1.5, 1000000, -3]),
            "maximum": lambda: r.choice([0, 1, 1.5, 1000000, -3]),
            "exclusiveMinimum": lambda: r.choice([0, 1, 42]),
            "multipleOf": lambda: r.choice([2, 0.5, 0.1, 3]),
            "minLength": lambda: r.choice([0, 2, 5]),
            "maxLength": lambda: r.choice([0, 2, 5]),
            "pattern": lambda: r.choice(["^[a-z]+$", "[0-9]", "^x", "e$"]),
            "minItems": lambda: r.choice([1, 2]),
            "maxItems": lambda: r.choice([0, 1]),
            "required": lambda: r.sample(KEYS, 2),
            "const": lambda: r.choice([1, "x", None, [1, 2]]),
            "anyOf": lambda: [{"type": "string"}, {"type": "integer", "minimum": 3}],
            "not": lambda: {"type": r.choice(["string", "object", "number"])},
            "uniqueItems": lambda: True,
        }[kw]()
        sub = {kw: arg}
        if kw == "required" and r.random() < 0.5:
            return json.dumps(sub)
        return json.dumps({"properties": {r.choice(KEYS): sub}})

    def case(self):
        values = self.values()
        body = self.stmts(self.r.randint(2, 5))
        tpl = ('{{- define "helper" }}[{{ . }}]{{ end }}\n{{- define "body" }}' + body +
               '{{- end }}\nout: {{ include "body" . | quote }}\n')
        args = []
        if self.r.random() < 0.3:
            for _ in range(self.r.randint(1, 2)):
                args += [self.r.choice(["--set", "--set", "--set-string"]), self.set_arg()]
        files = [("args", "".join(a + "\n" for a in args)), ("Chart.yaml", CHART),
                 ("values.yaml", values), ("templates/fuzz.yaml", tpl)]
        if self.r.random() < 0.15:
            files.append(("values.schema.json", self.schema()))
        return files


def make_case(seed, index):
    return Gen(random.Random(f"{seed}/{index}")).case()


def to_txtar(files, comment):
    out = [comment]
    for name, content in files:
        if name == "args" and not content:
            continue
        if content.endswith("\n") or content == "":
            out.append(f"-- {name} --\n{content}")
        else:
            out.append(f"-- {name} nonl --\n{content}\n")
    return "".join(out)


# Error texts of Masterminds/semver 3.2.0 (the oracle's, Debian's) and of v3.4.0 (Helm v3.21's).
SEMVER_340_TEXTS = {
    "Invalid Semantic Version": "invalid semantic version",
    "Version segment starts with 0": "version segment starts with 0",
    "Invalid Prerelease string": "invalid prerelease string",
    "Invalid Metadata string": "invalid metadata string",
    "constraint Parser Error": "constraint parser error",
    "Error parsing version segment": "error parsing version segment",
}


def version_skew(report):
    """Whether the only difference is a library version's wording: the oracle links semver
    3.2.0, whose error texts Helm v3.21's semver v3.4.0 (and ejob) write in lower case."""
    lines = report.splitlines()
    others = ("stdout differs:", "exit status:", "--output-dir trees differ", "the reference ",
              "reference crashed")
    if "ejob's stderr lacks the reference message:" not in lines or any(
            l.startswith(others) for l in lines):
        return False
    want = next(l for l in lines if l.startswith("  want: "))[len("  want: "):]
    got = next(l for l in lines if l.startswith("  got:  "))
    for old, new in SEMVER_340_TEXTS.items():
        want = want.replace(old, new)
    return want in got


def run_one(args, index):
    files = make_case(args.seed, index)
    ok, report = run_diff.compare(args.ejob, args.reference, files)
    skew = not ok and version_skew(report)
    return index, files, ok or skew, report, skew


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ejob", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--minutes", type=float, help="run batches until this much time passed")
    ap.add_argument("--save", default=str(Path(__file__).resolve().parent / "cases" / "fuzz"))
    ap.add_argument("--no-save", action="store_true")
    ap.add_argument("--print", type=int, metavar="INDEX", help="print one generated case")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()
    if args.print is not None:
        print(to_txtar(make_case(args.seed, args.print), f"fuzz seed {args.seed} case {args.print}\n"))
        return 0
    deadline = time.monotonic() + args.minutes * 60 if args.minutes else None
    tried, diverged, skewed = 0, 0, 0
    index = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        while True:
            batch = range(index, index + (args.count if deadline is None else 50))
            index = batch.stop
            for i, files, ok, report, skew in pool.map(lambda i: run_one(args, i), batch):
                tried += 1
                skewed += skew
                if not ok:
                    diverged += 1
                    print(f"--- divergence: seed {args.seed} case {i}\n{report}\n", flush=True)
                    if not args.no_save:
                        save = Path(args.save)
                        save.mkdir(parents=True, exist_ok=True)
                        head = f"fuzz regression: seed {args.seed} case {i}\n"
                        if run_diff.reference_fails(args.reference, files):
                            head += "expect: error\n"
                        (save / f"s{args.seed}-{i}.txtar").write_text(to_txtar(files, head),
                                                                      encoding="utf-8")
            if deadline is None or time.monotonic() >= deadline:
                break
    print(f"fuzz: seed {args.seed}: {tried} cases tried, {diverged} diverged"
          f" ({skewed} more differed only by semver 3.2.0's wording, see version_skew)")
    return 1 if diverged else 0


if __name__ == "__main__":
    sys.exit(main())
