#!/usr/bin/env python3
"""Every engine end to end against the Kubernetes API test server with the real CRDs
(../shared/crds, loaded as files) and the scripted operators (controller.py, kubeflow.py):
custom resources pruned, defaulted and validated by their schemas; submit with `--engine
auto` choosing what the cluster serves (asking once per context); logs, describe, --wait,
evict, scale and delete on PyTorchJob and TrainJob; a TrainJob runtime that does not exist;
`ejob doctor`; and every engine's job round-tripped (each field ejob sends comes back).

    engines_test.py --ejob PATH [--kubectl PATH] [unittest args]
"""

import argparse
import json
import os
import subprocess
import sys
import unittest

import cli_test
from cli_test import Base, Server

PYTORCH = ["kubeflow.org_pytorchjobs.yaml"]
TRAINER = ["jobset.x-k8s.io_jobsets.yaml", "trainer.kubeflow.org_trainjobs.yaml",
           "trainer.kubeflow.org_trainingruntimes.yaml",
           "trainer.kubeflow.org_clustertrainingruntimes.yaml",
           "trainer.kubeflow.org_torch-distributed.clustertrainingruntime.yaml"]
NS = "elastic-job"


class EngineBase(Base):
    CRDS = PYTORCH + TRAINER
    NAMESPACES = (NS,)

    def setUp(self):
        self.server = Server(namespaces=self.NAMESPACES, crds=self.CRDS)
        self.env = dict(os.environ, KUBECONFIG=self.server.kubeconfig, HOME=self.server.dir,
                        KUBECACHEDIR=os.path.join(self.server.dir, "cache"), EJOB_CONFIG=os.devnull,
                        EJOB_WAIT_REPORT_INTERVAL="1")

    def submit(self, name, *flags):
        out = self.ejob("submit", "--name", name, "--exact-name", "--image", "worker:1", *flags,
                        "--", "train.py", "--lr", "0.1")
        self.server.ctl("sync")
        return out

    def pods(self, prefix):
        return sorted(o["metadata"]["name"] for o in self.server.objects("Pod")
                      if o["metadata"]["name"].startswith(prefix))

    def say(self, pod, container, *lines):
        self.server.ctl("logs", {"namespace": NS, "pod": pod, "container": container,
                                 "lines": [{"text": t} for t in lines], "done": True})

    def phase(self, pod, phase, **extra):
        self.server.ctl("pod-phase", dict({"namespace": NS, "name": pod, "phase": phase}, **extra))
        self.server.ctl("sync")

    def env_of(self, pod, container):
        obj = next(o for o in self.server.objects("Pod") if o["metadata"]["name"] == pod)
        c = next(c for c in obj["spec"]["containers"] if c["name"] == container)
        return {e["name"]: e.get("value") for e in c.get("env", [])}


