"""Controllers of the Kubernetes API test server.

- CRDs: become Established (after Store.crd_establish_delay seconds) and their resources are
  served from then on.
- ElasticJob: the real controller's behaviour (protocols/torchelastic-etcd.md §2.4, §2.5):
  pods and headless Services NAME-worker-I with the kubeflow labels, owner references, the
  rendezvous args prepended to every container, scale in/out, status conditions, and the
  events kubeflow/common's pod and service control record on the job (SuccessfulCreatePod
  "Created pod: NAME", SuccessfulDeletePod, SuccessfulCreateService).
"""

import copy
import queue
import threading

from kubeflow import Kubeflow
from store import ApiError, now_rfc3339

GROUP = "elastic.pytorch.org"
KINDS = {"ElasticJob": "elasticjob", "PyTorchJob": "pytorchjob", "TrainJob": "trainjob"}
MANAGER = "elastic-job-k8s-controller"


class Controller:
    def __init__(self, store, config):
        self.store = store
        self.config = config  # the server's /_test/config: "operator": False = none installed
        self.queue = queue.Queue()
        self.idle = threading.Condition()
        self.busy = 0
        self.kubeflow = Kubeflow(store, self.record_event)
        store.hooks.append(self.on_change)

    def start(self):
        threading.Thread(target=self.loop, daemon=True).start()

    # ---- events ------------------------------------------------------------------------------
    def on_change(self, etype, res, obj):
        if res.kind == "CustomResourceDefinition" and etype != "DELETED":
            if not established(obj):
                self.enqueue(("crd", obj["metadata"]["name"]), self.store.crd_establish_delay)
        elif not self.config.get("operator", True):
            return  # a cluster without the ElasticJob operator: jobs get no pods and no status
        elif res.kind in KINDS and etype != "DELETED" and self.runs(KINDS[res.kind]):
            self.enqueue((KINDS[res.kind], obj["metadata"]["namespace"], obj["metadata"]["name"]))
        elif res.kind == "Pod":
            self.on_pod(obj)

    def runs(self, engine):
        """Whether this cluster runs the engine's operator (/_test/config "operators")."""
        return self.config.get("operators", {}).get(engine, True)

    def on_pod(self, pod):
        ns = pod["metadata"].get("namespace")
        for ref in pod["metadata"].get("ownerReferences", []):
            if ref.get("kind") in ("ElasticJob", "PyTorchJob") and ref.get("controller"):
                self.enqueue((KINDS[ref["kind"]], ns, ref["name"]))
        jobset = pod["metadata"].get("labels", {}).get("jobset.sigs.k8s.io/jobset-name")
        if jobset and self.runs("trainjob"):
            self.enqueue(("trainjob", ns, jobset))

    def admit(self, res, ns, obj):
        """The operators' validating webhooks, where they are installed."""
        if res.kind == "TrainJob" and self.runs("trainjob") and self.config.get("operator", True):
            self.kubeflow.admit_trainjob(ns, obj)

    def enqueue(self, item, delay=0.0):
        with self.idle:
            self.busy += 1
        if delay:
            threading.Timer(delay, self.queue.put, (item,)).start()
        else:
            self.queue.put(item)

    def wait_idle(self):
        with self.idle:
            self.idle.wait_for(lambda: self.busy == 0, timeout=10)

    def loop(self):
        while True:
            item = self.queue.get()
            try:
                with self.store.lock:
                    if item[0] == "crd":
                        self.establish(item[1])
                    elif item[0] == "pytorchjob":
                        self.kubeflow.reconcile_pytorchjob(item[1], item[2])
                    elif item[0] == "trainjob":
                        self.kubeflow.reconcile_trainjob(item[1], item[2])
                    else:
                        self.reconcile(item[1], item[2])
            except (ApiError, KeyError):
                pass  # the object went away meanwhile; a later event re-queues it
            finally:
                with self.idle:
                    self.busy -= 1
                    self.idle.notify_all()

    # ---- CRDs --------------------------------------------------------------------------------
    def establish(self, name):
        store = self.store
        res = store.resource("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        crd = store.get(res, None, name)
        new = copy.deepcopy(crd)
        t = now_rfc3339()
        new["status"] = {
            "acceptedNames": crd["spec"]["names"],
            "storedVersions": [v["name"] for v in crd["spec"].get("versions", []) if v.get("storage")],
            "conditions": [
                {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
                 "message": "no conflicts found", "lastTransitionTime": t},
                {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                 "message": "the initial names have been accepted", "lastTransitionTime": t}]}
        store.serve(crd)
        store.commit(res, crd, new, "kube-apiserver", "Update", False)

    # ---- ElasticJob --------------------------------------------------------------------------
    def job_resource(self):
        for res in self.store.served():
            if res.group == GROUP and res.kind == "ElasticJob":
                return res
        raise KeyError("ElasticJob")

    def reconcile(self, ns, name):
        store = self.store
        jres = self.job_resource()
        job = store.get(jres, ns, name)
        if job["metadata"].get("deletionTimestamp"):
            return  # being deleted: the collector takes its pods, nothing is made again
        spec = job.get("spec", {})
        worker = spec.get("replicaSpecs", {}).get("Worker", {})
        replicas = int(worker.get("replicas", 1))
        pres = store.resource("", "v1", "pods")
        sres = store.resource("", "v1", "services")
        pods = {p["metadata"]["name"]: p for p in store.list(pres, ns)[0]
                if owned_by(p, job)}
        for i in range(replicas):
            pod_name = f"{name}-worker-{i}"
            if pod_name not in pods:
                self.create_worker(job, worker, i, pres, sres)
        for pod_name, pod in pods.items():
            index = int(pod["metadata"].get("labels", {}).get("replica-index", "0"))
            if index >= replicas:
                store.delete(pres, ns, pod_name, "Background", False)
                self.record(job, "SuccessfulDeletePod", f"Deleted pod: {pod_name}")
                try:
                    store.delete(sres, ns, pod_name, "Background", False)
                except ApiError:
                    pass
        pods = [p for p in store.list(pres, ns)[0] if owned_by(p, job)]
        self.update_status(jres, job, pods, replicas)

    def create_worker(self, job, worker, index, pres, sres):
        name, ns = job["metadata"]["name"], job["metadata"]["namespace"]
        labels = {"group-name": GROUP, "job-name": name, "replica-type": "worker",
                  "replica-index": str(index)}
        owner = [{"apiVersion": job["apiVersion"], "kind": "ElasticJob", "name": name,
                  "uid": job["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]
        template = copy.deepcopy(worker.get("template", {}))
        pod_meta = template.get("metadata", {})
        pod_spec = template.get("spec", {})
        spec = job["spec"]
        replicas = worker.get("replicas", 1)
        rdzv = [f"--rdzv_backend=etcd", f"--rdzv_endpoint={spec.get('rdzvEndpoint', '')}",
                f"--rdzv_id={name}",
                f"--nnodes={spec.get('minReplicas', replicas)}:{spec.get('maxReplicas', replicas)}"]
        for c in pod_spec.get("containers", []):
            c["args"] = rdzv + c.get("args", [])
        policy = worker.get("restartPolicy", "Never")
        pod_spec["restartPolicy"] = "Never" if policy == "ExitCode" else policy
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": f"{name}-worker-{index}",
                            "labels": dict(pod_meta.get("labels", {}), **labels),
                            "annotations": pod_meta.get("annotations", {}),
                            "ownerReferences": owner},
               "spec": pod_spec}
        svc = {"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": f"{name}-worker-{index}", "labels": labels, "ownerReferences": owner},
               "spec": {"clusterIP": "None", "selector": labels}}
        node = self.schedule(pres)
        if node:
            pod["spec"]["nodeName"] = node
        self.store.create(pres, ns, pod, MANAGER, False)
        self.record(job, "SuccessfulCreatePod", f"Created pod: {name}-worker-{index}")
        try:
            self.store.create(sres, ns, svc, MANAGER, False)
            self.record(job, "SuccessfulCreateService", f"Created service: {name}-worker-{index}")
        except ApiError:
            pass  # the headless Service outlived its pod; keep it

    def schedule(self, pres):
        """kube-scheduler's part, where the cluster has Nodes: the schedulable node (not
        cordoned: spec.unschedulable) with the fewest pods, by name on a tie; None without
        Nodes (pods then stay unscheduled, as they always were here)."""
        nres = self.store.resource("", "v1", "nodes")
        nodes = sorted(n["metadata"]["name"] for n in self.store.list(nres, None)[0]
                       if not n.get("spec", {}).get("unschedulable"))
        if not nodes:
            return None
        load = {n: 0 for n in nodes}
        for p in self.store.list(pres, None)[0]:
            if p.get("spec", {}).get("nodeName") in load:
                load[p["spec"]["nodeName"]] += 1
        return min(nodes, key=lambda n: (load[n], n))

    def record_event(self, obj, kind, reason, message, manager):
        """An event about `obj` (of `kind`), as client-go's recorder of `manager` writes it."""
        meta = obj["metadata"]
        t = now_rfc3339()
        event = {"apiVersion": "v1", "kind": "Event",
                 "metadata": {"name": f"{meta['name']}.{self.store.next_rv():x}"},
                 "involvedObject": {"apiVersion": obj["apiVersion"], "kind": kind, "name": meta["name"],
                                    "namespace": meta["namespace"], "uid": meta["uid"]},
                 "reason": reason, "message": message, "type": "Normal", "count": 1,
                 "firstTimestamp": t, "lastTimestamp": t, "source": {"component": manager}}
        self.store.create(self.store.resource("", "v1", "events"), meta["namespace"], event, manager, False)

    def record(self, job, reason, message, etype="Normal"):
        """An event about the job, as client-go's event recorder writes it."""
        meta = job["metadata"]
        t = now_rfc3339()
        event = {"apiVersion": "v1", "kind": "Event",
                 "metadata": {"name": f"{meta['name']}.{self.store.next_rv():x}"},
                 "involvedObject": {"apiVersion": job["apiVersion"], "kind": "ElasticJob",
                                    "name": meta["name"], "namespace": meta["namespace"],
                                    "uid": meta["uid"]},
                 "reason": reason, "message": message, "type": etype, "count": 1,
                 "firstTimestamp": t, "lastTimestamp": t, "source": {"component": MANAGER}}
        eres = self.store.resource("", "v1", "events")
        self.store.create(eres, meta["namespace"], event, MANAGER, False)

    def update_status(self, jres, job, pods, replicas):
        phases = [p.get("status", {}).get("phase") for p in pods]
        active = sum(1 for ph in phases if ph in ("Pending", "Running"))
        succeeded = phases.count("Succeeded")
        failed = phases.count("Failed")
        t = now_rfc3339()
        old = job.get("status", {})
        conds = {c["type"]: c for c in old.get("conditions", [])}

        def cond(ctype, reason, message):
            if ctype not in conds:
                conds[ctype] = {"type": ctype, "status": "True", "reason": reason, "message": message,
                                "lastUpdateTime": t, "lastTransitionTime": t}

        name = job["metadata"]["name"]
        cond("Created", "ElasticJobCreated", f"ElasticJob {name} is created.")
        if active:
            cond("Running", "ElasticJobRunning", f"ElasticJob {name} is running.")
        if replicas and succeeded == replicas:
            cond("Succeeded", "ElasticJobSucceeded", f"ElasticJob {name} is successfully completed.")
            if "Running" in conds:
                conds["Running"]["status"] = "False"
        if failed:
            cond("Failed", "ElasticJobFailed", f"ElasticJob {name} has failed because {failed} Worker replica(s) failed.")
            if "Running" in conds:
                conds["Running"]["status"] = "False"
        status = {"conditions": list(conds.values()),
                  "replicaStatuses": {"Worker": {"active": active, "succeeded": succeeded, "failed": failed}},
                  "startTime": old.get("startTime", t)}
        if "Succeeded" in conds or "Failed" in conds:
            status["completionTime"] = old.get("completionTime", t)
        if status == {k: old.get(k) for k in status}:
            return
        new = copy.deepcopy(job)
        new["status"] = status
        self.store.commit(jres, job, new, MANAGER, "Update", False)

    def set_pod_phase(self, ns, name, phase, exit_code, reason=None, message=None,
                      disruption=None, restarts=None):
        """What the kubelet reports: the phase, a terminated container with exitCode; also
        status.reason/message (Evicted), a DisruptionTarget condition with reason
        `disruption`, and a container restarted in place (restarts: its new restartCount)."""
        with self.store.lock:
            pres = self.store.resource("", "v1", "pods")
            pod = self.store.get(pres, ns, name)
            new = copy.deepcopy(pod)
            new["status"]["phase"] = phase
            if reason is not None:
                new["status"]["reason"] = reason
                new["status"]["message"] = message or ""
            if disruption is not None:
                new["status"].setdefault("conditions", []).append(
                    {"type": "DisruptionTarget", "status": "True", "reason": disruption,
                     "message": message or "", "lastTransitionTime": now_rfc3339()})
            if restarts is not None:
                for cs in new["status"].get("containerStatuses", []):
                    cs["restartCount"] = restarts
                    cs["state"] = {"running": {"startedAt": now_rfc3339()}}
            if phase in ("Succeeded", "Failed"):
                for cs in new["status"].get("containerStatuses", []):
                    cs["ready"] = False
                    cs["state"] = {"terminated": {"exitCode": exit_code, "reason":
                                                  "Completed" if exit_code == 0 else "Error"}}
            self.store.commit(pres, pod, new, "kubelet", "Update", False)


def established(crd):
    return any(c.get("type") == "Established" and c.get("status") == "True"
               for c in crd.get("status", {}).get("conditions", []))


def owned_by(obj, job):
    return any(r.get("uid") == job["metadata"]["uid"] and r.get("controller")
               for r in obj["metadata"].get("ownerReferences", []))
