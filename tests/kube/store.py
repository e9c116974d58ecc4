"""Object store of the Kubernetes API test server: resources, resourceVersions, field ownership
(server-side apply), owner-reference garbage collection and the watch event log.

For tests only. One lock guards everything; watchers wait on a condition variable.
"""

import copy
import datetime
import threading
import uuid

import schema


def now_rfc3339():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class ApiError(Exception):
    """An error the server answers with a Status body."""

    def __init__(self, code, reason, message, details=None, headers=None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details or {}
        self.headers = headers or {}

    def status(self):
        body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": self.message, "reason": self.reason, "code": self.code}
        if self.details:
            body["details"] = self.details
        return body


class Resource:
    """One served resource type (what discovery lists)."""

    def __init__(self, group, version, plural, kind, namespaced, singular=None, short=None,
                 subresources=()):
        self.group = group
        self.version = version
        self.plural = plural
        self.kind = kind
        self.namespaced = namespaced
        self.singular = singular or kind.lower()
        self.short = list(short or [])
        self.subresources = list(subresources)
        self.schema = None  # a custom resource's structural schema (schema.py)

    @property
    def api_version(self):
        return f"{self.group}/{self.version}" if self.group else self.version

    def qualified(self):
        return f"{self.plural}.{self.group}" if self.group else self.plural


BUILTIN = [
    Resource("", "v1", "namespaces", "Namespace", False, short=["ns"]),
    Resource("", "v1", "pods", "Pod", True, short=["po"],
             subresources=["log", "eviction", "status", "proxy", "portforward"]),
    Resource("", "v1", "services", "Service", True, short=["svc"], subresources=["status"]),
    Resource("", "v1", "events", "Event", True, short=["ev"]),
    Resource("", "v1", "persistentvolumes", "PersistentVolume", False, short=["pv"],
             subresources=["status"]),
    Resource("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True, short=["pvc"],
             subresources=["status"]),
    Resource("apps", "v1", "deployments", "Deployment", True, short=["deploy"],
             subresources=["status", "scale"]),
    Resource("batch", "v1", "jobs", "Job", True, subresources=["status"]),
    Resource("", "v1", "nodes", "Node", False, short=["no"], subresources=["status"]),
    Resource("storage.k8s.io", "v1", "csidrivers", "CSIDriver", False),
    Resource("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview",
             False),
    Resource("apiextensions.k8s.io", "v1", "customresourcedefinitions",
             "CustomResourceDefinition", False, short=["crd", "crds"], subresources=["status"]),
]

# Fields the server owns; never part of anyone's applied configuration.
SERVER_METADATA = {"resourceVersion", "uid", "managedFields", "creationTimestamp", "generation",
                   "deletionTimestamp", "selfLink"}


def field_set(obj, prefix=()):
    """Leaf paths of an applied object: maps recurse, scalars and lists are leaves."""
    out = {}
    for key, value in obj.items():
        path = prefix + (key,)
        if path in (("apiVersion",), ("kind",), ("status",)):
            continue
        if len(path) == 2 and path[0] == "metadata" and (
                key in SERVER_METADATA or key in ("name", "namespace")):
            continue
        if isinstance(value, dict) and value:
            out.update(field_set(value, path))
        else:
            out[path] = value
    return out


def get_path(obj, path):
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            return None, False
        obj = obj[key]
    return obj, True


def set_path(obj, path, value):
    for key in path[:-1]:
        if not isinstance(obj.get(key), dict):
            obj[key] = {}
        obj = obj[key]
    obj[path[-1]] = copy.deepcopy(value)


def remove_path(obj, path):
    parents = []
    for key in path[:-1]:
        if not isinstance(obj, dict) or key not in obj:
            return
        parents.append((obj, key))
        obj = obj[key]
    if isinstance(obj, dict):
        obj.pop(path[-1], None)
    # Drop maps emptied by the removal, as the server prunes them.
    for parent, key in reversed(parents):
        if parent[key] == {}:
            del parent[key]
        else:
            break


def encode_fields(paths):
    """fieldsV1 encoding of a set of paths: {"f:spec": {"f:replicas": {}}}."""
    root = {}
    for path in sorted(paths):
        node = root
        for key in path:
            node = node.setdefault("f:" + key, {})
    return root


def decode_fields(fields, prefix=()):
    out = set()
    for key, child in fields.items():
        path = prefix + (key[2:],)
        if child:
            out |= decode_fields(child, path)
        else:
            out.add(path)
    return out


def dotted(path):
    return "".join("." + p for p in path)


class Store:
    """All objects, keyed by (group, plural, namespace, name)."""

    def __init__(self, namespaces=()):
        """`namespaces`: those an admin made, beyond the four of a fresh cluster."""
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.rv = 100
        self.objects = {}
        self.resources = {(r.group, r.version, r.plural): r for r in BUILTIN}
        self.events = []          # (rv, type, key, object) for watches
        self.compacted_rv = 0     # events at or below this rv are gone (410 for older watches)
        self.hooks = []           # called with (type, resource, object) after each change
        self.crd_establish_delay = 0.0
        # The garbage collector (kube-controller-manager's): acts on a deletion gc_delay
        # seconds later, from its own thread, as the real one acts after the API call
        # returned; gc_enabled False = none runs (dependents and finalizers stay).
        self.gc_delay = 0.0
        self.gc_enabled = True
        self.gc_pending = 0
        self.gc_idle = threading.Condition(self.lock)
        for ns in ("default", "kube-system", "kube-public", "kube-node-lease", *namespaces):
            self.create(self.resource("", "v1", "namespaces"), None,
                        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
                        "kube-apiserver", dry_run=False)

    # ---- resource registry -------------------------------------------------------------------
    def resource(self, group, version, plural):
        with self.lock:
            res = self.resources.get((group, version, plural))
            if res is None:
                raise ApiError(404, "NotFound", "the server could not find the requested resource")
            return res

    def served(self):
        with self.lock:
            return list(self.resources.values())

    def resource_for_kind(self, api_version, kind):
        group, _, version = api_version.rpartition("/")
        with self.lock:
            for res in self.resources.values():
                if res.group == group and res.version == version and res.kind == kind:
                    return res
        return None

    # ---- helpers -----------------------------------------------------------------------------
    def next_rv(self):
        self.rv += 1
        return self.rv

    def key(self, res, ns, name):
        return (res.group, res.plural, ns if res.namespaced else None, name)

    def record(self, etype, res, obj):
        self.events.append((int(obj["metadata"]["resourceVersion"]), etype, res, copy.deepcopy(obj)))
        if len(self.events) > 5000:
            dropped = self.events[:1000]
            self.events = self.events[1000:]
            self.compacted_rv = dropped[-1][0]
        self.changed.notify_all()
        for hook in list(self.hooks):
            hook(etype, res, obj)

    def compact(self):
        with self.lock:
            self.compacted_rv = self.rv
            self.events = []

    def not_found(self, res, name):
        return ApiError(404, "NotFound", f'{res.qualified()} "{name}" not found',
                        {"name": name, "group": res.group, "kind": res.plural})

    def check_namespace(self, res, ns):
        namespace = self.objects.get(("", "namespaces", None, ns)) if res.namespaced else None
        if res.namespaced and namespace is None:
            raise ApiError(404, "NotFound", f'namespaces "{ns}" not found',
                           {"name": ns, "kind": "namespaces"})
        if namespace and namespace["metadata"].get("deletionTimestamp"):
            raise ApiError(403, "Forbidden", f"{res.plural} is forbidden: unable to create new content in "
                                             f"namespace {ns} because it is being terminated",
                           {"kind": res.plural})

    def validate(self, res, obj):
        name = obj.get("metadata", {}).get("name", "")
        causes = []
        if not name:
            causes.append({"reason": "FieldValueRequired", "message": "Required value: name or generateName is required",
                           "field": "metadata.name"})
        elif not _dns_subdomain(name):
            causes.append({"reason": "FieldValueInvalid", "field": "metadata.name",
                           "message": f'Invalid value: "{name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character'})
        if res.kind == "Pod" and not obj.get("spec", {}).get("containers"):
            causes.append({"reason": "FieldValueRequired", "field": "spec.containers",
                           "message": "Required value"})
        if causes:
            msg = f'{res.kind} "{name}" is invalid: ' + ", ".join(
                f'{c["field"]}: {c["message"]}' for c in causes)
            raise ApiError(422, "Invalid", msg, {"name": name, "group": res.group,
                                                  "kind": res.kind, "causes": causes})

    def admit(self, res, obj):
        """A custom resource pruned, defaulted and validated by its CRD's schema (schema.py)."""
        if res.schema is None:
            return
        causes = schema.admit(obj, res.schema)
        if causes:
            name = obj.get("metadata", {}).get("name", "")
            msg = f'{res.kind}.{res.group} "{name}" is invalid: ' + ", ".join(
                f'{c["field"]}: {c["message"]}' for c in causes)
            raise ApiError(422, "Invalid", msg, {"name": name, "group": res.group,
                                                  "kind": res.kind, "causes": causes})

    # ---- reads -------------------------------------------------------------------------------
    def get(self, res, ns, name):
        with self.lock:
            obj = self.objects.get(self.key(res, ns, name))
            if obj is None:
                raise self.not_found(res, name)
            return copy.deepcopy(obj)

    def list(self, res, ns):
        with self.lock:
            items = [copy.deepcopy(o) for (g, p, n, _), o in sorted(self.objects.items(), key=lambda kv: str(kv[0]))
                     if g == res.group and p == res.plural and (ns is None or n == ns)]
            return items, self.rv

    def find_uid(self, uid):
        for (g, p, _, _), obj in self.objects.items():
            if obj["metadata"].get("uid") == uid:
                return obj
        return None

    # ---- writes ------------------------------------------------------------------------------
    def create(self, res, ns, obj, manager, dry_run, operation="Update"):
        with self.lock:
            obj = copy.deepcopy(obj)
            meta = obj.setdefault("metadata", {})
            if not meta.get("name") and meta.get("generateName"):
                meta["name"] = meta["generateName"] + uuid.uuid4().hex[:5]
            self.validate(res, obj)
            if "status" in res.subresources and res.schema is not None:
                obj.pop("status", None)  # the main resource ignores status (its subresource sets it)
            self.admit(res, obj)
            if res.namespaced:
                meta["namespace"] = ns
                self.check_namespace(res, ns)
            else:
                meta.pop("namespace", None)
            key = self.key(res, ns, meta["name"])
            if key in self.objects:
                raise ApiError(409, "AlreadyExists", f'{res.qualified()} "{meta["name"]}" already exists',
                               {"name": meta["name"], "group": res.group, "kind": res.plural})
            obj["apiVersion"] = res.api_version
            obj["kind"] = res.kind
            meta["uid"] = str(uuid.uuid4())
            meta["creationTimestamp"] = now_rfc3339()
            meta["generation"] = 1
            meta["managedFields"] = [self.entry(manager, operation, res, field_set(obj).keys())]
            self.default(res, obj)
            if dry_run:
                meta["resourceVersion"] = str(self.rv)
                return obj
            meta["resourceVersion"] = str(self.next_rv())
            self.objects[key] = obj
            self.record("ADDED", res, obj)
            return copy.deepcopy(obj)

    def entry(self, manager, operation, res, paths):
        return {"manager": manager, "operation": operation, "apiVersion": res.api_version,
                "time": now_rfc3339(), "fieldsType": "FieldsV1", "fieldsV1": encode_fields(paths)}

    def default(self, res, obj):
        """Defaulting the way the real server does, where our clients look at it."""
        if res.kind == "Pod":
            status = obj.setdefault("status", {})
            status.setdefault("phase", "Running")
            status.setdefault("podIP", "10.0.0.%d" % (self.rv % 250 + 1))
            status.setdefault("startTime", now_rfc3339())
            status.setdefault("containerStatuses", [
                {"name": c.get("name", ""), "ready": True, "restartCount": 0,
                 "image": c.get("image", ""), "state": {"running": {"startedAt": now_rfc3339()}}}
                for c in obj.get("spec", {}).get("containers", [])])
        if res.kind == "Namespace":
            obj.setdefault("status", {"phase": "Active"})
        if res.kind == "Service":
            spec = obj.setdefault("spec", {})
            spec.setdefault("type", "ClusterIP")
            spec.setdefault("clusterIP", "10.96.0.%d" % (self.rv % 250 + 1))

    def replace(self, res, ns, name, obj, manager, dry_run, subresource=None):
        with self.lock:
            current = self.objects.get(self.key(res, ns, name))
            if current is None:
                raise self.not_found(res, name)
            want_rv = obj.get("metadata", {}).get("resourceVersion")
            if want_rv and want_rv != current["metadata"]["resourceVersion"]:
                raise ApiError(409, "Conflict",
                               f'Operation cannot be fulfilled on {res.qualified()} "{name}": the object has been modified; please apply your changes to the latest version and try again',
                               {"name": name, "group": res.group, "kind": res.plural})
            new = copy.deepcopy(current)
            if subresource == "status":
                new["status"] = copy.deepcopy(obj.get("status", {}))
            else:
                status = new.get("status")
                new = copy.deepcopy(obj)
                new.setdefault("metadata", {})
                for k in ("uid", "creationTimestamp", "namespace", "name", "ownerReferences"):
                    if k in current["metadata"] and k not in new["metadata"]:
                        new["metadata"][k] = current["metadata"][k]
                if status is not None and "status" not in obj:
                    new["status"] = status
                if "status" in res.subresources and res.schema is not None:
                    new.pop("status", None)
                    if status is not None:
                        new["status"] = status
            self.admit(res, new)
            return self.commit(res, current, new, manager, "Update", dry_run)

    def commit(self, res, current, new, manager, operation, dry_run, applied=None):
        """Stores `new` in place of `current`; fields whose value changed move to `manager`.

        Fields set to the same value by two appliers are shared, as the real server does.
        """
        new["apiVersion"] = res.api_version
        new["kind"] = res.kind
        meta = new["metadata"]
        for k in ("uid", "creationTimestamp", "name", "namespace", "deletionTimestamp",
                  "deletionGracePeriodSeconds"):
            if k in current["metadata"]:
                meta[k] = current["metadata"][k]
        old_fields = field_set(current)
        new_fields = field_set(new)
        missing = object()
        changed = {p for p in new_fields if old_fields.get(p, missing) != new_fields[p]}
        mine = set(applied) if applied is not None else set(changed)
        entries = []
        for e in current["metadata"].get("managedFields", []):
            paths = decode_fields(e.get("fieldsV1", {})) & set(new_fields)
            if e["manager"] == manager and e["operation"] == operation:
                if applied is None:
                    mine |= paths
                continue
            paths -= changed
            if paths:
                entries.append(dict(e, fieldsV1=encode_fields(paths)))
        if mine:
            entries.append(self.entry(manager, operation, res, mine))
        meta["managedFields"] = entries
        spec_changed = any(p[0] not in ("metadata", "status") for p in changed) or any(
            p[0] not in ("metadata", "status") for p in set(old_fields) - set(new_fields))
        meta["generation"] = current["metadata"].get("generation", 1) + (1 if spec_changed else 0)
        meta["resourceVersion"] = current["metadata"]["resourceVersion"]
        if new == current:
            return copy.deepcopy(current)
        if dry_run:
            return new
        meta["resourceVersion"] = str(self.next_rv())
        key = self.key(res, meta.get("namespace"), meta["name"])
        self.objects[key] = new
        self.record("MODIFIED", res, new)
        if meta.get("deletionTimestamp") and not meta.get("finalizers"):
            self.remove(key, res, new)  # its last finalizer was taken off
        return copy.deepcopy(new)

    def apply(self, res, ns, name, patch, manager, force, dry_run):
        """Server-side apply: create or merge, with field ownership and conflicts."""
        with self.lock:
            meta = patch.setdefault("metadata", {})
            if meta.get("name") not in (None, name):
                raise ApiError(400, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)" % (meta.get("name"), name))
            meta["name"] = name
            current = self.objects.get(self.key(res, ns, name))
            if current is None:
                return self.create(res, ns, patch, manager, dry_run, operation="Apply")
            applied = field_set(patch)
            conflicts = []
            for e in current["metadata"].get("managedFields", []):
                if e["manager"] == manager:
                    continue
                for path in decode_fields(e.get("fieldsV1", {})):
                    if path in applied:
                        value, ok = get_path(current, path)
                        if ok and value != applied[path]:
                            conflicts.append((e["manager"], e.get("apiVersion", ""), path))
            if conflicts and not force:
                causes = [{"reason": "FieldManagerConflict",
                           "message": f'conflict with "{m}" using {v}', "field": dotted(p)}
                          for m, v, p in sorted(conflicts)]
                lines = "".join(f'\n- {c["message"]}: {c["field"]}' for c in causes)
                n = len(causes)
                raise ApiError(409, "Conflict",
                               f"Apply failed with {n} conflict{'s' if n > 1 else ''}:{lines}",
                               {"causes": causes})
            new = copy.deepcopy(current)
            previously = set()
            for e in current["metadata"].get("managedFields", []):
                if e["manager"] == manager and e["operation"] == "Apply":
                    previously = decode_fields(e.get("fieldsV1", {}))
            others = set()
            for e in current["metadata"].get("managedFields", []):
                if e["manager"] != manager:
                    others |= decode_fields(e.get("fieldsV1", {}))
            for path in previously - set(applied) - others:
                remove_path(new, path)
            for path, value in applied.items():
                set_path(new, path, value)
            if "status" in res.subresources and res.schema is not None:
                new.pop("status", None)
                if "status" in current:
                    new["status"] = copy.deepcopy(current["status"])
            self.admit(res, new)
            return self.commit(res, current, new, manager, "Apply", dry_run, applied=applied)

    def delete(self, res, ns, name, propagation, dry_run, precondition_uid=None):
        """As the apiserver deletes: an object without finalizers goes at once and the garbage
        collector deletes its dependents later (Background); Foreground and Orphan, a
        namespace, or finalizers of its own leave it in place with a deletionTimestamp
        (Terminating) until the collector or their owners have removed every finalizer."""
        with self.lock:
            key = self.key(res, ns, name)
            obj = self.objects.get(key)
            if obj is None:
                raise self.not_found(res, name)
            if precondition_uid and obj["metadata"]["uid"] != precondition_uid:
                raise ApiError(409, "Conflict",
                               f'Operation cannot be fulfilled on {res.qualified()} "{name}": Precondition failed: UID in precondition: {precondition_uid}, UID in object meta: {obj["metadata"]["uid"]}')
            if dry_run or obj["metadata"].get("deletionTimestamp"):
                return copy.deepcopy(obj)
            finalizers = list(obj["metadata"].get("finalizers", []))
            finalizers += {"Foreground": ["foregroundDeletion"], "Orphan": ["orphan"]}.get(propagation, [])
            if res.kind == "Namespace":
                finalizers.append("kubernetes")  # the namespace controller empties it first
            if not finalizers:
                self.remove(key, res, obj)
                return copy.deepcopy(obj)
            new = copy.deepcopy(obj)
            new["metadata"].update(deletionTimestamp=now_rfc3339(), deletionGracePeriodSeconds=0,
                                   finalizers=finalizers)
            if res.kind == "Namespace":
                new.setdefault("status", {})["phase"] = "Terminating"
            self.store_raw(key, res, new)
            self.gc_later(("finalize", key))
            return copy.deepcopy(new)

    def store_raw(self, key, res, obj):
        """Stores a change the server itself makes (no managedFields entry)."""
        obj["metadata"]["resourceVersion"] = str(self.next_rv())
        self.objects[key] = obj
        self.record("MODIFIED", res, obj)

    def remove(self, key, res, obj):
        del self.objects[key]
        obj["metadata"]["resourceVersion"] = str(self.next_rv())
        self.record("DELETED", res, obj)
        if res.kind == "CustomResourceDefinition":
            self.unserve(obj)
        self.gc_later(("owner-gone", obj["metadata"]["uid"]))

    # ---- the garbage collector ---------------------------------------------------------------
    def gc_later(self, item):
        if not self.gc_enabled:
            return
        self.gc_pending += 1
        timer = threading.Timer(self.gc_delay, self.gc_run, (item,))
        timer.daemon = True
        timer.start()

    def gc_run(self, item):
        with self.lock:
            try:
                if item[0] == "owner-gone":
                    self.collect_dependents(item[1])
                else:
                    self.finalize(item[1])
            finally:
                self.gc_pending -= 1
                self.gc_idle.notify_all()

    def wait_gc_idle(self, timeout=10):
        with self.lock:
            return self.gc_idle.wait_for(lambda: self.gc_pending == 0, timeout=timeout)

    def dependents(self, uid):
        return [(k, o) for k, o in self.objects.items()
                if any(r.get("uid") == uid for r in o["metadata"].get("ownerReferences", []))]

    def collect_dependents(self, uid):
        """An owner is gone: dependents with no owner left are deleted, others lose the ref."""
        owners = {o["metadata"]["uid"] for o in self.objects.values()}
        for dkey, dep in self.dependents(uid):
            refs = [r for r in dep["metadata"]["ownerReferences"] if r.get("uid") != uid]
            dres = self.resource_for_group_plural(dkey[0], dkey[1])
            if any(r.get("uid") in owners for r in refs):
                new = copy.deepcopy(dep)
                new["metadata"]["ownerReferences"] = refs
                self.store_raw(dkey, dres, new)
            else:
                self.delete(dres, dkey[2], dkey[3], "Background", False)

    def finalize(self, key):
        """The collector's and namespace controller's part of a deletion that waits."""
        obj = self.objects.get(key)
        if obj is None or not obj["metadata"].get("deletionTimestamp"):
            return
        res = self.resource_for_group_plural(key[0], key[1])
        meta = obj["metadata"]
        finalizers = list(meta.get("finalizers", []))
        waiting = []
        if "orphan" in finalizers:
            for dkey, dep in self.dependents(meta["uid"]):
                new = copy.deepcopy(dep)
                new["metadata"]["ownerReferences"] = [r for r in dep["metadata"]["ownerReferences"]
                                                      if r.get("uid") != meta["uid"]]
                if not new["metadata"]["ownerReferences"]:
                    del new["metadata"]["ownerReferences"]
                self.store_raw(dkey, self.resource_for_group_plural(dkey[0], dkey[1]), new)
            finalizers.remove("orphan")
        if "foregroundDeletion" in finalizers:
            waiting = self.dependents(meta["uid"])
        if "kubernetes" in finalizers:
            waiting += [(k, o) for k, o in self.objects.items() if k[2] == key[3] and k[0:2] != key[0:2]]
        for dkey, dep in waiting:
            self.delete(self.resource_for_group_plural(dkey[0], dkey[1]), dkey[2], dkey[3],
                        "Background", False)
        if waiting:
            self.gc_later(("finalize", key))  # again once the dependents are gone
            return
        finalizers = [f for f in finalizers if f not in ("foregroundDeletion", "kubernetes")]
        new = copy.deepcopy(obj)
        new["metadata"]["finalizers"] = finalizers
        if finalizers:
            self.store_raw(key, res, new)
        else:
            self.remove(key, res, new)

    def resource_for_group_plural(self, group, plural):
        for res in self.resources.values():
            if res.group == group and res.plural == plural:
                return res
        raise KeyError((group, plural))

    # ---- CRDs --------------------------------------------------------------------------------
    def serve(self, crd):
        spec = crd.get("spec", {})
        names = spec.get("names", {})
        with self.lock:
            for v in spec.get("versions", []):
                if not v.get("served", True):
                    continue
                subs = ["status"] if v.get("subresources", {}).get("status") is not None else []
                res = Resource(spec["group"], v["name"], names["plural"], names["kind"],
                               spec.get("scope", "Namespaced") == "Namespaced",
                               singular=names.get("singular"), short=names.get("shortNames"),
                               subresources=subs)
                res.schema = (v.get("schema") or {}).get("openAPIV3Schema")
                self.resources[(res.group, res.version, res.plural)] = res

    def unserve(self, crd):
        spec = crd.get("spec", {})
        for key in [k for k in self.resources if k[0] == spec.get("group")
                    and k[2] == spec.get("names", {}).get("plural")]:
            res = self.resources.pop(key)
            for okey, obj in list(self.objects.items()):
                if okey[0] == res.group and okey[1] == res.plural:
                    del self.objects[okey]
                    obj["metadata"]["resourceVersion"] = str(self.next_rv())
                    self.record("DELETED", res, obj)


def _dns_subdomain(name):
    if len(name) > 253 or not name:
        return False
    allowed = set("abcdefghijklmnopqrstuvwxyz0123456789-.")
    return set(name) <= allowed and name[0].isalnum() and name[-1].isalnum()
