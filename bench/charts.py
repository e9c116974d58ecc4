#!/usr/bin/env python3
"""ejob template against the Go reference renderer, chart by chart.

    bench/charts.py CHARTS_DIR [--build build/ci] [-n 9] [--before OTHER_EJOB] [--only NAME,...]

Each subfolder of CHARTS_DIR is a chart (its dependencies under its charts/). For each chart it
first checks that ejob prints the same bytes as the reference (`template --chart DIR --name
bench --exact-name`, default values), then runs the commands interleaved N times with
ejob-process-bench (reference, ejob[, the --before ejob], run by run, so that load from
elsewhere slows them alike) and prints the medians of wall time, CPU time (user + system from
wait4) and peak RSS (ru_maxrss), and ejob's ratios to the reference. Targets (issue 34): time
<= 1/3, peak memory <= 1/2.

The binaries are measured as installed: each is first copied (a plain write, as `install`, cp
or a package manager writes it) into a temporary folder. Run straight from the build folder,
a binary the linker has just written starts slower on this VM's kernel (6.18): its page-cache
pages are the ones the linker wrote piece by piece, and executing from them cost ejob ~20%
more (vault's chart: 7.2 ms from build/ci, 5.9 ms copied, the same page faults either way;
5.6 ms once the build's file was dropped from the page cache and read back).

Keys and certificates that genCA, genSignedCert, genPrivateKey… draw at random cannot be equal
between two renders: when the outputs differ only in base64 runs of 100 or more characters
(which is what those print, PEM or base64 of PEM), the chart counts as equal and the line says
how many runs were masked. Other differences (randAlphaNum passwords, their checksums, or a
real one) are measured all the same, printed as the number of differing lines, and make the
exit status 1: read them with `diff` of the two renders.
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

_LINE = re.compile(r'^cmd (\d+): wall median (\d+) us, wall min (\d+) us, cpu median (\d+) us, '
                   r'maxrss median (\d+) KiB')
_RANDOM_BLOB = re.compile(rb'[A-Za-z0-9+/=]{100,}')


def template_cmd(binary, chart):
    return [binary, 'template', '--chart', chart, '--name', 'bench', '--exact-name']


def render(binary, chart):
    """stdout of one render, or None (with its stderr printed) when it fails."""
    p = subprocess.run(template_cmd(binary, chart), capture_output=True)
    if p.returncode != 0:
        sys.stderr.write(f'{binary} failed on {chart}:\n{p.stderr.decode(errors="replace")}')
        return None
    return p.stdout


def compare(ref_bin, ejob_bin, chart):
    """(equal, note): whether ejob prints what the reference prints, and how it was judged."""
    ref, ejob = render(ref_bin, chart), render(ejob_bin, chart)
    if ref is None or ejob is None:
        return False, 'a render failed'
    if ref == ejob:
        return True, 'equal'
    masked_ref, n = _RANDOM_BLOB.subn(b'<random>', ref)
    masked_ejob, _ = _RANDOM_BLOB.subn(b'<random>', ejob)
    if masked_ref == masked_ejob:
        return True, f'equal, {n} random base64 runs masked'
    diff = difflib.unified_diff(masked_ref.decode(errors='replace').splitlines(),
                                masked_ejob.decode(errors='replace').splitlines(), n=0)
    changed = sum(1 for line in diff if line[:1] in '+-' and line[:3] not in ('+++', '---'))
    return False, f'DIFFERS: {changed} lines'


def measure(bench_bin, binaries, chart, n):
    """[(wall_ms, cpu_ms, rss_mib)] per binary: medians of n interleaved runs."""
    argv = [bench_bin, str(n)]
    for b in binaries:
        argv += ['--'] + template_cmd(b, chart)
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        m = _LINE.match(line)
        if m:
            rows.append((int(m[2]) / 1000, int(m[4]) / 1000, int(m[5]) / 1024))
    return rows


def find_binary(build, names):
    for name in names:
        path = os.path.join(build, name)
        if os.access(path, os.X_OK):
            return path
    sys.exit(f'charts.py: none of {names} in {build} (build them: see bench/README.md)')


def print_row(name, rows, note):
    ref = rows[0]
    cells = [name, f'{ref[0]:.1f}', f'{ref[1]:.1f}', f'{ref[2]:.1f}']
    for r in rows[1:]:
        cells += [f'{r[0]:.1f}', f'{r[1]:.1f}', f'{r[2]:.1f}',
                  f'{r[0] / ref[0]:.2f}', f'{r[1] / ref[1]:.2f}', f'{r[2] / ref[2]:.2f}']
    print(' | '.join(cells) + f'   ({note})', flush=True)


def installed_copies(binaries, folder):
    """Each binary copied into folder, under a name of its own (see the top: as installed)."""
    copies = []
    for i, b in enumerate(binaries):
        copy = os.path.join(folder, f'{i}-{os.path.basename(b)}')
        shutil.copy2(b, copy)
        copies.append(copy)
    return copies


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('charts', help='a folder whose subfolders are charts')
    ap.add_argument('--build', default='build/ci', help='where ejob, ejob_reference and '
                    'ejob-process-bench are (default build/ci)')
    ap.add_argument('-n', type=int, default=9, help='interleaved runs per binary (default 9)')
    ap.add_argument('--before', help='another ejob binary, measured in the same interleaving')
    ap.add_argument('--only', help='comma-separated chart folder names')
    args = ap.parse_args()
    ref_bin = find_binary(args.build, ['ejob_reference', 'ejob-reference'])
    ejob_bin = find_binary(args.build, ['ejob'])
    bench_bin = find_binary(args.build, ['ejob-process-bench'])
    binaries = [ref_bin] + ([os.path.abspath(args.before)] if args.before else []) + [ejob_bin]
    with tempfile.TemporaryDirectory(prefix='ejob-charts-bench-') as folder:
        return measure_all(args, installed_copies(binaries, folder),
                           installed_copies([bench_bin], folder)[0])


def measure_all(args, binaries, bench_bin):
    """The table: one row per chart of args.charts, binaries[0] the reference."""
    ref_bin = binaries[0]
    names = sorted(d for d in os.listdir(args.charts)
                   if os.path.isfile(os.path.join(args.charts, d, 'Chart.yaml')))
    if args.only:
        names = [d for d in names if d in args.only.split(',')]
    print(f'load average at start: {os.getloadavg()[0]:.1f}; {args.n} interleaved runs each')
    sides = ['before', 'ejob'] if args.before else ['ejob']
    head = ['chart', 'ref wall ms', 'ref cpu ms', 'ref MiB']
    for s in sides:
        head += [f'{s} wall ms', f'{s} cpu ms', f'{s} MiB', f'{s} wall', f'{s} cpu', f'{s} mem']
    print(' | '.join(head))
    failed = False
    for name in names:
        chart = os.path.join(args.charts, name)
        checks = [compare(ref_bin, b, chart) for b in binaries[1:]]
        if any(note == 'a render failed' for _, note in checks):
            print(f'{name}: a render failed (not measured)')
            failed = True
            continue
        failed = failed or not all(equal for equal, _ in checks)
        print_row(name, measure(bench_bin, binaries, chart, args.n),
                  '; '.join(note for _, note in checks))
    print(f'load average at end: {os.getloadavg()[0]:.1f}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
