#!/usr/bin/env python3
"""End-to-end tests of `ejob submit|list|delete|install-crds` and of kubectl against the
Kubernetes API test server (server.py). Each test starts its own server on 127.0.0.1 port 0
and stops it.

    cli_test.py --ejob PATH [--kubectl PATH] [unittest args, e.g. CliTest.test_submit]

Tests of kubectl assert on what it means (exit status, the server's message within its output,
the objects it left on the server), never on one kubectl version's wording: CTest runs them with
each kubectl version found (cmake/EjobPeers.cmake).
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import threading
import unittest
import urllib.request
import ssl

HERE = os.path.dirname(os.path.abspath(__file__))
# The real CRDs and runtimes, unchanged, beside the checkout (../shared/crds).
SHARED_CRDS = os.path.join(HERE, "..", "..", "..", "shared", "crds")
EJOB = None
KUBECTL = "kubectl"
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


class Server:
    """server.py in a temporary directory; `ctl` drives its /_test endpoints."""

    def __init__(self, namespaces=("elastic-job",), crds=()):
        """`namespaces`: made by the cluster's admin beforehand (a fresh cluster has only
        default, kube-system, kube-public and kube-node-lease). `crds`: files of SHARED_CRDS
        (../shared/crds) installed from the start."""
        self.dir = tempfile.mkdtemp(prefix="ejob-kube-cli-")
        crd_args = [a for f in crds for a in ("--crd", os.path.join(SHARED_CRDS, f))]
        self.proc = subprocess.Popen([PYTHON, os.path.join(HERE, "server.py"), "--dir", self.dir,
                                      "--namespaces=" + ",".join(namespaces), *crd_args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.port = json.loads(self.proc.stdout.readline())["port"]
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        self.ssl = ssl.create_default_context(cafile=os.path.join(self.dir, "ca.crt"))

    def ctl(self, cmd, body=None, method=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"https://127.0.0.1:{self.port}/_test/{cmd}", data=data,
                                     method=method or ("GET" if body is None else "POST"))
        with urllib.request.urlopen(req, context=self.ssl) as r:
            return json.loads(r.read())

    def objects(self, kind=None):
        return [o for o in self.ctl("objects") if kind is None or o["kind"] == kind]

    def stop(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Base(unittest.TestCase):
    def setUp(self):
        self.server = Server()
        self.env = dict(os.environ, KUBECONFIG=self.server.kubeconfig,
                        KUBECACHEDIR=os.path.join(self.server.dir, "cache"), HOME=self.server.dir,
                        XDG_STATE_HOME=os.path.join(self.server.dir, "state"))

    def tearDown(self):
        self.server.stop()

    def run_cmd(self, *args, ok=True, stdin=None):
        p = subprocess.run(list(args), env=self.env, capture_output=True, text=True, input=stdin,
                           timeout=120)
        if ok and p.returncode != 0:
            self.fail(f"{args} exited {p.returncode}: {p.stderr}")
        return p

    def ejob(self, *args, **kw):
        return self.run_cmd(EJOB, *args, **kw)

    def kubectl(self, *args, **kw):
        return self.run_cmd(KUBECTL, *args, **kw)

    def install_crds(self):
        self.ejob("install-crds")


JOB = ["--image", "worker:1", "--workers", "1:2", "--", "train.py", "--lr", "0.1"]


class KubectlTest(Base):
    def test_kubectl_apply_get_logs_delete(self):
        manifest = json.dumps({"apiVersion": "v1", "kind": "Pod",
                               "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
                               "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
        self.assertIn("pod/web", self.kubectl("apply", "--server-side", "-f", "-", stdin=manifest).stdout)
        [pod] = self.server.objects("Pod")
        self.assertEqual([m["manager"] for m in pod["metadata"]["managedFields"]], ["kubectl"])
        out = self.kubectl("get", "pods", "-n", "default", "-o", "name").stdout
        self.assertEqual(out, "pod/web\n")
        out = self.kubectl("get", "pod", "web", "-n", "default", "-o", "jsonpath={.spec.containers[0].image}").stdout
        self.assertEqual(out, "nginx")
        self.server.ctl("logs", {"namespace": "default", "pod": "web", "container": "c",
                                 "lines": [{"text": "hello"}, {"text": "world"}], "done": True})
        self.assertEqual(self.kubectl("logs", "web", "-n", "default", "--tail=1").stdout, "world\n")
        conflict = manifest.replace("nginx", "nginx:2")
        p = self.kubectl("apply", "--server-side", "--field-manager=other", "-f", "-", stdin=conflict, ok=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('conflict with "kubectl" using v1: .spec.containers', p.stderr)
        self.assertIn('"web"', self.kubectl("delete", "pod", "web", "-n", "default").stdout)
        self.assertEqual(self.server.objects("Pod"), [])

    def test_kubectl_sees_what_ejob_submitted(self):
        self.install_crds()
        self.ejob("submit", "--name", "bert", "--exact-name", *JOB)
        out = self.kubectl("get", "elasticjobs", "-n", "elastic-job", "-o", "name").stdout
        self.assertEqual(out, "elasticjob.elastic.pytorch.org/bert\n")
        self.kubectl("delete", "elasticjob", "bert", "-n", "elastic-job")
        self.server.ctl("sync")  # the garbage collector deletes what the job owned
        self.assertEqual([o["metadata"]["name"] for o in self.server.objects("Pod")], [])


class SubmitTest(Base):
    def test_submit_without_crd_says_install_crds(self):
        # auto: no engine served — each one named with how to install it.
        p = self.ejob("submit", *JOB, ok=False)
        self.assertEqual(p.returncode, 8)
        self.assertTrue(p.stderr.startswith("ejob: error: the cluster serves none of the job kinds"), p.stderr)
        for said in ("pytorchjob (PyTorchJob", "trainjob (TrainJob", "elasticjob (ElasticJob", "`ejob install-crds`",
                     "training-operator", "kubeflow/trainer"):
            self.assertIn(said, p.stderr)
        self.assertEqual(p.stdout, "")
        # A named engine the cluster does not serve.
        p = self.ejob("submit", "--engine", "elasticjob", *JOB, ok=False)
        self.assertEqual(p.returncode, 8)
        self.assertIn("engine elasticjob: the cluster does not serve ElasticJob (elastic.pytorch.org/v1alpha1)", p.stderr)
        self.assertEqual(self.server.objects("Pod"), [])

    def test_install_crds_is_idempotent(self):
        out = self.ejob("install-crds").stdout
        self.assertEqual(out, "customresourcedefinition.apiextensions.k8s.io/elasticjobs.elastic.pytorch.org serverside-applied\n"
                              "customresourcedefinition.apiextensions.k8s.io/elasticjobs.elastic.pytorch.org established\n")
        self.assertEqual(self.ejob("install-crds").stdout, out)
        crds = self.server.objects("CustomResourceDefinition")
        self.assertEqual(len(crds), 1)
        self.assertEqual([m["manager"] for m in crds[0]["metadata"]["managedFields"] if m["operation"] == "Apply"], ["ejob"])

    def test_install_crds_dry_run_stores_nothing(self):
        out = self.ejob("install-crds", "--dry-run").stdout
        self.assertEqual(out, "customresourcedefinition.apiextensions.k8s.io/elasticjobs.elastic.pytorch.org "
                              "serverside-applied (server dry run)\n")
        self.assertEqual(self.server.objects("CustomResourceDefinition"), [])

    def test_submit_list_delete(self):
        self.install_crds()
        out = self.ejob("submit", "--name", "bert", "--exact-name", *JOB).stdout
        self.assertEqual(out, 'elasticjob "bert" submitted to namespace elastic-job (3 objects)\n'
                              "  follow:  ejob logs bert -n elastic-job -f\n"
                              "  inspect: ejob describe bert -n elastic-job\n"
                              "  remove:  ejob delete bert -n elastic-job\n")
        job = self.server.objects("ElasticJob")[0]
        for o in self.server.objects():
            if o["kind"] in ("Service", "Pod") and o["metadata"]["name"].startswith("bert-etcd"):
                self.assertEqual(o["metadata"]["ownerReferences"][0]["uid"], job["metadata"]["uid"])
        self.server.ctl("sync")
        lines = self.ejob("list").stdout.splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "STATUS", "MIN", "MAX", "DESIRED", "ACTIVE", "AGE", "WHERE", "ENGINE"])
        self.assertEqual(lines[1].split()[:6], ["bert", "Running", "1", "2", "1", "1"])
        wide = self.ejob("list", "-A", "-o", "wide").stdout.splitlines()
        self.assertEqual(wide[1].split()[:2], ["elastic-job", "bert"])
        self.assertEqual(wide[1].split()[-2:], ["bert-etcd-service:2379", "worker:1"])
        self.assertEqual(json.loads(self.ejob("list", "-o", "json").stdout)["items"][0]["metadata"]["name"], "bert")
        # kubectl's other formats; managedFields hidden unless asked for, as kubectl hides them.
        self.assertEqual(self.ejob("list", "-o", "name").stdout, "elasticjob.elastic.pytorch.org/bert\n")
        listed = self.ejob("list", "-o", "yaml").stdout
        self.assertTrue(listed.startswith("apiVersion: v1\nitems:\n- apiVersion: elastic.pytorch.org/v1alpha1\n"), listed)
        self.assertNotIn("managedFields", listed)
        self.assertIn("managedFields", self.ejob("list", "-o", "yaml", "--show-managed-fields").stdout)
        self.assertNotIn("managedFields", self.ejob("describe", "bert", "-o", "json").stdout)
        out = self.ejob("delete", "bert", "--wait").stdout
        self.assertEqual(out, 'elasticjob.elastic.pytorch.org "bert" deleted\n')
        # Events stay, as in Kubernetes (not owned; they expire after the server's event TTL).
        left = [o["kind"] + "/" + o["metadata"]["name"] for o in self.server.objects()
                if o["metadata"].get("namespace") == "elastic-job" and o["kind"] != "Event"]
        self.assertEqual(left, [])
        p = self.ejob("delete", "bert", ok=False)
        self.assertEqual((p.returncode, p.stderr), (8, 'ejob: error: elasticjob "bert" not found in namespace elastic-job\n'))

    def test_submit_draws_a_unique_name(self):
        self.install_crds()
        names = set()
        for _ in range(3):
            out = self.ejob("submit", "--name", "bert", "-o", "name", *JOB).stdout.splitlines()
            self.assertEqual(len(out), 3)
            job = [line for line in out if line.startswith("elasticjob.elastic.pytorch.org/")][0]
            names.add(job.split("/")[1])
        self.assertEqual(len(names), 3)
        for n in names:
            self.assertRegex(n, r"^bert-[a-z0-9]{5}$")

    def test_submit_exact_name_taken(self):
        self.install_crds()
        self.ejob("submit", "--name", "bert", "--exact-name", *JOB)
        p = self.ejob("submit", "--name", "bert", "--exact-name", *JOB, ok=False)
        self.assertEqual(p.returncode, 7)
        self.assertEqual(p.stderr, "ejob: error: ElasticJob bert already exists in namespace elastic-job; choose "
                                   "another --name, or drop --exact-name to get a unique suffix\n")

    def test_submit_forbidden(self):
        self.install_crds()
        p = self.ejob("submit", "--context", "viewer-token", *JOB, ok=False)
        self.assertEqual(p.returncode, 6)
        self.assertEqual(p.stderr, 'ejob: error: elasticjobs.elastic.pytorch.org is forbidden: User "viewer" cannot '
                                   'create resource "elasticjobs" in API group "elastic.pytorch.org" in the namespace '
                                   '"elastic-job"\n')

    def test_submit_dry_run_client_is_template_output(self):
        args = ["--name", "bert", "--exact-name", *JOB]
        expected = self.ejob("template", *args).stdout
        self.env["KUBECONFIG"] = "/nonexistent"
        self.assertEqual(self.ejob("submit", "--dry-run=client", *args).stdout, expected)
        self.assertEqual(self.ejob("submit", "--dry-run", *args).stdout, expected)
        names = self.ejob("submit", "--dry-run=client", "-o", "name", *args).stdout
        self.assertIn("elasticjob.elastic.pytorch.org/bert\n", names)

    def test_submit_dry_run_server_and_yaml(self):
        self.install_crds()
        out = self.ejob("submit", "--dry-run=server", "-o", "json", "--name", "bert", "--exact-name", *JOB).stdout
        doc = json.loads(out)
        self.assertEqual(doc["kind"], "List")
        self.assertEqual(sorted(i["kind"] for i in doc["items"]), ["ElasticJob", "Pod", "Service"])
        self.assertEqual(self.server.objects("ElasticJob"), [])
        yml = self.ejob("submit", "-o", "yaml", "--name", "bert", "--exact-name", *JOB).stdout
        self.assertTrue(yml.startswith("apiVersion: v1\nitems:\n"))

    def test_unreachable_server_is_a_transport_error(self):
        with open(self.server.kubeconfig) as f:
            cfg = json.load(f)
        cfg["clusters"][0]["cluster"]["server"] = "https://127.0.0.1:1"
        path = os.path.join(self.server.dir, "closed")
        with open(path, "w") as f:
            json.dump(cfg, f)
        p = self.ejob("list", "--kubeconfig", path, ok=False)
        self.assertEqual(p.returncode, 4)
        self.assertRegex(p.stderr, r"^ejob: error: GET https://127\.0\.0\.1:1/apis/\S+: .*(connect|Connect)")

    def test_a_retry_is_said_before_its_wait(self):
        self.install_crds()
        self.server.ctl("faults", {"methods": ["GET"], "path": "/elasticjobs$", "kinds": ["503"], "times": 2})
        p = self.ejob("list")
        self.assertEqual(p.stdout, "")  # no jobs
        retries = [l for l in p.stderr.splitlines() if "retrying" in l]
        self.assertEqual(len(retries), 2, p.stderr)
        for n, line in enumerate(retries, 2):
            self.assertRegex(line, r"^ejob: GET https://127\.0\.0\.1:\d+/apis/elastic\.pytorch\.org/v1alpha1/"
                                   r"namespaces/elastic-job/elasticjobs\?\S+: the server answered HTTP 503; "
                                   r"retrying in \d+\.\d s \(attempt %d of 6\)$" % n)

    def test_debug_shows_requests_but_no_token(self):
        self.install_crds()
        p = self.ejob("list", "--context", "admin-token", "--debug")
        # Each engine's jobs are listed at the path its CRD defines, side by side.
        self.assertIn(f"ejob: debug: GET https://127.0.0.1:{self.server.port}/apis/elastic.pytorch.org/v1alpha1/namespaces/elastic-job/elasticjobs?",
                      p.stderr)
        self.assertRegex(p.stderr, r"elasticjobs\?\S+ 200 in \d+ ms")
        self.assertNotIn("admin-token", p.stderr)

    def test_delete_all(self):
        self.install_crds()
        for n in ("a", "b"):
            self.ejob("submit", "--name", n, "--exact-name", *JOB)
        out = self.ejob("delete", "--all").stdout
        self.assertEqual(out, 'elasticjob.elastic.pytorch.org "a" deleted\nelasticjob.elastic.pytorch.org "b" deleted\n')
        self.assertEqual(self.server.objects("ElasticJob"), [])
        p = self.ejob("delete", "a", "--all", ok=False)
        self.assertEqual((p.returncode, p.stderr), (2, "ejob: error: --all takes no job names\n"))


class EchoServer:
    """A TCP echo server on 127.0.0.1 (a free port): what a pod's port answers in these tests."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.threads = [threading.Thread(target=self.accept, daemon=True)]
        self.threads[0].start()

    def accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            t = threading.Thread(target=self.echo, args=(conn,), daemon=True)
            self.threads.append(t)
            t.start()

    @staticmethod
    def echo(conn):
        with conn:
            while data := conn.recv(65536):
                conn.sendall(data)

    def stop(self):
        self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        for t in self.threads:
            t.join(timeout=10)


