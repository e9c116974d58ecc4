#!/usr/bin/env python3
"""What ejob keeps to itself, end to end against the Kubernetes API test server: TLS is
verified (a wrong CA fails closed, saying why); tokens, passwords and client keys planted in the
kubeconfig never show in any output or file of any command, --debug included; exec credential
plugins get their arguments verbatim, without a shell; templates read nothing outside the chart.

    security_test.py --ejob PATH [--kubectl PATH] [unittest args]
"""

import argparse
import base64
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

import cli_test
from cli_test import JobBase

EXEC_TOKEN = "planted-exec-token-5c1d9a"
PLANTED_TOKEN = "planted-bearer-token-8e27f0"
PLANTED_PASSWORD = "admin-password"  # the test server's basic-auth password


class SecurityBase(JobBase):
    def setUp(self):
        super().setUp()
        # ejob's own files (caches, local state) go to a folder apart from the server's, which
        # holds the keys: every file there is searched for the secrets.
        self.home = tempfile.mkdtemp(prefix="ejob-security-home-")
        self.env.update(HOME=self.home, XDG_CACHE_HOME=os.path.join(self.home, "cache"),
                        XDG_STATE_HOME=os.path.join(self.home, "state"),
                        XDG_CONFIG_HOME=os.path.join(self.home, "config"),
                        KUBECACHEDIR=os.path.join(self.home, "kube-cache"))
        self.server.ctl("tokens", {PLANTED_TOKEN: "admin", EXEC_TOKEN: "admin"})

    def tearDown(self):
        shutil.rmtree(self.home, ignore_errors=True)
        super().tearDown()

    def kubeconfig(self):
        with open(self.server.kubeconfig) as f:
            return json.load(f)

    def write_kubeconfig(self, cfg, name="kubeconfig-planted"):
        path = os.path.join(self.server.dir, name)
        with open(path, "w") as f:
            json.dump(cfg, f)
        return path

    def plugin(self, body):
        path = os.path.join(self.server.dir, "plugin.sh")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + textwrap.dedent(body))
        os.chmod(path, 0o755)
        return path


def exec_credential(token):
    return json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                       "status": {"token": token}})


class TlsTest(SecurityBase):
    def test_a_wrong_ca_fails_closed_with_the_reason(self):
        cfg = self.kubeconfig()
        with open(os.path.join(self.server.dir, "other-ca.crt"), "rb") as f:
            cfg["clusters"][0]["cluster"]["certificate-authority-data"] = base64.b64encode(f.read()).decode()
        self.env["KUBECONFIG"] = self.write_kubeconfig(cfg)
        self.server.ctl("requests/reset", {})
        for context in ("admin-token", "admin-cert"):
            p = self.ejob("list", "--context", context, ok=False)
            self.assertEqual(p.returncode, 4, p.stderr)
            self.assertEqual(p.stderr, f"ejob: error: TLS handshake with https://127.0.0.1:{self.server.port} "
                                       "failed: SSL certificate problem: self-signed certificate in "
                                       "certificate chain (check certificate-authority in the kubeconfig)\n")
        # No CA at all: the system's CAs, which do not know the test CA: refused too.
        del cfg["clusters"][0]["cluster"]["certificate-authority-data"]
        self.env["KUBECONFIG"] = self.write_kubeconfig(cfg)
        p = self.ejob("list", "--context", "admin-token", ok=False)
        self.assertEqual(p.returncode, 4, p.stderr)
        self.assertIn("SSL certificate problem", p.stderr)
        self.assertEqual(self.server.ctl("requests"), [])  # no request was sent