class SchemaTest(EngineBase):
    """The server treats custom resources as kube-apiserver does."""

    def apply(self, obj, ok=True):
        return self.kubectl("apply", "--server-side", "-f", "-", stdin=json.dumps(obj), ok=ok)

    def test_unknown_fields_pruned_defaults_set_bad_values_refused(self):
        job = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
               "metadata": {"name": "t", "namespace": NS},
               "spec": {"runtimeRef": {"name": "torch-distributed"}, "bogus": 1,
                        "trainer": {"image": "w:1", "numNodes": 1, "nonsense": "x"}}}
        self.apply(job)
        [stored] = self.server.objects("TrainJob")
        self.assertNotIn("bogus", stored["spec"])
        self.assertNotIn("nonsense", stored["spec"]["trainer"])
        self.assertEqual(stored["spec"]["trainer"]["image"], "w:1")
        # runtimeRef's defaults (apiGroup, kind) come from the schema.
        self.assertEqual(stored["spec"]["runtimeRef"]["kind"], "ClusterTrainingRuntime")
        self.assertEqual(stored["spec"]["runtimeRef"]["apiGroup"], "trainer.kubeflow.org")
        bad = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "p", "namespace": NS},
               "spec": {"elasticPolicy": {"minReplicas": "two"}}}
        p = self.apply(bad, ok=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("spec.elasticPolicy.minReplicas", p.stderr)
        self.assertIn("spec.pytorchReplicaSpecs: Required value", p.stderr)
        self.assertEqual(self.server.objects("PyTorchJob"), [])

    def test_status_is_the_subresource_s(self):
        self.submit("pj", "--engine", "pytorchjob", "--workers", "1:2")
        # The main resource ignores status; only the operator's /status writes reach it.
        self.kubectl("patch", "pytorchjob", "pj", "-n", NS, "--type", "merge", "-p",
                     json.dumps({"status": {"conditions": []}}))
        conditions = self.server.objects("PyTorchJob")[0]["status"]["conditions"]
        self.assertIn("Created", [c["type"] for c in conditions])


class PyTorchJobTest(EngineBase):
    def test_submit_logs_describe_wait(self):
        out = self.submit("pj", "--workers", "2:4", "--set", "workers.replicas=2")
        self.assertTrue(out.stdout.startswith('pytorchjob "pj" submitted to namespace elastic-job'), out.stdout)
        self.assertEqual(self.pods("pj-worker-"), ["pj-worker-0", "pj-worker-1"])
        env = self.env_of("pj-worker-1", "pytorch")
        self.assertEqual((env["PET_RDZV_BACKEND"], env["PET_RDZV_ENDPOINT"], env["PET_NNODES"]),
                         ("c10d", "pj-worker-0:29400", "2:4"))
        listed = self.ejob("list").stdout.splitlines()
        self.assertEqual(listed[1].split()[-1], "pytorchjob")
        self.say("pj-worker-0", "pytorch", "step 1", "step 2")
        self.say("pj-worker-1", "pytorch", "step 1")
        self.assertEqual(self.ejob("logs", "pj").stdout,
                         "[worker-0] step 1\n[worker-0] step 2\n[worker-1] step 1\n")
        described = self.ejob("describe", "pj").stdout
        self.assertIn("Engine:          pytorchjob", described)
        self.assertIn("PyTorchJobRunning", described)
        self.assertIn("c10d pj-worker-0:29400", described)
        for pod in ("pj-worker-0", "pj-worker-1"):
            self.phase(pod, "Succeeded", exitCode=0)
        self.assertIn("Succeeded", self.ejob("list").stdout)

    def test_wait_failed_and_preempted(self):
        p = subprocess.Popen([cli_test.EJOB, "submit", "--name", "pj", "--exact-name", "--image", "w:1",
                              "--workers", "2", "--engine", "pytorchjob", "--wait", "--", "train.py"],
                             env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.wait_for_pods("pj-worker-", 2)
        self.phase("pj-worker-1", "Failed", exitCode=1)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 1, err)
        self.assertIn('pytorchjob "pj" failed after', err)
        self.assertIn("1 Worker replica(s) failed", err)

    def test_scale_evict_delete(self):
        self.submit("pj", "--workers", "1:3")
        self.assertEqual(self.ejob("scale", "pj", "--workers", "3").stdout, 'pytorchjob "pj" scaled to 3 workers\n')
        self.server.ctl("sync")
        self.assertEqual(self.pods("pj-worker-"), ["pj-worker-0", "pj-worker-1", "pj-worker-2"])
        p = self.ejob("scale", "pj", "--workers", "4", ok=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("outside", p.stderr)
        self.ejob("evict", "pj", "--worker", "2")
        self.server.ctl("sync")
        self.assertIn("pj-worker-2", self.pods("pj-worker-"))  # made again by the operator
        self.assertEqual(self.ejob("delete", "pj", "--wait").stdout, 'pytorchjob.kubeflow.org "pj" deleted\n')
        self.assertEqual(self.pods("pj-"), [])
        self.assertEqual(self.server.objects("PyTorchJob"), [])


class TrainJobTest(EngineBase):
    def test_submit_logs_describe_wait_delete(self):
        p = subprocess.Popen([cli_test.EJOB, "submit", "--name", "tj", "--exact-name", "--image", "w:1",
                              "--workers", "2", "--engine", "trainjob", "--wait", "--", "train.py"],
                             env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.wait_for_pods("tj-node-0-", 2)
        pods = self.pods("tj-node-0-")
        env = self.env_of(pods[1], "node")
        self.assertEqual((env["PET_NNODES"], env["PET_NODE_RANK"], env["PET_MASTER_ADDR"], env["PET_MASTER_PORT"]),
                         ("2", "1", "tj-node-0-0.tj", "29500"))
        self.say(pods[0], "node", "rank 0 up")
        self.say(pods[1], "node", "rank 1 up")
        self.assertEqual(self.ejob("logs", "tj").stdout, "[node-0] rank 0 up\n[node-1] rank 1 up\n")
        described = self.ejob("describe", "tj").stdout
        self.assertIn("JobSet   tj ", described)
        self.assertIn("Job      tj-node-0 ", described)
        self.assertIn("Status:          Running", described)
        for pod in pods:
            self.phase(pod, "Succeeded", exitCode=0)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn('trainjob "tj" succeeded', err)
        self.ejob("delete", "tj", "--wait")
        for kind in ("TrainJob", "JobSet", "Job", "Pod"):
            self.assertEqual([o["metadata"]["name"] for o in self.server.objects(kind)], [], kind)

    def test_logs_follow_ends_with_the_trainjob(self):
        self.submit("tj", "--engine", "trainjob", "--workers", "2")
        pods = self.pods("tj-node-0-")
        follow = subprocess.Popen([cli_test.EJOB, "logs", "tj", "-f"], env=self.env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.say(pods[0], "node", "epoch 1")
        self.say(pods[1], "node", "epoch 1")
        for pod in pods:
            self.phase(pod, "Succeeded", exitCode=0)
        out, err = follow.communicate(timeout=60)
        self.assertEqual(follow.returncode, 0, err)
        self.assertIn("[node-0] epoch 1", out)
        self.assertIn("[node-1] epoch 1", out)
        self.assertIn('trainjob "tj" succeeded', err)

    def test_missing_runtime_and_elastic_range_create_nothing(self):
        p = self.ejob("submit", "--engine", "trainjob", "--image", "w:1", "--workers", "2",
                      "--set", "trainjob.runtime.name=nope", "--", "train.py", ok=False)
        self.assertEqual(p.returncode, 8)
        self.assertIn('ClusterTrainingRuntime "nope" does not exist', p.stderr)
        p = self.ejob("submit", "--engine", "trainjob", "--image", "w:1", "--workers", "1:4", "--", "train.py", ok=False)
        self.assertEqual(p.returncode, 3)
        self.assertIn("workers: engine trainjob runs a static world size", p.stderr)
        self.assertEqual(self.server.objects("TrainJob"), [])
        p = self.ejob("scale", "x", "--workers", "2", ok=False)
        self.assertEqual(p.returncode, 8)


class AutoTest(EngineBase):
    CRDS = PYTORCH

    def test_auto_asks_once_per_context_and_says_why(self):
        self.ejob("install-crds")
        first = self.ejob("submit", "--image", "w:1", "--workers", "2", "--debug", "--", "train.py")
        self.assertIn("/apis 200", first.stderr)
        self.assertIn("ejob: note: engine pytorchjob (the cluster serves pytorchjob, elasticjob", first.stderr)
        second = self.ejob("submit", "--image", "w:1", "--workers", "2", "--debug", "--", "train.py")
        self.assertNotIn("/apis 200", second.stderr)  # the cached answer: no discovery request
        self.assertEqual([o["kind"] for o in self.server.objects("PyTorchJob")], ["PyTorchJob"] * 2)
        p = self.ejob("submit", "--engine", "trainjob", "--image", "w:1", "--", "train.py", ok=False)
        self.assertEqual(p.returncode, 8)
        self.assertIn("engine trainjob: the cluster does not serve TrainJob", p.stderr)
        self.assertIn("kubeflow/trainer", p.stderr)


class RoundTripTest(EngineBase):
    """What ejob sends of each engine's job is what the server keeps: no field pruned."""

    def test_every_engine_round_trips(self):
        self.ejob("install-crds")
        flags = ["--image", "w:1", "--gpus", "1", "--cpu", "2", "--memory", "4Gi", "--spot", "any",
                 "--blob", "acct1/data:/data", "-e", "A=1", "--set", "serviceAccountName=trainer",
                 "--set", "nodeSelector.pool=gpu", "--set", "annotations.team=ml", "--set", "imagePullSecrets[0]=reg"]
        for engine, workers in (("elasticjob", "1:2"), ("pytorchjob", "1:2"), ("trainjob", "2")):
            name = f"rt-{engine}"
            args = ["--name", name, "--exact-name", "--engine", engine, "--workers", workers, *flags, "--", "t.py"]
            sent = [o for o in yaml_docs(self.ejob("submit", "--dry-run=client", "-o", "json", *args).stdout)]
            kept = json.loads(self.ejob("submit", "-o", "json", *args).stdout)
            kept = kept.get("items", [kept])
            for want, got in zip(sent, kept):
                missing = list(lost_fields(want.get("spec", {}), got.get("spec", {}), "spec"))
                self.assertEqual(missing, [], f"{engine} {want['kind']}")


def yaml_docs(text):
    data = json.loads(text)
    return data.get("items", [data])


def lost_fields(sent, kept, path):
    """Each path of `sent` that `kept` lacks or holds differently."""
    if isinstance(sent, dict):
        for k, v in sent.items():
            if not isinstance(kept, dict) or k not in kept:
                yield f"{path}.{k}"
            else:
                yield from lost_fields(v, kept[k], f"{path}.{k}")
    elif isinstance(sent, list):
        if not isinstance(kept, list) or len(kept) != len(sent):
            yield path
        else:
            for i, (a, b) in enumerate(zip(sent, kept)):
                yield from lost_fields(a, b, f"{path}[{i}]")
    elif sent != kept:
        yield path


class DoctorTest(EngineBase):
    NAMESPACES = (NS, "kubeflow")

    def operator(self, ns, name):
        dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns},
               "spec": {"selector": {"matchLabels": {"app": name}},
                        "template": {"metadata": {"labels": {"app": name}},
                                     "spec": {"containers": [{"name": "manager", "image": "op:1"}]}}}}
        self.kubectl("apply", "--server-side", "-f", "-", stdin=json.dumps(dep))
        self.server.ctl("status", {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": ns,
                                   "name": name, "status": {"replicas": 1, "readyReplicas": 1}})

    def test_doctor_says_what_the_context_offers(self):
        self.operator("kubeflow", "training-operator")
        p = self.ejob("doctor")
        lines = {line.split()[0] + (" " + line.split()[1] if line.startswith(("engine", "namespace", "spot", "blob")) else ""):
                 line for line in p.stdout.splitlines()}
        self.assertIn("ok", lines["engine pytorchjob"])
        self.assertIn("kubeflow/training-operator ready", lines["engine pytorchjob"])
        self.assertIn("problem", lines["engine trainjob"])  # served, but no controller
        self.assertIn("warning", lines["engine elasticjob"])  # not served
        self.assertIn("you may create pytorchjobs", lines["namespace elastic-job"])
        self.server.ctl("config", {"forbidden": ["create pytorchjobs"]})
        p = self.ejob("doctor", ok=False)
        self.assertEqual(p.returncode, 8)
        self.assertIn("cannot run a job", p.stderr)


def wait_for_pods(self, prefix, count):
    self.server.ctl("sync")
    import time
    deadline = time.monotonic() + 30
    while len(self.pods(prefix)) < count:
        if time.monotonic() > deadline:
            self.fail(f"no {count} pods {prefix}*")
        time.sleep(0.05)
        self.server.ctl("sync")


EngineBase.wait_for_pods = wait_for_pods

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--ejob", required=True)
    parser.add_argument("--kubectl", default="kubectl")
    args, rest = parser.parse_known_args()
    cli_test.EJOB = os.path.abspath(args.ejob)
    cli_test.KUBECTL = args.kubectl
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
