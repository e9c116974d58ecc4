"""The Kubeflow operators of the test server, scripted as they behave (../shared/crds/README.md):

- training-operator v1.9.0's PyTorchJob controller: pods and headless Services
  NAME-worker-I with the `training.kubeflow.org/*` labels, the `PET_*` variables it sets on the
  container named `pytorch` (pkg/controller.v1/pytorch/elastic.go, envvar.go), scale in/out to
  Worker.replicas, conditions Created/Running/Succeeded/Failed with its reasons and messages,
  replicaStatuses.Worker, and its events;
- Trainer v2.3.0's TrainJob controller with JobSet v0.12.0 and the Job controller: the runtime
  named by runtimeRef (a validating webhook refuses a TrainJob whose runtime does not exist),
  a JobSet owned by the TrainJob, one Indexed Job per replicated job owned by the JobSet, and
  its pods `JOB-INDEX-xxxxx` with JobSet's and batch's labels and the torch plugin's `PET_*`;
  TrainJob conditions Complete/Failed and jobsStatus, JobSet conditions Completed/Failed.

Each reconcile runs under the store's lock from controller.Controller's queue.
"""

import copy
import random
import string

from store import ApiError, now_rfc3339

PYTORCH_MANAGER = "pytorchjob-controller"
TRAINER_MANAGER = "trainer-controller-manager"
JOBSET_MANAGER = "jobset-controller-manager"
JOB_MANAGER = "job-controller"
PET_RESERVED = ("PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR",
                "PET_MASTER_PORT")