class SecretsTest(SecurityBase):
    def secrets(self):
        """Every secret of the kubeconfig: tokens, the password, the client keys (base64 and
        each line of their PEM)."""
        # (The server's own tokens are named as their contexts, which are no secret: the
        # planted ones are searched for instead.)
        found = {PLANTED_TOKEN, EXEC_TOKEN, PLANTED_PASSWORD, "planted-wrong-token-0a0a",
                 base64.b64encode(b"admin:" + PLANTED_PASSWORD.encode()).decode()}
        for user in self.kubeconfig()["users"]:
            key = user["user"].get("client-key-data")
            if key:
                found.add(key)
                found.update(ln for ln in base64.b64decode(key).decode().splitlines() if "-----" not in ln)
        return found

    def planted_kubeconfig(self):
        cfg = self.kubeconfig()
        cfg["users"].append({"name": "planted", "user": {"token": PLANTED_TOKEN}})
        cfg["users"].append({"name": "exec", "user": {"exec": {
            "apiVersion": "client.authentication.k8s.io/v1", "interactiveMode": "Never",
            "command": self.plugin(f"echo '{exec_credential(EXEC_TOKEN)}'\n")}}})
        cfg["users"].append({"name": "wrong", "user": {"token": "planted-wrong-token-0a0a", "password": "x"}})
        for n in ("planted", "exec", "wrong"):
            cfg["contexts"].append({"name": n, "context": {"cluster": "test", "user": n,
                                                           "namespace": "default"}})
        return self.write_kubeconfig(cfg)

    def test_no_command_shows_a_planted_secret(self):
        self.env["KUBECONFIG"] = self.planted_kubeconfig()
        outputs = []

        def run(*args, ok=True):
            p = self.ejob(*args, ok=ok)
            outputs.append((args, p.stdout + p.stderr))

        for context in ("admin-cert", "admin-token", "basic", "planted", "exec"):
            c = ["--context", context, "--debug"]
            run("install-crds", *c)
            run("submit", "--name", "bert", "--exact-name", "--image", "worker:1", "--workers", "1:2",
                *c, "--", "train.py")
            self.server.ctl("sync")
            self.say("bert-worker-0", "hello")
            run("list", *c)
            run("list", "-A", "-o", "yaml", *c)
            run("describe", "bert", *c)
            run("describe", "bert", "-o", "json", *c)
            run("logs", "bert", *c)
            run("scale", "bert", "--workers", "2", *c, ok=False)  # an ElasticJob is not scaled
            run("evict", "bert", "--worker", "0", *c)
            run("doctor", *c, ok=False)
            run("submit", "--dry-run=server", "-o", "yaml", "--image", "w:1", *c, "--", "t.py")
            run("delete", "bert", *c)
            run("describe", "bert", *c, ok=False)  # an error's message
        run("list", "--context", "wrong", "--debug", ok=False)  # 401
        run("list", "--context", "viewer-token", "--debug", "-A", ok=False)
        run("submit", "--context", "viewer-token", "--debug", "--image", "w:1", "--", "t.py", ok=False)  # 403
        run("list", "--context", "planted", "--debug", "--kubeconfig", self.env["KUBECONFIG"],
            "--request-timeout", "1s", ok=True)
        run("config", "view")
        run("template", "--image", "w:1", "--", "t.py")
        self.assertTrue(any("ejob: debug: GET" in out for _, out in outputs))
        files = []
        for root, _, names in os.walk(self.home):
            for n in names:
                with open(os.path.join(root, n), "rb") as f:
                    files.append((os.path.join(root, n), f.read().decode(errors="replace")))
        for secret in self.secrets():
            for args, out in outputs:
                self.assertNotIn(secret, out, args)
            for path, text in files:
                self.assertNotIn(secret, text, path)


class ExecPluginTest(SecurityBase):
    def test_arguments_reach_the_plugin_verbatim_without_a_shell(self):
        argv_file = os.path.join(self.server.dir, "argv.json")
        plugin = self.plugin(f"""\
            {sys.executable} -c 'import json, sys; json.dump(sys.argv[1:], open("{argv_file}", "w"))' "$@"
            echo '{exec_credential(EXEC_TOKEN)}'
            """)
        args = ["two words", "it's", '"quoted"', "$HOME", "`id`", "$(touch pwned)", "a;b|c&d", "*", "", "back\\slash"]
        cfg = self.kubeconfig()
        cfg["users"].append({"name": "exec", "user": {"exec": {
            "apiVersion": "client.authentication.k8s.io/v1", "interactiveMode": "Never",
            "command": plugin, "args": args, "env": [{"name": "PLANTED", "value": "a b '$c'"}]}}})
        cfg["contexts"].append({"name": "exec", "context": {"cluster": "test", "user": "exec"}})
        self.env["KUBECONFIG"] = self.write_kubeconfig(cfg)
        self.ejob("install-crds", "--context", "exec")
        with open(argv_file) as f:
            self.assertEqual(json.load(f), args)
        self.assertFalse(os.path.exists(os.path.join(self.server.dir, "pwned")))
        self.assertFalse(os.path.exists("pwned"))

    def test_a_command_line_in_command_is_one_program_name(self):
        """`command: "sh -c 'touch x'"` names a program of that whole name, as client-go's
        exec.Command does: there is none, and nothing runs."""
        cfg = self.kubeconfig()
        marker = os.path.join(self.server.dir, "ran")
        cfg["users"].append({"name": "exec", "user": {"exec": {
            "apiVersion": "client.authentication.k8s.io/v1", "interactiveMode": "Never",
            "command": f"sh -c 'touch {marker}'"}}})
        cfg["contexts"].append({"name": "exec", "context": {"cluster": "test", "user": "exec"}})
        self.env["KUBECONFIG"] = self.write_kubeconfig(cfg)
        p = self.ejob("install-crds", "--context", "exec", ok=False)
        self.assertEqual(p.returncode, 6, p.stderr)
        self.assertFalse(os.path.exists(marker))