def recv_until_closed(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


class SchemaDocsTest(unittest.TestCase):
    """`ejob template` of a chart whose values.schema.json names documents over http, served by
    http_docs.py: Helm's HTTPURLLoader, through the libcurl the ejob executable loads on first
    use."""

    def setUp(self):
        self.docs = subprocess.Popen([PYTHON, os.path.join(HERE, "http_docs.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.port = json.loads(self.docs.stdout.readline())["port"]
        self.dir = tempfile.mkdtemp(prefix="ejob-schema-docs-")
        chart = os.path.join(self.dir, "c")
        os.makedirs(os.path.join(chart, "templates"))
        with open(os.path.join(chart, "Chart.yaml"), "w") as f:
            f.write("apiVersion: v2\nname: c\nversion: 0.1.0\n")
        with open(os.path.join(chart, "templates", "cm.yaml"), "w") as f:
            f.write("kind: ConfigMap\nv: {{ .Values.db | toJson | quote }}\n")
        self.chart = chart

    def tearDown(self):
        self.docs.stdin.close()
        self.docs.wait(timeout=30)
        shutil.rmtree(self.dir)

    def template(self, ref, values):
        with open(os.path.join(self.chart, "values.schema.json"), "w") as f:
            json.dump({"properties": {"db": {"$ref": ref}}}, f)
        with open(os.path.join(self.chart, "values.yaml"), "w") as f:
            f.write(values)
        return subprocess.run([EJOB, "template", "--chart", self.chart, "--name", "r",
                               "--exact-name"], capture_output=True, text=True, timeout=60)

    def test_template_fetches_a_schema_ref_over_http(self):
        url = f"http://127.0.0.1:{self.port}/schema.json"  # {"type": "object"}
        p = self.template(url, "db:\n  host: x\n")
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertIn('v: "{\\"host\\":\\"x\\"}"', p.stdout)
        p = self.template(url, "db: x\n")
        self.assertEqual(p.returncode, 3)
        self.assertEqual(p.stderr, "ejob: error: values don't meet the specifications of the "
                                   "schema(s) in the following chart(s):\nc:\n"
                                   "- at '/db': got string, want object\n")

    def test_template_reports_a_schema_document_that_fails_to_load(self):
        url = f"http://127.0.0.1:{self.port}/missing.json"
        p = self.template(url, "db: x\n")
        self.assertEqual(p.returncode, 3)
        self.assertEqual(p.stdout, "")
        self.assertIn(f'failing loading "{url}": HTTP request to {url} returned status 404 '
                      f"(Not Found)", p.stderr)


class DeleteTest(Base):
    """`ejob delete` against the apiserver's deletion: finalizers, an asynchronous garbage
    collector, or none at all."""

    def submit(self):
        self.install_crds()
        self.ejob("submit", "--name", "bert", "--exact-name", *JOB)
        self.server.ctl("sync")

    def test_delete_is_done_when_it_says_so_even_without_a_garbage_collector(self):
        self.server.ctl("config", {"gc": False})
        self.submit()
        out = self.ejob("delete", "bert").stdout
        self.assertEqual(out, 'elasticjob.elastic.pytorch.org "bert" deleted\n')
        self.assertEqual(self.server.objects("ElasticJob"), [])
        self.assertEqual(self.ejob("list").stderr, "No jobs found in namespace elastic-job.\n")
        self.ejob("submit", "--name", "bert", "--exact-name", *JOB)  # the name is free again

    def test_a_job_held_by_finalizers_is_terminating(self):
        self.submit()
        self.kubectl("patch", "elasticjob", "bert", "-n", "elastic-job", "--type", "merge", "-p",
                     json.dumps({"metadata": {"finalizers": ["example.com/hold"]}}))
        out = self.ejob("delete", "bert").stdout
        self.assertEqual(out, 'elasticjob.elastic.pytorch.org "bert" is terminating: its finalizers '
                              "(example.com/hold) hold it until their controllers release it\n")
        self.assertEqual(self.ejob("list").stdout.splitlines()[1].split()[:2], ["bert", "Terminating"])
        self.kubectl("patch", "elasticjob", "bert", "-n", "elastic-job", "--type", "merge", "-p",
                     json.dumps({"metadata": {"finalizers": None}}))
        self.assertEqual(self.server.objects("ElasticJob"), [])

    def test_delete_wait_waits_for_the_collector(self):
        self.server.ctl("config", {"gc_delay": 1.0})
        self.submit()
        self.ejob("delete", "bert", "--wait")
        self.assertEqual([o["metadata"]["name"] for o in self.server.objects("Pod")], [])


class NamespaceTest(Base):
    """A fresh cluster: no elastic-job namespace until someone makes it."""

    def setUp(self):
        self.server = Server(namespaces=())
        self.env = dict(os.environ, KUBECONFIG=self.server.kubeconfig, HOME=self.server.dir)

    def job_objects(self):
        return [o for o in self.server.objects() if o["kind"] in ("ElasticJob", "Service", "Pod")]

    def namespace(self, name):
        return [o for o in self.server.objects("Namespace") if o["metadata"]["name"] == name]

    def test_submit_into_a_missing_namespace_says_how_to_make_it(self):
        self.install_crds()
        p = self.ejob("submit", *JOB, ok=False)
        self.assertEqual((p.returncode, p.stderr),
                         (8, 'ejob: error: namespace "elastic-job" does not exist: create it with '
                             "`kubectl create namespace elastic-job`, or submit with --create-namespace\n"))
        self.assertEqual(self.job_objects(), [])

    def test_create_namespace(self):
        self.install_crds()
        self.ejob("submit", "--create-namespace", "--name", "bert", "--exact-name", *JOB)
        [ns] = self.namespace("elastic-job")
        self.assertEqual(ns["metadata"]["labels"], {"app.kubernetes.io/created-by": "ejob"})
        self.assertEqual([o["metadata"]["name"] for o in self.server.objects("ElasticJob")], ["bert"])
        # A second submit finds it there.
        self.ejob("submit", "--create-namespace", *JOB)
        self.assertEqual(len(self.server.objects("ElasticJob")), 2)

    def test_create_namespace_is_taken_back_when_the_submit_fails(self):
        self.install_crds()
        self.server.ctl("faults", {"methods": ["POST"], "path": "/namespaces/elastic-job/services$",
                                   "kinds": ["500"], "times": 100})
        p = self.ejob("submit", "--create-namespace", *JOB, ok=False)
        self.assertEqual(p.returncode, 5, p.stderr)
        self.server.ctl("sync")  # the namespace is Terminating until the namespace controller acted
        self.assertEqual(self.job_objects(), [])
        self.assertEqual(self.namespace("elastic-job"), [])


class PortForwardTest(Base):
    """`ejob port-forward` (and kubectl's) against the test server's pods/portforward."""

    def setUp(self):
        super().setUp()
        self.echo = EchoServer()
        self.addCleanup(self.echo.stop)

    def make_pod(self, name, target=None, more=None):
        annotations = {f"test.ejob.dev/port-forward-8080": str(target)} if target else {}
        annotations.update({f"test.ejob.dev/port-forward-{p}": str(t) for p, t in (more or {}).items()})
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "default", "annotations": annotations},
               "spec": {"containers": [{"name": "etcd", "image": "etcd"}]}}
        self.kubectl("apply", "--server-side", "-f", "-", stdin=json.dumps(pod))

    def start(self, *args):
        """Starts a forwarding command; returns (process, local port from its first line)."""
        p = subprocess.Popen(list(args), env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        self.addCleanup(self.finish, p)
        line = p.stdout.readline()
        m = re.match(r"Forwarding from 127\.0\.0\.1:(\d+) -> 8080$", line.strip())
        self.assertIsNotNone(m, line + p.stderr.read() if p.poll() is not None else line)
        return p, int(m.group(1))

    @staticmethod
    def finish(p):
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=30)
        finally:
            p.stdout.close()
            p.stderr.close()

    def exchange(self, port, payload):
        with socket.create_connection(("127.0.0.1", port)) as c:
            sender = threading.Thread(target=c.sendall, args=(payload,))
            sender.start()
            got = recv_until_closed(c, len(payload))
            sender.join()
        return got

    def test_ejob_port_forward_round_trip(self):
        self.make_pod("etcd-0", self.echo.port)
        p, port = self.start(EJOB, "port-forward", "etcd-0", ":8080", "-n", "default")
        self.assertEqual(self.exchange(port, b"hello"), b"hello")
        big = bytes(range(256)) * 1024
        self.assertEqual(self.exchange(port, big), big)
        p.send_signal(signal.SIGINT)
        self.assertEqual(p.wait(timeout=30), 0)
        self.assertEqual(p.stderr.read(), "")

    def test_ejob_port_forward_refused_port_is_reported(self):
        self.make_pod("etcd-0")
        uid = [o for o in self.server.objects("Pod")][0]["metadata"]["uid"]
        p, port = self.start(EJOB, "port-forward", "etcd-0", "0:8080", "-n", "default")
        with socket.create_connection(("127.0.0.1", port)) as c:
            self.assertEqual(c.recv(1), b"")  # closed once the kubelet's error arrived
        p.send_signal(signal.SIGINT)
        self.assertEqual(p.wait(timeout=30), 0)
        self.assertEqual(p.stderr.read(),
                         f"ejob: port-forward: error forwarding port 8080 to pod {uid}, uid : failed to execute "
                         f'portforward in network namespace "/var/run/netns/cni-{uid}": failed to connect to '
                         f'localhost:8080 inside namespace "{uid}", IPv4: dial tcp4 127.0.0.1:8080: connect: '
                         f"connection refused IPv6 dial tcp6 [::1]:8080: connect: connection refused \n")

    def test_ejob_port_forward_several_ports_and_pod_slash_name(self):
        other = EchoServer()
        self.addCleanup(other.stop)
        self.make_pod("etcd-0", self.echo.port, {9090: other.port})
        p, port = self.start(EJOB, "port-forward", "pod/etcd-0", ":8080", "0:9090", "-n", "default")
        m = re.match(r"Forwarding from 127\.0\.0\.1:(\d+) -> 9090$", p.stdout.readline().strip())
        self.assertIsNotNone(m)
        self.assertEqual(self.exchange(port, b"to 8080"), b"to 8080")
        self.assertEqual(self.exchange(int(m.group(1)), b"to 9090"), b"to 9090")
        self.assertEqual((self.echo.accepted, other.accepted), (1, 1))
        p.send_signal(signal.SIGINT)
        self.assertEqual(p.wait(timeout=30), 0)
        self.assertEqual(p.stderr.read(), "")

    def test_ejob_port_forward_a_taken_local_port_forwards_nothing(self):
        self.make_pod("etcd-0", self.echo.port)
        with socket.create_server(("127.0.0.1", 0)) as taken:
            busy = taken.getsockname()[1]
            p = self.ejob("port-forward", "etcd-0", "8080", f"{busy}:8080", "-n", "default", ok=False)
        self.assertEqual((p.returncode, p.stdout, p.stderr),
                         (3, "", f"ejob: error: cannot listen on 127.0.0.1:{busy}: Address already in use\n"))
        p = self.ejob("port-forward", "svc/etcd", "8080", "-n", "default", ok=False)
        self.assertEqual((p.returncode, p.stderr), (2, 'ejob: error: port-forward: "svc/etcd" is not a pod '
                                                       "(POD or pod/POD; ejob forwards to pods)\n"))

    def test_kubectl_port_forward_round_trip(self):
        # kubectl speaks SPDY/3.1 (tests/kube/spdy.py); the pod's port is the same echo server.
        self.make_pod("etcd-0", self.echo.port)
        p, port = self.start(KUBECTL, "port-forward", "pod/etcd-0", ":8080", "-n", "default")
        self.assertEqual(self.exchange(port, b"hello"), b"hello")
        big = bytes(range(256)) * 1024
        self.assertEqual(self.exchange(port, big), big)
        p.send_signal(signal.SIGINT)
        p.wait(timeout=30)
        self.assertEqual(p.stderr.read(), "")

    def test_kubectl_port_forward_reports_the_kubelets_error(self):
        # What kubectl means, in any version's wording: the kubelet's error for this local port.
        # kubectl 1.20 prints it plainly, 1.26 and later as a klog err="…" with quotes escaped.
        self.make_pod("etcd-0")
        uid = [o for o in self.server.objects("Pod")][0]["metadata"]["uid"]
        p, port = self.start(KUBECTL, "port-forward", "pod/etcd-0", ":8080", "-n", "default")
        with socket.create_connection(("127.0.0.1", port)) as c:
            self.assertEqual(c.recv(1), b"")
        p.send_signal(signal.SIGINT)
        p.wait(timeout=30)
        stderr = p.stderr.read().replace('\\"', '"')
        self.assertIn(f"forwarding {port} -> 8080: error forwarding port 8080 to pod {uid}, "
                      f'uid : failed to execute portforward in network namespace "/var/run/netns/cni-{uid}": '
                      f'failed to connect to localhost:8080 inside namespace "{uid}", IPv4: dial tcp4 '
                      f"127.0.0.1:8080: connect: connection refused IPv6 dial tcp6 [::1]:8080: connect: "
                      f"connection refused ", stderr)

    def test_ejob_port_forward_unknown_pod_and_bad_ports(self):
        p = self.ejob("port-forward", "nope", "8080", "-n", "default", ok=False)
        self.assertEqual((p.returncode, p.stderr), (8, 'ejob: error: pods "nope" not found\n'))
        self.make_pod("etcd-0", self.echo.port)
        self.server.ctl("pod-phase", {"namespace": "default", "name": "etcd-0", "phase": "Pending"})
        p = self.ejob("port-forward", "etcd-0", "8080", "-n", "default", ok=False)
        self.assertEqual((p.returncode, p.stdout, p.stderr),
                         (7, "", "ejob: error: pod etcd-0 is not running (status Pending): there is "
                                 "nothing to forward to yet\n"))
        p = self.ejob("port-forward", "nope", "8080:0", "-n", "default", ok=False)
        self.assertEqual((p.returncode, p.stderr),
                         (2, 'ejob: error: port-forward: "8080:0" is not a port number (1 to 65535)\n'))


def section(text, title):
    """The indented lines under `title:` in `ejob describe` output."""
    lines = text.splitlines()
    start = lines.index(title + ":") + 1
    end = start
    while end < len(lines) and lines[end].startswith("  "):
        end += 1
    return lines[start:end]


class JobBase(Base):
    """Helpers for tests of a submitted job: the test server's controller makes the worker pods
    and the test plays the kubelet (log lines, phases, restarts)."""

    NS = "elastic-job"
    CONTAINER = "elasticjob-worker"

    def submit(self, name="bert", workers="1:3"):
        self.install_crds()
        self.ejob("submit", "--name", name, "--exact-name", "--image", "worker:1", "--workers", workers,
                  "--", "train.py")
        self.server.ctl("sync")

    def say(self, pod, *lines, previous=()):
        self.server.ctl("logs", {"namespace": self.NS, "pod": pod, "container": self.CONTAINER,
                                 "lines": [{"text": t} for t in lines],
                                 "previous": [{"text": t} for t in previous]})

    def pod_phase(self, pod, phase, **extra):
        self.server.ctl("pod-phase", dict({"namespace": self.NS, "name": pod, "phase": phase}, **extra))

    def scale(self, name, replicas):
        self.kubectl("patch", "elasticjob", name, "-n", self.NS, "--type", "merge", "-p",
                     json.dumps({"spec": {"replicaSpecs": {"Worker": {"replicas": replicas}}}}))
        self.server.ctl("sync")

    def wait_for(self, predicate, what, timeout=30):
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                self.fail(f"timed out waiting for {what}")
            time.sleep(0.05)



class LogsDescribeTest(JobBase):
    """`ejob logs` and `ejob describe` of a submitted job."""

    def test_evict_a_worker_through_the_eviction_api(self):
        """`ejob evict` of a cluster job: the Eviction API on the controller's worker pod, so
        disruption budgets apply (a refusal is the API's 429 with its cause, exit 5)."""
        self.submit(workers="1:2")
        self.scale("bert", 2)
        self.server.ctl("requests/reset", {})
        uid = {o["metadata"]["name"]: o["metadata"]["uid"] for o in self.server.objects("Pod")}["bert-worker-1"]
        self.assertEqual(self.ejob("evict", "bert", "--worker", "1").stdout, 'pod "bert-worker-1" evicted\n')
        posts = [r["path"] for r in self.server.ctl("requests") if r["method"] == "POST"]
        self.assertIn("/api/v1/namespaces/elastic-job/pods/bert-worker-1/eviction", posts)
        # Gone, or made again by the controller as a new pod.
        self.assertNotIn(uid, [o["metadata"]["uid"] for o in self.server.objects("Pod")])
        self.server.ctl("config", {"evict_blocked": ["bert-worker-0"]})
        refused = self.ejob("evict", "bert", "--worker", "0", ok=False)
        self.assertEqual(refused.returncode, 5, refused.stderr)
        self.assertIn("disruption budget", refused.stderr)
        self.assertEqual(self.ejob("evict", "bert", "--worker", "7", ok=False).returncode, 8)

    def test_evict_a_node_cordons_it_and_evicts_the_workers_on_it(self):
        """`ejob evict --node N`: a spot VM's reclaim drilled on a cluster — the node cordoned
        (kubectl sees spec.unschedulable), the job's workers on it evicted, made again on
        the other node; describe counts the preemptions apart from failures."""
        for node in ("spot-a", "spot-b"):
            self.kubectl("create", "-f", "-", stdin=json.dumps(
                {"apiVersion": "v1", "kind": "Node", "metadata": {"name": node}}))
        self.submit(workers="1:4")
        self.scale("bert", 4)
        pods = {o["metadata"]["name"]: o["spec"].get("nodeName") for o in self.server.objects("Pod")
                if o["metadata"]["name"].startswith("bert-worker-")}
        on_a = sorted(p for p, n in pods.items() if n == "spot-a")
        self.assertEqual(len(on_a), 2, pods)
        out = self.ejob("evict", "bert", "--node", "spot-a").stdout
        self.assertEqual(out, "node/spot-a cordoned\n" + "".join(f'pod "{p}" evicted\n' for p in on_a))
        self.assertEqual(self.kubectl("get", "node", "spot-a", "-o", "jsonpath={.spec.unschedulable}").stdout, "true")
        self.server.ctl("sync")
        self.wait_for(lambda: all(o["spec"].get("nodeName") == "spot-b" for o in self.server.objects("Pod")
                                  if o["metadata"]["name"].startswith("bert-worker-"))
                      and len([o for o in self.server.objects("Pod")
                               if o["metadata"]["name"].startswith("bert-worker-")]) == 4,
                      "the workers made again on spot-b")
        described = self.ejob("describe", "bert").stdout
        self.assertRegex(described, r"Preemptions:\s+2 \(workers evicted or preempted\)")
        self.assertRegex(described, r"Failures:\s+0 ")
        missing = self.ejob("evict", "bert", "--node", "spot-a", ok=False)
        self.assertEqual(missing.returncode, 8, missing.stderr)
        self.assertIn('has no worker on node "spot-a"', missing.stderr)
        for args, message in [(["--worker", "1", "--node", "spot-b"], "--worker and --node: one or the other"),
                              (["--worker", "1", "--notice"], "--notice drills a local job"),
                              ([], "--worker or --node: what to evict")]:
            p = self.ejob("evict", "bert", *args, ok=False)
            self.assertEqual(p.returncode, 2, (args, p.stderr))
            self.assertIn(message, p.stderr)

    def test_logs_of_every_worker_prefixed_in_order(self):
        self.submit(workers="1:12")
        self.scale("bert", 3)
        self.say("bert-worker-2", "two a", "two b")
        self.say("bert-worker-0", "zero a", "zero b", "zero c")
        self.say("bert-worker-1", "one a")
        out = self.ejob("logs", "bert").stdout
        self.assertEqual(out, "[worker-0] zero a\n[worker-0] zero b\n[worker-0] zero c\n[worker-1] one a\n"
                              "[worker-2] two a\n[worker-2] two b\n")
        self.assertEqual(self.ejob("logs", "bert", "--tail", "1", "-w", "0", "-w", "2").stdout,
                         "[worker-0] zero c\n[worker-2] two b\n")
        self.assertEqual(self.ejob("logs", "bert", "--no-prefix", "--worker", "1").stdout, "one a\n")
        stamped = self.ejob("logs", "bert", "--timestamps", "-w", "1").stdout
        self.assertRegex(stamped, r"^\[worker-1\] \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z one a\n$")
        self.assertEqual(self.ejob("logs", "bert", "--since", "1h", "-w", "1").stdout, "[worker-1] one a\n")
        colored = self.ejob("logs", "bert", "--color", "always", "-w", "1").stdout
        self.assertEqual(colored, "\033[33m[worker-1]\033[0m one a\n")
        requests = [r["path"] for r in self.server.ctl("requests") if r["path"].endswith("/log")]
        self.assertIn("/api/v1/namespaces/elastic-job/pods/bert-worker-1/log", requests)
        # More workers than log requests at a time: still every one, in order.
        self.scale("bert", 12)
        for i in range(3, 12):
            self.say(f"bert-worker-{i}", f"w{i}")
        out = self.ejob("logs", "bert", "--tail", "1").stdout
        self.assertEqual(out, "[worker-0] zero c\n[worker-1] one a\n[worker-2] two b\n" +
                         "".join(f"[worker-{i}] w{i}\n" for i in range(3, 12)))

    def test_logs_previous_and_unstarted_workers_are_noted(self):
        self.submit()
        self.scale("bert", 2)
        self.say("bert-worker-1", "before the restart")
        self.pod_phase("bert-worker-1", "Running", restarts=1)
        self.say("bert-worker-1", "after the restart")
        p = self.ejob("logs", "bert", "-p")
        self.assertEqual(p.stdout, "[worker-1] before the restart\n")
        self.assertEqual(p.stderr, "ejob: worker-0 has no previous container (it has not restarted)\n")
        self.assertEqual(self.ejob("logs", "bert", "-w", "1").stdout, "[worker-1] after the restart\n")

    def test_describe_a_job_no_operator_acts_on(self):
        # No ElasticJob operator: the job has no status and no pods, as on a fresh cluster.
        self.server.ctl("config", {"operator": False})
        self.submit()
        [job] = self.server.objects("ElasticJob")
        self.assertNotIn("status", job)
        p = self.ejob("describe", "bert")
        self.assertRegex(p.stdout, r"\nWorkers: +min 1, max 3, desired \S+; active 0, succeeded 0, failed 0\n")
        for fmt in ("yaml", "json"):
            self.assertIn("bert", self.ejob("describe", "bert", "-o", fmt).stdout)

    def test_logs_errors(self):
        p = self.ejob("logs", "bert", ok=False)
        self.assertEqual(p.returncode, 8)
        self.assertIn("`ejob install-crds`", p.stderr)
        self.submit()
        p = self.ejob("logs", "nope", ok=False)
        self.assertEqual((p.returncode, p.stderr), (8, 'ejob: error: elasticjob "nope" not found in namespace elastic-job\n'))
        for args, message in [(["--since", "5x"], 'ejob: error: --since: time: unknown unit "x" in duration "5x"\n'),
                              (["--since", "1m", "--since-time", "2024-01-01T00:00:00Z"],
                               "ejob: error: --since and --since-time exclude each other\n"),
                              (["-p", "-f"], "ejob: error: -p/--previous and -f/--follow exclude each other\n"),
                              (["--color", "blue"], "ejob: error: --color must be auto, always or never, got blue\n"),
                              (["-c", "sidecar"], "ejob: error: container sidecar is not valid for pod bert-worker-0: "
                                                  "choose one of [elasticjob-worker]\n")]:
            p = self.ejob("logs", "bert", *args, ok=False)
            self.assertEqual((p.returncode, p.stderr), (2, message), args)

    def test_logs_a_refused_stream_ends_the_follow(self):
        # A user who may read pods but not pods/log: -f ends with the server's refusal (exit 6)
        # instead of printing it and waiting for the job, as kubectl logs -f ends.
        self.submit()
        self.say("bert-worker-0", "zero 1")
        message = ('ejob: error: pods "bert-worker-0" is forbidden: User "pod-reader" cannot get resource '
                   '"pods/log" in API group "" in the namespace "elastic-job"\n')
        for follow in ([], ["-f"]):
            p = self.ejob("logs", "bert", "--worker", "0", "--context", "pod-reader-token", *follow, ok=False)
            self.assertEqual((p.returncode, p.stderr.splitlines()[-1] + "\n"), (6, message), follow)

    def test_logs_follow_the_job_through_scale_out_restart_and_its_end(self):
        self.submit()
        self.say("bert-worker-0", "zero 1")
        p = subprocess.Popen([EJOB, "logs", "bert", "-f"], env=self.env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        try:
            lines = []

            def read_until(line):
                while line not in lines:
                    got = p.stdout.readline()
                    if not got:
                        self.fail(f"the stream ended before {line!r}; had {lines}")
                    lines.append(got.rstrip("\n"))

            read_until("[worker-0] zero 1")
            self.scale("bert", 2)  # scale-out: worker-1 is followed from its start
            self.say("bert-worker-1", "one 1")
            read_until("[worker-1] one 1")
            self.say("bert-worker-0", "zero 2")
            read_until("[worker-0] zero 2")
            self.pod_phase("bert-worker-1", "Running", restarts=1)  # restarted in place
            self.say("bert-worker-1", "one again")
            read_until("[worker-1] one again")
            self.say("bert-worker-0", "zero last")
            read_until("[worker-0] zero last")
            self.pod_phase("bert-worker-0", "Succeeded")
            self.pod_phase("bert-worker-1", "Succeeded")
            out, err = p.communicate(timeout=60)
        finally:
            p.kill()
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(out, "")
        self.assertEqual(lines.count("[worker-1] one 1"), 1, lines)
        self.assertEqual(err, 'ejob: worker-1 restarted (restart 1)\nejob: elasticjob "bert" succeeded\n')

    def test_logs_follow_tries_a_refused_stream_again_when_the_pod_changes(self):
        # worker-0's first stream is refused as a kubelet refuses a container it has not
        # started yet (while the pod's status may say Running); when the pod changes (the
        # container started) -f asks again and follows it.
        self.submit()
        self.server.ctl("faults", {"methods": ["GET"], "path": "/bert-worker-0/log$", "kinds": ["400"],
                                   "times": 1})
        p = subprocess.Popen([EJOB, "logs", "bert", "-f"], env=self.env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        try:
            self.assertEqual(p.stderr.readline(), "ejob: worker-0: container is waiting to start: "
                                                  "ContainerCreating\n")
            # Started in a later second than the pod was made: an update the server announces
            # (a no-op update is not).
            time.sleep(1.1)
            self.pod_phase("bert-worker-0", "Running", restarts=0)
            self.say("bert-worker-0", "zero 1")
            self.assertEqual(p.stdout.readline(), "[worker-0] zero 1\n")
            self.pod_phase("bert-worker-0", "Succeeded")
            out, err = p.communicate(timeout=60)
        finally:
            p.kill()
        self.assertEqual((p.returncode, out), (0, ""), err)
        self.assertEqual(err, 'ejob: elasticjob "bert" succeeded\n')

    def follow_then_delete(self, faults=None):
        """`logs -f` of a working job, the job deleted once its first line is out: -f ends 0
        saying so. `faults` are set on the test server just before -f starts."""
        self.submit()
        self.say("bert-worker-0", "working")
        if faults:
            self.server.ctl("faults", faults)
        p = subprocess.Popen([EJOB, "logs", "bert", "-f"], env=self.env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        try:
            self.assertEqual(p.stdout.readline(), "[worker-0] working\n")
            self.ejob("delete", "bert")
            out, err = p.communicate(timeout=60)
        finally:
            p.kill()
        self.assertEqual(p.returncode, 0, err)
        self.assertTrue(err.endswith('ejob: elasticjob "bert" was deleted\n'), err)

    def test_logs_follow_ends_when_the_job_is_deleted(self):
        self.follow_then_delete()

    def test_logs_follow_sees_a_deletion_before_its_job_watch_connects(self):
        """The job is deleted while -f's watch of it waits out a 503's Retry-After: the watch
        starts from the version -f began with, so the deletion is still seen (a fresh list would
        not show the job, and -f would wait for an end that never comes)."""
        self.follow_then_delete({"methods": ["GET"], "path": "/elasticjobs$", "kinds": ["503"],
                                 "times": 1, "retry_after": 2})

    def test_describe_shows_workers_restarts_evictions_and_events(self):
        self.submit(workers="1:4")
        self.scale("bert", 3)
        self.pod_phase("bert-worker-1", "Running", restarts=2)
        self.pod_phase("bert-worker-2", "Failed", exitCode=137, reason="Evicted",
                       message="The node was low on resource: memory.")
        # A worker evicted earlier and gone since: only the kubelet's event tells of it.
        self.kubectl("create", "-n", self.NS, "-f", "-", stdin=json.dumps({
            "apiVersion": "v1", "kind": "Event", "metadata": {"name": "bert-worker-3.1"},
            "involvedObject": {"kind": "Pod", "name": "bert-worker-3", "namespace": self.NS, "uid": "gone-uid"},
            "reason": "Preempted", "message": "Preempted by a pod on node spot-1", "type": "Warning",
            "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:00:00Z", "count": 1,
            "source": {"component": "default-scheduler"}}))
        # Another job's event is not shown.
        self.kubectl("create", "-n", self.NS, "-f", "-", stdin=json.dumps({
            "apiVersion": "v1", "kind": "Event", "metadata": {"name": "other.1"},
            "involvedObject": {"kind": "Pod", "name": "bertha-worker-0", "namespace": self.NS},
            "reason": "Evicted", "message": "not ours", "type": "Warning", "count": 1,
            "source": {"component": "kubelet"}}))
        out = self.ejob("describe", "bert").stdout
        fields = dict(line.split(":", 1) for line in out.splitlines() if not line.startswith(" ") and ":" in line)
        self.assertEqual(fields["Name"].strip(), "bert")
        self.assertEqual(fields["Status"].strip(), "Failed")  # a worker failed (evicted)
        self.assertEqual(fields["Image"].strip(), "worker:1")
        self.assertEqual(fields["Args"].strip(), "--nproc_per_node=1 train.py")
        self.assertEqual(fields["Workers"].strip(), "min 1, max 4, desired 3; active 2, succeeded 0, failed 1")
        self.assertEqual(fields["Rendezvous"].strip(), "bert-etcd-service:2379 (pod bert-etcd: Running)")
        self.assertEqual(fields["Restarts"].strip(), "2 (containers restarted in the current pods)")
        pods = [l.split() for l in section(out, "Worker pods")]
        self.assertEqual(pods[0], ["NAME", "STATUS", "RESTARTS", "NODE", "IP", "AGE"])
        self.assertEqual([r[:3] for r in pods[1:]], [["bert-worker-0", "Running", "0"],
                                                     ["bert-worker-1", "Running", "2"],
                                                     ["bert-worker-2", "Evicted", "0"]])
        evictions = section(out, "Evictions")
        self.assertEqual(evictions[0].split(), ["POD", "AGE", "WHY"])
        self.assertEqual([l.split(None, 2)[2] for l in evictions[1:]],
                         ["Preempted: Preempted by a pod on node spot-1", "Evicted: The node was low on resource: memory."])
        self.assertEqual([l.split()[0] for l in evictions[1:]], ["worker-3", "worker-2"])
        events = section(out, "Events")
        self.assertEqual(events[0].split(), ["TYPE", "REASON", "AGE", "FROM", "OBJECT", "MESSAGE"])
        messages = [" ".join(l.split()[5:]) for l in events[1:]]
        self.assertEqual(messages[0], "Preempted by a pod on node spot-1")
        self.assertEqual(sorted(messages[1:]), sorted([f"Created {k}: bert-worker-{i}" for i in range(3)
                                                       for k in ("pod", "service")]))
        self.assertNotIn("not ours", out)
        listed = json.loads(self.ejob("describe", "bert", "-o", "json").stdout)
        self.assertEqual([o["kind"] for o in listed["items"]][:5], ["ElasticJob", "Pod", "Pod", "Pod", "Pod"])
        p = self.ejob("describe", "nope", ok=False)
        self.assertEqual((p.returncode, p.stderr), (8, 'ejob: error: elasticjob "nope" not found in namespace elastic-job\n'))


class WaitTest(JobBase):
    """`ejob submit --wait`: exit statuses that tell succeeded, failed, preempted and timed out
    apart (docs/exit-codes.md). The test ends the job by playing the kubelet."""

    def submit_wait(self, *extra):
        self.install_crds()
        p = subprocess.Popen([EJOB, "submit", "--name", "bert", "--exact-name", "--image", "worker:1",
                              "--workers", "2", *extra, "--", "train.py"], env=self.env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.wait_for(lambda: len([o for o in self.server.objects("Pod")
                                   if o["metadata"]["name"].startswith("bert-worker-")]) == 2, "the workers")
        self.server.ctl("sync")
        return p

    def finish(self, p):
        try:
            out, err = p.communicate(timeout=60)
        finally:
            p.kill()
        return p.returncode, out, err

    def test_wait_succeeded(self):
        p = self.submit_wait("--wait")
        self.pod_phase("bert-worker-0", "Succeeded")
        self.pod_phase("bert-worker-1", "Succeeded")
        rc, out, err = self.finish(p)
        self.assertEqual(rc, 0, err)
        self.assertTrue(out.startswith('elasticjob "bert" submitted to namespace elastic-job'), out)
        self.assertEqual(err.splitlines()[-1], 'ejob: elasticjob "bert" succeeded')
        self.assertIn('ejob: elasticjob "bert" is Succeeded', err)

    def test_wait_failed(self):
        p = self.submit_wait("--wait", "-o", "name")
        self.pod_phase("bert-worker-1", "Failed", exitCode=1)
        rc, out, err = self.finish(p)
        self.assertEqual(rc, 1, err)
        self.assertEqual(sorted(out.splitlines()), ["elasticjob.elastic.pytorch.org/bert", "pod/bert-etcd",
                                                    "service/bert-etcd-service"])  # -o stays clean
        self.assertRegex(err.splitlines()[-1],
                         r'^ejob: error: elasticjob "bert" failed after \d+s: ElasticJob bert has failed because 1 '
                         r"Worker replica\(s\) failed\. \(see `ejob describe bert -n elastic-job` and "
                         r"`ejob logs bert -n elastic-job`\)$")

    def test_wait_preempted(self):
        p = self.submit_wait("--wait")
        self.pod_phase("bert-worker-1", "Failed", exitCode=143, disruption="TerminationByKubelet",
                       message="Pod was terminated in response to imminent node shutdown.")
        rc, out, err = self.finish(p)
        self.assertEqual(rc, 10, err)
        self.assertIn("when its workers were preempted or evicted (worker-1 TerminationByKubelet: Pod was terminated "
                      "in response to imminent node shutdown.)", err)

    def test_wait_gives_up_after_max_preemptions(self):
        """--max-preemptions 1: the second worker preempted ends the wait with exit 10 while the
        job goes on (a first one does not)."""
        p = self.submit_wait("--wait", "--max-preemptions", "1")
        self.ejob("evict", "bert", "--worker", "0")
        self.server.ctl("sync")
        self.wait_for(lambda: "bert-worker-0" in [o["metadata"]["name"] for o in self.server.objects("Pod")],
                      "worker 0 made again")
        self.assertIsNone(p.poll(), "the wait ended after one preemption")
        self.ejob("evict", "bert", "--worker", "1")
        rc, out, err = self.finish(p)
        self.assertEqual(rc, 10, err)
        self.assertIn('elasticjob "bert" lost 2 workers to preemptions or evictions in', err)
        self.assertIn("more than --max-preemptions 1; it goes on running: `ejob delete bert -n elastic-job`", err)
        self.assertEqual(len(self.server.objects("ElasticJob")), 1)
        bad = self.ejob("submit", "--image", "w:1", "--wait", "--max-preemptions", "-1", "--", "t.py", ok=False)
        self.assertEqual(bad.returncode, 2, bad.stderr)

    def test_wait_timed_out_leaves_the_job(self):
        p = self.submit_wait("--wait", "--timeout", "1s")
        rc, out, err = self.finish(p)
        self.assertEqual(rc, 9, err)
        # The status the job had when the 1 s ran out depends on how fast the controller acted.
        self.assertRegex(err, r'ejob: error: elasticjob "bert" had not ended after 1s \(status (Pending|Running)\); '
                              r"it is still there: `ejob delete bert -n elastic-job` removes it")
        self.assertEqual(len(self.server.objects("ElasticJob")), 1)

    def test_wait_says_what_it_waits_for(self):
        self.env["EJOB_WAIT_REPORT_INTERVAL"] = "1"
        p = self.submit_wait("--wait", "--timeout", "3s")
        rc, out, err = self.finish(p)
        self.assertEqual(rc, 9, err)
        self.assertRegex(err, r'ejob: still waiting for elasticjob "bert" to end after \d+s '
                              r'\((Pending|Running); [0-2] of 2 workers running\)\n')

    def test_wait_names_a_job_nothing_acts_on(self):
        # No ElasticJob operator: within the first report the wait says so, and why.
        self.env["EJOB_WAIT_REPORT_INTERVAL"] = "1"
        self.server.ctl("config", {"operator": False})
        self.install_crds()
        p = self.ejob("submit", "--name", "bert", "--exact-name", *JOB[:4], "--wait", "--timeout", "3s",
                      *JOB[4:], ok=False)
        self.assertEqual(p.returncode, 9, p.stderr)
        self.assertRegex(p.stderr, r'ejob: elasticjob "bert" has no status and no pods after \d+s: nothing acts on '
                                   r"it; the ElasticJob operator is not installed \(no Deployment "
                                   r"elastic-job/elastic-job-k8s-controller; install its CRD with `ejob install-crds` "
                                   r"and its operator from [^)]*\)\n")

    def test_wait_job_deleted_meanwhile(self):
        p = self.submit_wait("--wait")
        self.ejob("delete", "bert")
        rc, out, err = self.finish(p)
        self.assertEqual(rc, 8, err)
        self.assertIn('elasticjob "bert" was deleted while waiting for it to end', err)

    def test_wait_flag_errors(self):
        for args, message in [(["--wait", "--dry-run=server"], "ejob: error: --wait cannot wait for a --dry-run\n"),
                              (["--wait", "--timeout", "soon"],
                               'ejob: error: --timeout takes seconds or a duration such as 90m, got "soon" '
                               '(time: invalid duration "soon")\n')]:
            p = self.ejob("submit", "--image", "w:1", *args, "--", "train.py", ok=False)
            self.assertEqual((p.returncode, p.stderr), (2, message), args)
        self.assertEqual(self.server.objects("ElasticJob"), [])


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--ejob", required=True)
    parser.add_argument("--kubectl", default="kubectl")
    args, rest = parser.parse_known_args()
    EJOB = os.path.abspath(args.ejob)
    KUBECTL = args.kubectl
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