def owner_ref(obj, kind):
    return {"apiVersion": obj["apiVersion"], "kind": kind, "name": obj["metadata"]["name"],
            "uid": obj["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}


def owned(obj, owner):
    return any(r.get("uid") == owner["metadata"]["uid"] and r.get("controller")
               for r in obj["metadata"].get("ownerReferences", []))


def served(store, group, kind):
    for res in store.served():
        if res.group == group and res.kind == kind:
            return res
    raise KeyError(kind)


def pod_counts(pods):
    phases = [p.get("status", {}).get("phase") for p in pods]
    return (sum(1 for ph in phases if ph in ("Pending", "Running")), phases.count("Succeeded"),
            phases.count("Failed"))


def set_conditions(old, wanted, t):
    """Conditions as the operators keep them: one per type, its transition time kept."""
    conds = {c["type"]: c for c in copy.deepcopy(old)}
    for ctype, status, reason, message in wanted:
        c = conds.get(ctype)
        if c is None or c.get("status") != status:
            conds[ctype] = {"type": ctype, "status": status, "reason": reason, "message": message,
                            "lastUpdateTime": t, "lastTransitionTime": t}
    return list(conds.values())


class Kubeflow:
    def __init__(self, store, record):
        self.store = store
        self.record = record  # record(obj, kind, reason, message, manager)

    # ---- PyTorchJob --------------------------------------------------------------------------
    def reconcile_pytorchjob(self, ns, name):
        store = self.store
        jres = served(store, "kubeflow.org", "PyTorchJob")
        job = store.get(jres, ns, name)
        if job["metadata"].get("deletionTimestamp"):
            return
        worker = job["spec"].get("pytorchReplicaSpecs", {}).get("Worker", {})
        replicas = int(worker.get("replicas", 1))
        pres = store.resource("", "v1", "pods")
        pods = {p["metadata"]["name"]: p for p in store.list(pres, ns)[0] if owned(p, job)}
        for i in range(replicas):
            if f"{name}-worker-{i}" not in pods:
                self.create_pytorch_worker(job, worker, i)
        for pod_name, pod in pods.items():
            index = int(pod["metadata"]["labels"].get("training.kubeflow.org/replica-index", "0"))
            if index >= replicas:
                store.delete(pres, ns, pod_name, "Background", False)
                self.record(job, "PyTorchJob", "SuccessfulDeletePod", f"Deleted pod: {pod_name}",
                            PYTORCH_MANAGER)
        pods = [p for p in store.list(pres, ns)[0] if owned(p, job)]
        self.pytorch_status(jres, job, pods, replicas)

    def pytorch_env(self, job, index):
        """What training-operator v1.9.0 sets on the `pytorch` container of worker `index`."""
        spec, name = job["spec"], job["metadata"]["name"]
        policy = spec.get("elasticPolicy")
        env = [{"name": "PYTHONUNBUFFERED", "value": "1"}]
        if spec.get("nprocPerNode") is not None:
            env.append({"name": "PET_NPROC_PER_NODE", "value": str(spec["nprocPerNode"])})
        if policy is None:
            return env
        host = policy.get("rdzvHost") or f"{name}-worker-0"
        env.append({"name": "PET_RDZV_ENDPOINT", "value": f"{host}:{policy.get('rdzvPort', 23456)}"})
        env.append({"name": "PET_RDZV_BACKEND", "value": policy.get("rdzvBackend", "c10d")})
        replicas = spec["pytorchReplicaSpecs"]["Worker"].get("replicas", 1)
        nnodes = (f"{policy['minReplicas']}:{policy['maxReplicas']}"
                  if "minReplicas" in policy or "maxReplicas" in policy else str(replicas))
        env.append({"name": "PET_NNODES", "value": nnodes})
        if "maxRestarts" in policy:
            env.append({"name": "PET_MAX_RESTARTS", "value": str(policy["maxRestarts"])})
        if "nProcPerNode" in policy:
            env.append({"name": "PET_N_PROC_PER_NODE", "value": str(policy["nProcPerNode"])})
        if "rdzvId" in policy:
            env.append({"name": "PET_RDZV_ID", "value": policy["rdzvId"]})
        if policy.get("rdzvConf"):
            env.append({"name": "PET_RDZV_CONF",
                        "value": ",".join(f"{c['key']}={c['value']}" for c in policy["rdzvConf"])})
        if policy.get("standalone"):
            env.append({"name": "PET_STANDALONE", "value": ""})
        return env

    def create_pytorch_worker(self, job, worker, index):
        store, name, ns = self.store, job["metadata"]["name"], job["metadata"]["namespace"]
        labels = {"training.kubeflow.org/job-name": name,
                  "training.kubeflow.org/operator-name": PYTORCH_MANAGER,
                  "training.kubeflow.org/replica-type": "worker",
                  "training.kubeflow.org/replica-index": str(index)}
        template = copy.deepcopy(worker.get("template", {}))
        pod_spec = template.get("spec", {})
        for c in pod_spec.get("containers", []):
            if c.get("name") == "pytorch":
                c["env"] = c.get("env", []) + self.pytorch_env(job, index)
        policy = worker.get("restartPolicy", "Never")
        pod_spec["restartPolicy"] = "Never" if policy == "ExitCode" else policy
        pod_spec["hostname"] = f"{name}-worker-{index}"
        owner = [owner_ref(job, "PyTorchJob")]
        meta = template.get("metadata", {})
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": f"{name}-worker-{index}",
                            "labels": dict(meta.get("labels", {}), **labels),
                            "annotations": meta.get("annotations", {}), "ownerReferences": owner},
               "spec": pod_spec}
        store.create(store.resource("", "v1", "pods"), ns, pod, PYTORCH_MANAGER, False)
        self.record(job, "PyTorchJob", "SuccessfulCreatePod", f"Created pod: {name}-worker-{index}",
                    PYTORCH_MANAGER)
        svc = {"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": f"{name}-worker-{index}", "labels": labels, "ownerReferences": owner},
               "spec": {"clusterIP": "None", "selector": labels}}
        try:
            store.create(store.resource("", "v1", "services"), ns, svc, PYTORCH_MANAGER, False)
            self.record(job, "PyTorchJob", "SuccessfulCreateService",
                        f"Created service: {name}-worker-{index}", PYTORCH_MANAGER)
        except ApiError:
            pass

    def pytorch_status(self, jres, job, pods, replicas):
        active, succeeded, failed = pod_counts(pods)
        name, ns = job["metadata"]["name"], job["metadata"]["namespace"]
        old = job.get("status", {})
        t = now_rfc3339()
        wanted = [("Created", "True", "PyTorchJobCreated", f"PyTorchJob {name} is created.")]
        if active:
            wanted.append(("Running", "True", "PyTorchJobRunning", f"PyTorchJob {ns}/{name} is running."))
        if replicas and succeeded == replicas:
            wanted += [("Running", "False", "PyTorchJobSucceeded", f"PyTorchJob {ns}/{name} successfully completed."),
                       ("Succeeded", "True", "PyTorchJobSucceeded", f"PyTorchJob {ns}/{name} successfully completed.")]
        if failed:
            msg = f"PyTorchJob {ns}/{name} has failed because {failed} Worker replica(s) failed."
            wanted += [("Running", "False", "PyTorchJobFailed", msg), ("Failed", "True", "PyTorchJobFailed", msg)]
        selector = f"training.kubeflow.org/job-name={name},training.kubeflow.org/operator-name={PYTORCH_MANAGER},training.kubeflow.org/replica-type=worker"
        status = {"conditions": set_conditions(old.get("conditions", []), wanted, t),
                  "replicaStatuses": {"Worker": {"active": active, "succeeded": succeeded,
                                                 "failed": failed, "selector": selector}},
                  "startTime": old.get("startTime", t)}
        if any(c["type"] in ("Succeeded", "Failed") and c["status"] == "True" for c in status["conditions"]):
            status["completionTime"] = old.get("completionTime", t)
        if status != {k: old.get(k) for k in status}:
            new = copy.deepcopy(job)
            new["status"] = status
            self.store.commit(jres, job, new, PYTORCH_MANAGER, "Update", False)

    # ---- TrainJob ----------------------------------------------------------------------------
    def runtime_of(self, ns, trainjob_spec):
        ref = trainjob_spec.get("runtimeRef", {})
        kind = ref.get("kind", "ClusterTrainingRuntime")
        try:
            res = served(self.store, "trainer.kubeflow.org", kind)
            return self.store.get(res, ns if res.namespaced else None, ref.get("name", ""))
        except (KeyError, ApiError):
            return None

    def admit_trainjob(self, ns, obj):
        """Trainer's validating webhook: the runtime must exist, PET_* reserved."""
        spec = obj.get("spec", {})
        ref = spec.get("runtimeRef", {})
        reasons = []
        if self.runtime_of(ns, spec) is None:
            reasons.append(f'spec.runtimeRef: Not found: "{ref.get("kind", "ClusterTrainingRuntime")}/{ref.get("name", "")}"')
        reserved = sorted(e["name"] for e in spec.get("trainer", {}).get("env", []) if e.get("name") in PET_RESERVED)
        if reserved:
            reasons.append(f"spec.trainer.env: Invalid value: must not have reserved envs, invalid envs configured: {reserved}")
        if reasons:
            raise ApiError(403, "Forbidden", 'admission webhook "validator.trainjob.trainer.kubeflow.org" '
                                             "denied the request: " + ", ".join(reasons))

    def reconcile_trainjob(self, ns, name):
        store = self.store
        tres = served(store, "trainer.kubeflow.org", "TrainJob")
        tj = store.get(tres, ns, name)
        if tj["metadata"].get("deletionTimestamp"):
            return
        jsres = served(store, "jobset.x-k8s.io", "JobSet")
        jobset = next((s for s in store.list(jsres, ns)[0] if s["metadata"]["name"] == name), None)
        if jobset is None:
            runtime = self.runtime_of(ns, tj["spec"])
            if runtime is None:
                return
            jobset = store.create(jsres, ns, self.jobset_for(tj, runtime), TRAINER_MANAGER, False)
        self.reconcile_jobset(jsres, jobset)
        self.trainjob_status(tres, tj, store.get(jsres, ns, name))

    def jobset_for(self, tj, runtime):
        """The runtime's JobSet template with the trainer's settings and runtimePatches."""
        name, trainer = tj["metadata"]["name"], tj["spec"].get("trainer", {})
        template = copy.deepcopy(runtime["spec"]["template"])
        nodes = trainer.get("numNodes", runtime["spec"].get("mlPolicy", {}).get("numNodes", 1))
        for rj in template["spec"]["replicatedJobs"]:
            job_spec = rj["template"]["spec"]
            pod_spec = job_spec["template"].setdefault("spec", {})
            if rj["name"] == "node":
                job_spec.update({"parallelism": nodes, "completions": nodes, "completionMode": "Indexed"})
                self.apply_trainer(pod_spec, trainer, name, nodes)
            self.apply_patches(rj, tj)
        return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                "metadata": {"name": name, "labels": {"trainer.kubeflow.org/trainjob-name": name},
                             "ownerReferences": [owner_ref(tj, "TrainJob")]},
                "spec": template["spec"]}

    def apply_trainer(self, pod_spec, trainer, name, nodes):
        for c in pod_spec.get("containers", []):
            if c.get("name") != "node":
                continue
            for key in ("image", "command", "args"):
                if key in trainer:
                    c[key] = trainer[key]
            if "resourcesPerNode" in trainer:
                c["resources"] = trainer["resourcesPerNode"]
            nproc = trainer.get("numProcPerNode", "auto")
            c["env"] = c.get("env", []) + trainer.get("env", []) + [
                {"name": "PET_NNODES", "value": str(nodes)},
                {"name": "PET_NPROC_PER_NODE", "value": str(nproc)},
                {"name": "PET_NODE_RANK", "valueFrom": {"fieldRef": {
                    "fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}},
                {"name": "PET_MASTER_ADDR", "value": f"{name}-node-0-0.{name}"},
                {"name": "PET_MASTER_PORT", "value": "29500"}]  # Trainer v2.3.0's trainer port
            c["ports"] = [{"containerPort": 29500}]

    def apply_patches(self, rj, tj):
        for patch in tj["spec"].get("runtimePatches", []):
            spec = patch.get("trainingRuntimeSpec", {}).get("template", {}).get("spec", {})
            for p in spec.get("replicatedJobs", []):
                if p.get("name") != rj["name"]:
                    continue
                pod_patch = p.get("template", {}).get("spec", {}).get("template", {})
                target = rj["template"]["spec"]["template"]
                meta = target.setdefault("metadata", {})
                for key in ("labels", "annotations"):
                    meta.setdefault(key, {}).update(pod_patch.get("metadata", {}).get(key, {}))
                self.patch_pod_spec(target["spec"], pod_patch.get("spec", {}))

    @staticmethod
    def patch_pod_spec(pod_spec, patch):
        for key, value in patch.items():
            if key == "containers":
                for cp in value:
                    for c in pod_spec.get("containers", []):
                        if c.get("name") == cp.get("name"):
                            for k in ("env", "volumeMounts"):
                                c[k] = c.get(k, []) + cp.get(k, [])
            elif key in ("volumes", "tolerations", "imagePullSecrets"):
                pod_spec[key] = pod_spec.get(key, []) + value
            else:
                pod_spec[key] = value

    def reconcile_jobset(self, jsres, jobset):
        store, ns, name = self.store, jobset["metadata"]["namespace"], jobset["metadata"]["name"]
        jres = store.resource("batch", "v1", "jobs")
        for rj in jobset["spec"].get("replicatedJobs", []):
            for i in range(int(rj.get("replicas", 1))):
                job_name = f"{name}-{rj['name']}-{i}"
                job = next((j for j in store.list(jres, ns)[0] if j["metadata"]["name"] == job_name), None)
                if job is None:
                    job = store.create(jres, ns, self.job_for(jobset, rj, i), JOBSET_MANAGER, False)
                self.reconcile_job(jres, job)
        self.jobset_status(jsres, jobset)

    def job_for(self, jobset, rj, index):
        name = jobset["metadata"]["name"]
        labels = {"jobset.sigs.k8s.io/jobset-name": name, "jobset.sigs.k8s.io/replicatedjob-name": rj["name"],
                  "jobset.sigs.k8s.io/job-index": str(index), "jobset.sigs.k8s.io/jobset-uid": jobset["metadata"]["uid"]}
        spec = copy.deepcopy(rj["template"]["spec"])
        tmeta = spec["template"].setdefault("metadata", {})
        tmeta["labels"] = dict(tmeta.get("labels", {}), **labels)
        spec["template"]["spec"]["subdomain"] = name
        return {"apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": f"{name}-{rj['name']}-{index}", "labels": labels,
                             "ownerReferences": [owner_ref(jobset, "JobSet")]},
                "spec": spec}

    def reconcile_job(self, jres, job):
        store, ns, name = self.store, job["metadata"]["namespace"], job["metadata"]["name"]
        pres = store.resource("", "v1", "pods")
        pods = [p for p in store.list(pres, ns)[0] if owned(p, job)]
        have = {p["metadata"]["labels"].get("batch.kubernetes.io/job-completion-index") for p in pods
                if p.get("status", {}).get("phase") != "Failed"}
        done = {p["metadata"]["labels"].get("batch.kubernetes.io/job-completion-index") for p in pods}
        failed_any = any(p.get("status", {}).get("phase") == "Failed" for p in pods)
        for k in range(int(job["spec"].get("completions", 1))):
            if str(k) not in done and not failed_any:
                self.create_job_pod(job, k)
        pods = [p for p in store.list(pres, ns)[0] if owned(p, job)]
        active, succeeded, failed = pod_counts(pods)
        status = {"active": active, "succeeded": succeeded, "failed": failed}
        completions = int(job["spec"].get("completions", 1))
        t = now_rfc3339()
        if succeeded == completions:
            status["conditions"] = [{"type": "Complete", "status": "True", "lastTransitionTime": t}]
        elif failed:
            status["conditions"] = [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
                                     "message": "Job has reached the specified backoff limit", "lastTransitionTime": t}]
        old = {k: job.get("status", {}).get(k) for k in status}
        if {k: v for k, v in status.items() if k != "conditions"} != {k: v for k, v in old.items() if k != "conditions"} \
                or ("conditions" in status and not job.get("status", {}).get("conditions")):
            new = copy.deepcopy(job)
            new["status"] = dict(job.get("status", {}), **status)
            store.commit(jres, job, new, JOB_MANAGER, "Update", False)
        _ = have

    def create_job_pod(self, job, k):
        store, ns, name = self.store, job["metadata"]["namespace"], job["metadata"]["name"]
        template = copy.deepcopy(job["spec"]["template"])
        labels = dict(template.get("metadata", {}).get("labels", {}),
                      **{"batch.kubernetes.io/job-completion-index": str(k), "job-name": name,
                         "batch.kubernetes.io/job-name": name,
                         "batch.kubernetes.io/controller-uid": job["metadata"]["uid"]})
        annotations = dict(template.get("metadata", {}).get("annotations", {}),
                           **{"batch.kubernetes.io/job-completion-index": str(k)})
        spec = template.get("spec", {})
        spec["hostname"] = f"{name}-{k}"
        spec.setdefault("restartPolicy", "Never")
        for c in spec.get("containers", []):
            for e in c.get("env", []):
                if e.get("name") == "PET_NODE_RANK":  # the fieldRef, resolved as the kubelet does
                    e.pop("valueFrom", None)
                    e["value"] = str(k)
        suffix = "".join(random.choice(string.ascii_lowercase + string.digits) for _ in range(5))
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": f"{name}-{k}-{suffix}", "labels": labels, "annotations": annotations,
                            "ownerReferences": [owner_ref(job, "Job")]},
               "spec": spec}
        store.create(store.resource("", "v1", "pods"), ns, pod, JOB_MANAGER, False)
        self.record(job, "Job", "SuccessfulCreate", f"Created pod: {name}-{k}-{suffix}", JOB_MANAGER)

    def jobset_status(self, jsres, jobset):
        store, ns = self.store, jobset["metadata"]["namespace"]
        jobset = store.get(jsres, ns, jobset["metadata"]["name"])
        jres = store.resource("batch", "v1", "jobs")
        jobs = [j for j in store.list(jres, ns)[0] if owned(j, jobset)]
        rstatus = []
        for rj in jobset["spec"].get("replicatedJobs", []):
            mine = [j for j in jobs if j["metadata"]["labels"].get("jobset.sigs.k8s.io/replicatedjob-name") == rj["name"]]
            done = lambda j, t: any(c["type"] == t and c["status"] == "True" for c in j.get("status", {}).get("conditions", []))
            rstatus.append({"name": rj["name"], "ready": 0, "suspended": 0,
                            "succeeded": sum(done(j, "Complete") for j in mine),
                            "failed": sum(done(j, "Failed") for j in mine),
                            "active": sum(1 for j in mine if not done(j, "Complete") and not done(j, "Failed"))})
        t = now_rfc3339()
        wanted = []
        if rstatus and all(r["succeeded"] == int(rj.get("replicas", 1)) for r, rj in zip(rstatus, jobset["spec"]["replicatedJobs"])):
            wanted.append(("Completed", "True", "AllJobsCompleted", "jobset completed successfully"))
        elif any(r["failed"] for r in rstatus):
            wanted.append(("Failed", "True", "FailedJobs", "jobset failed due to one or more job failures"))
        status = {"replicatedJobsStatus": rstatus,
                  "conditions": set_conditions(jobset.get("status", {}).get("conditions", []), wanted, t)}
        if status != {k: jobset.get("status", {}).get(k) for k in status}:
            new = copy.deepcopy(jobset)
            new["status"] = dict(jobset.get("status", {}), **status)
            store.commit(jsres, jobset, new, JOBSET_MANAGER, "Update", False)

    def trainjob_status(self, tres, tj, jobset):
        jstatus = jobset.get("status", {})
        conds = {c["type"]: c for c in jstatus.get("conditions", []) if c.get("status") == "True"}
        wanted = []
        if "Completed" in conds:
            wanted.append(("Complete", "True", "JobSetCompleted", "jobset completed successfully"))
        if "Failed" in conds:
            wanted.append(("Failed", "True", "JobSetFailed", conds["Failed"].get("message", "")))
        status = {"jobsStatus": jstatus.get("replicatedJobsStatus", []),
                  "conditions": set_conditions(tj.get("status", {}).get("conditions", []), wanted, now_rfc3339())}
        if status != {k: tj.get("status", {}).get(k) for k in status}:
            new = copy.deepcopy(tj)
            new["status"] = dict(tj.get("status", {}), **status)
            self.store.commit(tres, tj, new, TRAINER_MANAGER, "Update", False)
