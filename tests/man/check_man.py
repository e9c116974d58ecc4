"""The man pages against `--help`, which come from the same definitions: `ejob docs --type man`
writes a page for every command `ejob --help` lists and ejob.1 lists each; every page renders
with groff without a warning; and each option and positional argument that `ejob COMMAND
--help` shows is in the rendered page as an entry, as --help writes it: names, value type,
REQUIRED or default, and description.

Usage: check_man.py EJOB
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True)


def rendered(page):
    """The page as plain text (no hyphenation, no overstrike), words separated by one space;
    groff's warnings fail the check."""
    result = run("groff", "-man", "-Tascii", "-ww", "-P-cbou", page)
    if result.stderr:
        raise SystemExit("%s: groff warns:\n%s" % (page, result.stderr))
    return " ".join(result.stdout.split())


def help_entries(ejob, command):
    """(names, description) of each option and positional line of `ejob COMMAND --help`."""
    entries = []
    section = None
    for line in run(ejob, command, "--help").stdout.splitlines():
        if re.match(r"^\S.*:$", line):
            section = line
            continue
        m = re.match(r"^  (\S.*?)\s{2,}(\S.*)$", line)
        if m and section in ("Options:", "Positionals:"):
            entries.append((m.group(1), m.group(2).strip()))
    return entries


def commands(ejob):
    out = run(ejob, "--help").stdout
    listed = out.split("Subcommands:", 1)[1]
    return [m.group(1) for m in re.finditer(r"^  (\S+)\s{2,}", listed, re.M)]


def main(ejob):
    folder = tempfile.mkdtemp(prefix="ejob-man-")
    wrong = []
    try:
        run(ejob, "docs", "--type", "man", "--dir", folder)
        index = rendered(os.path.join(folder, "ejob.1"))
        names = commands(ejob)
        if not names:
            wrong.append("ejob --help lists no commands")
        for command in names:
            page = os.path.join(folder, "ejob-%s.1" % command)
            if not os.path.exists(page):
                wrong.append("%s: no page" % command)
                continue
            if command not in index:
                wrong.append("ejob.1 does not list %s" % command)
            text = rendered(page)
            for names_shown, description in help_entries(ejob, command):
                entry = " ".join((names_shown + " " + description).split())
                if entry not in text:
                    wrong.append("ejob-%s.1 lacks %r" % (command, entry))
        stray = set(os.listdir(folder)) - {"ejob.1"} - {"ejob-%s.1" % c for c in names}
        wrong += ["%s: a page of no listed command" % s for s in sorted(stray)]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    for line in wrong:
        print("man: " + line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