class TemplateFilesTest(SecurityBase):
    def chart(self, template):
        chart = os.path.join(self.home, "chart")
        os.makedirs(os.path.join(chart, "templates"), exist_ok=True)
        with open(os.path.join(chart, "Chart.yaml"), "w") as f:
            f.write("apiVersion: v2\nname: probe\nversion: 0.1.0\n")
        with open(os.path.join(chart, "data.txt"), "w") as f:
            f.write("inside")
        with open(os.path.join(chart, "templates", "cm.yaml"), "w") as f:
            f.write(template)
        return chart

    def template(self, chart, ok=True):
        return self.ejob("template", "--chart", chart, ok=ok)

    def test_files_outside_the_chart_read_as_empty(self):
        chart = self.chart('a: {{ .Files.Get "../../../../../../etc/passwd" | quote }}\n'
                           'b: {{ .Files.Get "/etc/passwd" | quote }}\n'
                           'c: {{ .Files.Get "data.txt" | quote }}\n'
                           'd: {{ .Files.Glob "../**" | len }}\n'
                           'e: {{ .Files.Get "templates/../../chart/data.txt" | quote }}\n')
        out = self.template(chart).stdout
        self.assertIn('a: ""\nb: ""\nc: "inside"\nd: 0\ne: ""\n', out)

    def test_a_symbolic_link_out_of_the_chart_is_refused(self):
        chart = self.chart('a: {{ .Files.Get "passwd" | quote }}\n')
        os.symlink("/etc/passwd", os.path.join(chart, "passwd"))
        p = self.template(chart, ok=False)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("chart file passwd is a symbolic link to /etc/passwd, outside the chart", p.stderr)
        self.assertNotIn("root:", p.stdout)
        os.remove(os.path.join(chart, "passwd"))
        os.symlink("/etc", os.path.join(chart, "etc"))  # a folder
        p = self.template(chart, ok=False)
        self.assertIn("chart file etc is a symbolic link to /etc, outside the chart", p.stderr)
        os.remove(os.path.join(chart, "etc"))
        os.symlink("data.txt", os.path.join(chart, "inside.txt"))  # within the chart: read
        with open(os.path.join(chart, "templates", "cm.yaml"), "w") as f:
            f.write('a: {{ .Files.Get "inside.txt" | quote }}\n')
        self.assertIn('a: "inside"\n', self.template(chart).stdout)

    def test_env_expandenv_and_dns_are_not_there(self):
        self.env["PLANTED"] = "planted-env-value"
        for fn, message in [('{{ env "PLANTED" }}', 'function "env" not defined'),
                            ('{{ expandenv "$PLANTED" }}', 'function "expandenv" not defined')]:
            p = self.template(self.chart(f"a: {fn}\n"), ok=False)
            self.assertEqual(p.returncode, 3, p.stderr)
            self.assertIn(message, p.stderr)
            self.assertNotIn("planted-env-value", p.stdout + p.stderr)
        # getHostByName looks nothing up, as `helm template` without --enable-dns.
        p = self.template(self.chart('a: {{ getHostByName "localhost" }}\n'), ok=False)
        self.assertNotIn("127.0.0.1", p.stdout)


class LocalFilesTest(SecurityBase):
    def test_local_state_is_the_owners_alone(self):
        """A local job's folder (and the state root ejob makes) are 0700 and its files 0600: no
        other user reads a job's state or logs, or hands its supervisor a request."""
        p = self.ejob("submit", "--local", "--name", "probe", "--exact-name", "--image", "w:1",
                      "--", "true", ok=False)
        root = os.path.join(self.home, "state", "ejob")
        if not os.path.isdir(os.path.join(root, "local", "probe")):
            self.skipTest("no local job was made here: " + p.stderr)
        self.ejob("delete", "probe", "--keep", ok=False)  # stopped, its final state written
        for d in (root, os.path.join(root, "local"), os.path.join(root, "local", "probe")):
            self.assertEqual(stat.S_IMODE(os.stat(d).st_mode), 0o700, d)
        loose = []
        for dirpath, _, files in os.walk(root):
            for n in files:
                mode = stat.S_IMODE(os.stat(os.path.join(dirpath, n)).st_mode)
                if mode & 0o077:
                    loose.append(f"{os.path.relpath(os.path.join(dirpath, n), root)} {mode:o}")
        self.assertEqual(loose, [])

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--ejob", required=True)
    parser.add_argument("--kubectl", default="kubectl")
    args, rest = parser.parse_known_args()
    cli_test.EJOB = os.path.abspath(args.ejob)
    cli_test.KUBECTL = args.kubectl
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
