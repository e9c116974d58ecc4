#!/usr/bin/env python3
"""Logs that lose nothing: worker log streams cut in the middle by the test server (a kubelet or
an API server restarting, a proxy timing out: half a line, then no final chunk), and `ejob logs`
(with and without -f) printing every line once, in order, by asking again from the last line
with sinceTime (inclusive, in whole seconds, as the API server hands it to the kubelet).
kubectl reads the same server, to check that it behaves as a cluster does.

    logs_test.py --ejob PATH [--kubectl PATH] [unittest args]
"""

import argparse
import os
import subprocess
import sys
import unittest

import cli_test
from cli_test import JobBase

# Lines that share seconds and even nanoseconds: the overlap of a resumed stream cannot be
# found by the time alone.
BASE = "2026-01-01T00:00:%02d%sZ"


def stamp(i):
    """The time of line i: four lines a second, two of them at the same nanosecond."""
    second, k = divmod(i, 4)
    return BASE % (second, "" if k == 0 else ".5" if k in (1, 2) else ".500000001")


class LogsResumeTest(JobBase):
    def say_numbered(self, pod, start, end, prefix):
        self.server.ctl("logs", {"namespace": self.NS, "pod": pod, "container": self.CONTAINER,
                                 "lines": [{"time": stamp(i), "text": f"{prefix} {i}"} for i in range(start, end)]})

    def cut(self, pod, *after):
        self.server.ctl("log-cut", {"namespace": self.NS, "pod": pod, "container": self.CONTAINER,
                                    "after": list(after)})

    def two_workers(self):
        self.submit(workers="2:2")
        self.scale("bert", 2)

    def follow(self, *args):
        return subprocess.Popen([cli_test.EJOB, "logs", "bert", "-f", *args], env=self.env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def read_lines(self, p, count):
        got = []
        while len(got) < count:
            line = p.stdout.readline()
            if not line:
                self.fail(f"the stream ended after {got}")
            got.append(line.rstrip("\n"))
        return got

    def finish(self, p):
        """The rest of -f's output once it ended (communicate() would skip what readline()
        buffered), and its exit status."""
        out = p.stdout.read()
        err = p.stderr.read()
        p.wait(timeout=60)
        p.stdout.close()
        p.stderr.close()
        return out, err

    def end_job(self):
        self.pod_phase("bert-worker-0", "Succeeded")
        self.pod_phase("bert-worker-1", "Succeeded")

    def test_follow_resumes_a_stream_cut_after_10_of_40_lines(self):
        """The issue's case: one of two workers' streams cut after 10 of its 40 lines. Every
        line comes once and in order, and -f ends 0 with the job."""
        self.two_workers()
        self.say_numbered("bert-worker-0", 0, 40, "zero")
        self.say_numbered("bert-worker-1", 0, 40, "one")
        self.cut("bert-worker-1", 10)
        p = self.follow()
        try:
            got = self.read_lines(p, 80)
            self.end_job()
            out, err = self.finish(p)
        finally:
            p.kill()
        self.assertEqual((p.returncode, out), (0, ""), err)
        self.assertEqual([ln for ln in got if ln.startswith("[worker-1]")], [f"[worker-1] one {i}" for i in range(40)])
        self.assertEqual([ln for ln in got if ln.startswith("[worker-0]")], [f"[worker-0] zero {i}" for i in range(40)])
        self.assertRegex(err, r"^ejob: worker-1: its log stream was cut \(.*\); reading on from "
                              r"2026-01-01T00:00:02\.5Z\nejob: elasticjob \"bert\" succeeded\n$")

    def test_follow_survives_several_cuts_while_lines_come(self):
        """Cuts at the first line, in the middle of a second and at its last line, while the
        worker writes; and the lines written after the last cut and before the job's end."""
        self.two_workers()
        self.say_numbered("bert-worker-1", 0, 20, "one")
        self.cut("bert-worker-1", 10, 0, 1, 3, 5)
        p = self.follow("--worker", "1")
        try:
            got = self.read_lines(p, 20)
            self.say_numbered("bert-worker-1", 20, 40, "one")
            got += self.read_lines(p, 10)
            self.say_numbered("bert-worker-1", 40, 45, "one")
            self.end_job()
            out, err = self.finish(p)
        finally:
            p.kill()
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(got + out.splitlines(), [f"[worker-1] one {i}" for i in range(45)])
        self.assertEqual(err.count("its log stream was cut"), 5, err)

    def test_follow_prints_what_is_left_when_the_job_ends_during_a_cut(self):
        """The stream is cut and the job ends before the follow asks again: the rest of the
        log is still printed before -f exits."""
        self.two_workers()
        self.say_numbered("bert-worker-1", 0, 40, "one")
        self.end_job()
        self.cut("bert-worker-1", 10)
        p = self.follow("--worker", "1", "--timestamps")
        out, err = self.finish(p)
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(out.splitlines(), [f"[worker-1] {stamp(i)} one {i}" for i in range(40)])

    def test_follow_loses_nothing_under_random_cuts(self):
        """Half of all log streams cut after 0 to 6 lines (the cut_log fault, as a soak sets
        it), three workers writing 60 lines each while -f reads: every line once, in order."""
        self.submit(workers="3:3")
        self.scale("bert", 3)
        self.server.ctl("faults", {"kinds": ["cut_log"], "rate": 0.5, "cut_max": 6, "seed": 7,
                                   "methods": ["GET"], "path": "/log$"})
        p = self.follow()
        try:
            got = []
            for start in range(0, 60, 15):
                for w in range(3):
                    self.say_numbered(f"bert-worker-{w}", start, start + 15, f"w{w}")
                got += self.read_lines(p, 45)
            for w in range(3):
                self.pod_phase(f"bert-worker-{w}", "Succeeded")
            out, err = self.finish(p)
        finally:
            p.kill()
        self.assertEqual((p.returncode, out), (0, ""), err)
        for w in range(3):
            self.assertEqual([ln for ln in got if ln.startswith(f"[worker-{w}]")],
                             [f"[worker-{w}] w{w} {i}" for i in range(60)])
        # How many streams get cut depends on how the lines fall into reads (a loaded machine
        # reads them in fewer, larger pieces): at least one must have been, or nothing was shown.
        cuts = [r for r in self.server.ctl("requests") if r["fault"] == "cut_log"]
        self.assertGreater(len(cuts), 0)

    def test_logs_without_follow_resume_cut_streams(self):
        self.two_workers()
        self.say_numbered("bert-worker-0", 0, 40, "zero")
        self.say_numbered("bert-worker-1", 0, 40, "one")
        self.cut("bert-worker-0", 10, 10, 10)
        self.cut("bert-worker-1", 39)
        out = self.ejob("logs", "bert").stdout
        self.assertEqual(out.splitlines(), [f"[worker-0] zero {i}" for i in range(40)] +
                         [f"[worker-1] one {i}" for i in range(40)])
        self.cut("bert-worker-1", 5, 5)
        self.assertEqual(self.ejob("logs", "bert", "-w", "1", "--tail", "12").stdout.splitlines(),
                         [f"[worker-1] one {i}" for i in range(28, 40)])

    def test_a_log_cut_again_and_again_without_a_new_line_is_an_error(self):
        self.two_workers()
        self.say_numbered("bert-worker-1", 0, 8, "one")
        self.cut("bert-worker-1", 4, 0, 0, 0, 0, 0)
        p = self.ejob("logs", "bert", "-w", "1", ok=False)
        self.assertEqual(p.returncode, 4, p.stderr)
        self.assertIn("the log of bert-worker-1 was cut 5 times in a row without a new line", p.stderr)

    def test_kubectl_sees_the_servers_inclusive_whole_second_since_time(self):
        """kubectl as a second client: --since-time with a fraction is whole seconds and
        inclusive, and --timestamps are RFC3339Nano, as through a real API server; a cut stream
        is an error there (kubectl does not resume)."""
        self.two_workers()
        self.say_numbered("bert-worker-1", 0, 12, "one")
        p = self.kubectl("logs", "bert-worker-1", "-n", self.NS, "--timestamps",
                         "--since-time", "2026-01-01T00:00:01.7Z")
        self.assertEqual(p.stdout.splitlines(), [f"{stamp(i)} one {i}" for i in range(4, 12)])
        self.cut("bert-worker-1", 3)
        p = self.kubectl("logs", "bert-worker-1", "-n", self.NS, ok=False)
        self.assertEqual(p.stdout.splitlines()[:3], ["one 0", "one 1", "one 2"])
        self.assertNotIn("one 11", p.stdout)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--ejob", required=True)
    parser.add_argument("--kubectl", default="kubectl")
    args, rest = parser.parse_known_args()
    cli_test.EJOB = os.path.abspath(args.ejob)
    cli_test.KUBECTL = args.kubectl
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
