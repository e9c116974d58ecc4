"""Request routing of the Kubernetes API test server: discovery, CRUD, apply, watch, logs,
eviction, and the /_test control endpoints. `h` is the server.Handler of the request."""

import base64
import datetime
import copy
import json
import time

import portforward
import spdy
import websocket_server as websocket
from store import ApiError, now_rfc3339

try:
    import yaml
except ImportError:  # JSON bodies still work; YAML ones need python3-yaml
    yaml = None

READ_VERBS = {"get", "list", "watch"}


# ---- bodies ------------------------------------------------------------------------------------
def parse_body(h):
    raw = h.body()
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except ValueError:
        pass
    if yaml is not None:
        try:
            obj = yaml.safe_load(raw)
            if isinstance(obj, dict):
                return obj
        except yaml.YAMLError:
            pass
    raise ApiError(400, "BadRequest", "the request body could not be decoded")


def now_nano():
    """The time as the kubelet stamps a log line: Go's RFC3339Nano, to the nanosecond with the
    trailing zeros of the fraction trimmed."""
    ns = time.time_ns()
    text = datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    fraction = ("%09d" % (ns % 10**9)).rstrip("0")
    return text + ("." + fraction if fraction else "") + "Z"


def parse_time(text):
    """An RFC 3339 time as (seconds, nanoseconds): Python's datetime stops at microseconds."""
    whole, _, rest = text.rstrip("Z").partition(".")
    seconds = datetime.datetime.fromisoformat(whole + "+00:00").timestamp()
    return int(seconds), int((rest + "000000000")[:9] or 0)


# ---- discovery ---------------------------------------------------------------------------------
def discovery(h, parts):
    store = h.server.store
    served = store.served()
    if parts == ["api"]:
        return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
            {"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:%d" % h.server.server_address[1]}]}
    if parts == ["apis"]:
        groups = {}
        for r in served:
            if r.group:
                groups.setdefault(r.group, set()).add(r.version)
        return {"kind": "APIGroupList", "apiVersion": "v1",
                "groups": [group_doc(g, sorted(v)) for g, v in sorted(groups.items())]}
    if len(parts) == 2 and parts[0] == "apis":
        versions = sorted({r.version for r in served if r.group == parts[1]})
        if not versions:
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        return dict(group_doc(parts[1], versions), kind="APIGroup", apiVersion="v1")
    group, version = ("", parts[1]) if parts[0] == "api" else (parts[1], parts[2])
    resources = [r for r in served if r.group == group and r.version == version]
    if not resources:
        raise ApiError(404, "NotFound", "the server could not find the requested resource")
    items = []
    for r in resources:
        verbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
        items.append({"name": r.plural, "singularName": r.singular, "namespaced": r.namespaced,
                      "kind": r.kind, "verbs": verbs, "shortNames": r.short})
        for sub in r.subresources:
            kind = {"log": "Pod", "eviction": "Eviction", "proxy": "PodProxyOptions",
                    "portforward": "PodPortForwardOptions"}.get(sub, r.kind)
            verbs = {"log": ["get"], "eviction": ["create"], "proxy": ["get", "create"],
                     "portforward": ["get", "create"]}.get(sub, ["get", "patch", "update"])
            items.append({"name": f"{r.plural}/{sub}", "singularName": "", "namespaced": r.namespaced,
                          "kind": kind, "verbs": verbs})
    return {"kind": "APIResourceList", "apiVersion": "v1",
            "groupVersion": f"{group}/{version}" if group else version, "resources": items}


def _pb_string(field, text):
    """One length-delimited protobuf field (wire type 2) holding TEXT; lengths stay < 128."""
    data = text if isinstance(text, bytes) else text.encode()
    return bytes([(field << 3) | 2, len(data)]) + data


def send_openapi_v2_protobuf(h):
    """/openapi/v2 as kube-apiserver serves it to kubectl <= 1.26, which asks only for
    application/com.github.proto-openapi.spec.v2@v1.0+protobuf (gnostic's openapi_v2.Document:
    1 swagger, 2 info{1 title, 2 version}); no definitions, so kubectl skips client validation.
    kube-openapi labels the body application/octet-stream ("@" is no media-type character)."""
    info = _pb_string(1, "Kubernetes") + _pb_string(2, "v1.32.0")
    data = _pb_string(1, "2.0") + _pb_string(2, info)
    h.send_response(200)
    h.send_header("Content-Type", "application/octet-stream")  # as kube-openapi serves it
    h.send_header("Content-Length", str(len(data)))
    h.end_headers()
    h.wfile.write(data)


def openapi_v3(h, gv):
    """OpenAPI v3: the root lists group-versions; each lists PATCH operations that take
    fieldValidation, which is what kubectl checks before it leaves validation to the server."""
    served = h.server.store.served()
    gvs = {(f"apis/{r.group}/{r.version}" if r.group else f"api/{r.version}"): r for r in served}
    if not gv:
        return {"paths": {k: {"serverRelativeURL": f"/openapi/v3/{k}?hash={h.server.store.rv}"}
                          for k in sorted(gvs)}}
    if gv not in gvs:
        raise ApiError(404, "NotFound", "the server could not find the requested resource")
    paths = {}
    for r in served:
        key = f"apis/{r.group}/{r.version}" if r.group else f"api/{r.version}"
        if key != gv:
            continue
        scope = "/namespaces/{namespace}" if r.namespaced else ""
        paths[f"/{key}{scope}/{r.plural}/{{name}}"] = {"patch": {
            "x-kubernetes-group-version-kind": {"group": r.group, "version": r.version, "kind": r.kind},
            "parameters": [{"name": p, "in": "query", "schema": {"type": "string"}}
                           for p in ("dryRun", "fieldManager", "fieldValidation", "force")],
            "responses": {"200": {"description": "OK"}}}}
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": "v1.32.0"},
            "paths": paths, "components": {"schemas": {}}}


def access_review(h, review):
    """A SelfSubjectAccessReview answered from /_test/config's "forbidden" list of
    "VERB RESOURCE[/SUBRESOURCE]" (everything else is allowed, as for the test's admin)."""
    attrs = review.get("spec", {}).get("resourceAttributes", {})
    what = attrs.get("resource", "") + ("/" + attrs["subresource"] if attrs.get("subresource") else "")
    denied = f'{attrs.get("verb", "")} {what}' in h.server.config.get("forbidden", [])
    return dict(review, status={"allowed": not denied,
                                **({"reason": "forbidden by the test's config"} if denied else {})})


def aggregated_version(accept):
    """The aggregated discovery version a client asks for first (v2, v2beta1), as a 1.30+
    kube-apiserver serves /api and /apis in one document; None for plain discovery."""
    for choice in accept.split(","):
        params = dict(p.strip().split("=", 1) for p in choice.split(";")[1:] if "=" in p)
        if params.get("g") == "apidiscovery.k8s.io" and params.get("as") == "APIGroupDiscoveryList" \
                and params.get("v") in ("v2", "v2beta1"):
            return params["v"]
    return None


def aggregated_discovery(h, core, version):
    """/api or /apis as one APIGroupDiscoveryList: every group, version and resource."""
    groups = {}
    for r in h.server.store.served():
        if (r.group == "") == core:
            groups.setdefault(r.group, {}).setdefault(r.version, []).append(r)
    verbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
    items = []
    for group, versions in sorted(groups.items()):
        docs = []
        for v, resources in sorted(versions.items(), reverse=True):
            docs.append({"version": v, "freshness": "Current", "resources": [
                {"resource": r.plural, "singularResource": r.singular or r.kind.lower(),
                 "scope": "Namespaced" if r.namespaced else "Cluster", "verbs": verbs,
                 "responseKind": {"group": r.group, "version": r.version, "kind": r.kind},
                 **({"shortNames": r.short} if r.short else {}),
                 "subresources": [{"subresource": sub, "verbs": ["get", "patch", "update"],
                                   "responseKind": {"group": r.group, "version": r.version,
                                                    "kind": r.kind}} for sub in r.subresources]}
                for r in sorted(resources, key=lambda r: r.plural)]})
        items.append({"metadata": {"name": group, "creationTimestamp": None}, "versions": docs})
    return {"kind": "APIGroupDiscoveryList", "apiVersion": f"apidiscovery.k8s.io/{version}",
            "metadata": {}, "items": items}


def group_doc(group, versions):
    vs = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"name": group, "versions": vs, "preferredVersion": vs[-1]}


# ---- selectors ---------------------------------------------------------------------------------
def split_terms(text):
    terms, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            terms.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        terms.append(cur.strip())
    return terms


def label_match(labels, selector):
    for term in split_terms(selector or ""):
        words = term.split()
        if len(words) >= 3 and words[1] in ("in", "notin"):
            values = {v.strip() for v in " ".join(words[2:]).strip("()").split(",")}
            inside = labels.get(words[0]) in values
            if inside != (words[1] == "in"):
                return False
        elif "!=" in term:
            k, v = term.split("!=", 1)
            if labels.get(k.strip()) == v.strip():
                return False
        elif "=" in term:
            k, v = term.replace("==", "=").split("=", 1)
            if labels.get(k.strip()) != v.strip():
                return False
        elif term.startswith("!"):
            if term[1:].strip() in labels:
                return False
        elif term not in labels:
            return False
    return True


def field_match(obj, selector):
    for term in split_terms(selector or ""):
        negate = "!=" in term
        k, v = term.replace("!=", "=").replace("==", "=").split("=", 1)
        cur = obj
        for part in k.strip().split("."):
            cur = cur.get(part) if isinstance(cur, dict) else None
        if (str(cur) if cur is not None else "") == v.strip():
            if negate:
                return False
        elif not negate:
            return False
    return True


def matches(h, obj):
    return label_match(obj["metadata"].get("labels", {}), h.query.get("labelSelector")) and \
        field_match(obj, h.query.get("fieldSelector"))


# ---- handlers ----------------------------------------------------------------------------------
def forbid(h, verb, res, name, ns, sub):
    if h.user == "admin" or (h.user == "viewer" and verb in READ_VERBS):
        return
    if h.user == "pod-reader" and verb in READ_VERBS and sub != "log":
        return
    what = res.plural + (f"/{sub}" if sub else "")
    obj = f'{res.qualified()} "{name}"' if name else res.qualified()
    where = f' in the namespace "{ns}"' if ns else ""
    scope = "" if ns else " at the cluster scope"
    raise ApiError(403, "Forbidden",
                   f'{obj} is forbidden: User "{h.user}" cannot {verb} resource "{what}" in API group "{res.group}"{where}{scope}',
                   {"name": name, "group": res.group, "kind": res.plural} if name else {"group": res.group, "kind": res.plural})


def api(h):
    path = h.url_path.rstrip("/") or "/"
    if path == "/version":
        return h.send_json(200, {"major": "1", "minor": "32", "gitVersion": "v1.32.0-ejob-test",
                                 "platform": "linux/amd64"})
    if path in ("/healthz", "/livez", "/readyz"):
        return h.send_json(200, "ok")
    if h.user == "system:anonymous":
        raise ApiError(403, "Forbidden", f'forbidden: User "system:anonymous" cannot get path "{path}"')
    if path.startswith("/openapi/v2"):
        if "protobuf" in h.headers.get("Accept", ""):
            return send_openapi_v2_protobuf(h)
        return h.send_json(200, {"swagger": "2.0", "info": {"title": "Kubernetes", "version": "v1.32.0"},
                                 "paths": {}, "definitions": {}})
    if path.startswith("/openapi/v3"):
        return h.send_json(200, openapi_v3(h, path[len("/openapi/v3"):].strip("/")))
    parts = path.strip("/").split("/")
    if parts[0] not in ("api", "apis") or (parts[0] == "apis" and len(parts) >= 2 and parts[1] == "watch"):
        raise ApiError(404, "NotFound", "the server could not find the requested resource")
    fixed = 2 if parts[0] == "api" else 3
    if len(parts) <= fixed:
        if parts[0] == "api" and len(parts) == 2 and parts[1] != "v1":
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        if len(parts) == 1 and (version := aggregated_version(h.headers.get("Accept", ""))):
            return h.send_json(200, aggregated_discovery(h, parts[0] == "api", version),
                               content_type="application/json;g=apidiscovery.k8s.io;v=%s;"
                                            "as=APIGroupDiscoveryList" % version)
        return h.send_json(200, discovery(h, parts))
    group = "" if parts[0] == "api" else parts[1]
    version = parts[fixed - 1]
    rest = parts[fixed:]
    ns = None
    if rest[0] == "namespaces" and len(rest) >= 3 and rest[2] not in ("status", "finalize"):
        ns, rest = rest[1], rest[2:]
    res = h.server.store.resource(group, version, rest[0])
    name = rest[1] if len(rest) > 1 else None
    sub = rest[2] if len(rest) > 2 else None
    if sub == "proxy" and res.kind == "Pod":
        return proxy(h, res, ns, name, "/" + "/".join(rest[3:]))
    if res.namespaced and name and ns is None:
        raise ApiError(404, "NotFound", "the server could not find the requested resource")
    if sub == "portforward" and res.kind == "Pod":
        # Upgrading to a WebSocket needs "create" (AuthorizePodWebsocketUpgradeCreatePermission).
        forbid(h, "create", res, name, ns, sub)
        pod = h.server.store.get(res, ns, name)
        return (spdy.serve if spdy.is_upgrade(h) else portforward.serve)(h, pod)
    resource_call(h, res, ns if res.namespaced else None, name, sub)


SERVED_MEDIA_TYPES = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")


def negotiate(h):
    """A 406 for an Accept header that names none of the media types the apiserver serves, as
    k8s.io/apiserver's negotiation answers before a request reaches its handler: pod logs too,
    whose body is text but whose Accept must still be one of these (kubectl sends
    "application/json, */*"). An absent Accept is */*."""
    accept = h.headers.get("Accept", "").strip()
    if not accept:
        return
    for clause in accept.split(","):
        media = clause.split(";")[0].strip().lower()
        if media in ("*/*", "application/*") or media in SERVED_MEDIA_TYPES:
            return
    raise ApiError(406, "NotAcceptable",
                   "only the following media types are accepted: " + ", ".join(SERVED_MEDIA_TYPES))


def verb_of(h, name, sub):
    m = h.command
    if m in ("GET", "HEAD"):
        if name is None:
            return "watch" if h.query.get("watch") in ("true", "1") else "list"
        return "get"
    return {"POST": "create", "PUT": "update", "PATCH": "patch",
            "DELETE": "delete" if name else "deletecollection"}[m]


def resource_call(h, res, ns, name, sub):
    store = h.server.store
    negotiate(h)
    verb = verb_of(h, name, sub)
    forbid(h, verb, res, name, ns, sub)
    dry = h.query.get("dryRun") == "All"
    manager = h.query.get("fieldManager") or h.headers.get("User-Agent", "unknown").split("/")[0]
    if verb == "get" and sub == "log":
        return logs(h, res, ns, name)
    if verb == "get":
        return h.send_json(200, store.get(res, ns, name))
    if verb == "list":
        return list_call(h, res, ns)
    if verb == "watch":
        return watch(h, res, ns)
    if verb == "create" and sub == "eviction":
        return evict(h, res, ns, name)
    body = parse_body(h) if verb in ("create", "update", "patch") else {}
    if body and verb in ("create", "update") and (body.get("kind", res.kind) != res.kind
                                                  and sub is None):
        raise ApiError(400, "BadRequest", f'the API version in the data ({body.get("apiVersion")}) does not match the expected API version ({res.api_version})')
    if verb == "create" and res.kind == "SelfSubjectAccessReview":
        return h.send_json(201, access_review(h, body))
    if verb == "create":
        h.server.controller.admit(res, ns, body)  # the operators' validating webhooks
        obj = store.create(res, ns, body, manager, dry)
        return h.send_json(201, obj)
    if verb == "update":
        return h.send_json(200, store.replace(res, ns, name, body, manager, dry, sub))
    if verb == "patch":
        return patch(h, res, ns, name, sub, body, manager, dry)
    if verb == "delete":
        opts = parse_body(h) if h.body() else {}
        prop = h.query.get("propagationPolicy") or opts.get("propagationPolicy")
        dry = dry or opts.get("dryRun") == ["All"]
        uid = (opts.get("preconditions") or {}).get("uid")
        obj = store.delete(res, ns, name, prop, dry, uid)
        if obj["metadata"].get("deletionTimestamp"):
            return h.send_json(200, obj)  # still there, Terminating: the object, as the apiserver
        return h.send_json(200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                                 "details": {"name": name, "group": res.group, "kind": res.plural,
                                             "uid": obj["metadata"]["uid"]}})
    # deletecollection
    items, _ = store.list(res, ns)
    for obj in items:
        if matches(h, obj):
            try:
                store.delete(res, ns, obj["metadata"]["name"], h.query.get("propagationPolicy"), dry)
            except ApiError:
                pass
    h.send_json(200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"})


def patch(h, res, ns, name, sub, body, manager, dry):
    ctype = h.headers.get("Content-Type", "").split(";")[0]
    store = h.server.store
    if ctype == "application/apply-patch+yaml":
        if not h.query.get("fieldManager"):
            raise ApiError(400, "BadRequest", "PATCH, fieldManager is required for apply requests")
        if body.get("apiVersion") != res.api_version or body.get("kind") != res.kind:
            raise ApiError(400, "BadRequest", f'the API version in the data ({body.get("apiVersion")}) does not match the expected API version ({res.api_version})')
        force = h.query.get("force") in ("true", "1")
        return h.send_json(200, store.apply(res, ns, name, body, manager, force, dry))
    if ctype in ("application/merge-patch+json", "application/strategic-merge-patch+json"):
        with store.lock:
            current = store.get(res, ns, name)
            new = merge_patch(current, body)
            return h.send_json(200, store.commit(res, current, new, manager, "Update", dry))
    raise ApiError(415, "UnsupportedMediaType", f'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml')


def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def list_call(h, res, ns):
    store = h.server.store
    items, rv = store.list(res, ns)
    items = [o for o in items if matches(h, o)]
    start = 0
    token = h.query.get("continue")
    if token:
        try:
            state = json.loads(base64.b64decode(token))
            start, rv = state["start"], state["rv"]
        except (ValueError, KeyError):
            raise ApiError(400, "BadRequest", "continue key is not valid")
    limit = int(h.query.get("limit") or 0)
    meta = {"resourceVersion": str(rv)}
    page = items[start:]
    if limit and len(page) > limit:
        page = page[:limit]
        meta["continue"] = base64.b64encode(json.dumps({"start": start + limit, "rv": rv}).encode()).decode()
        meta["remainingItemCount"] = len(items) - start - limit
    if "as=Table" in h.headers.get("Accept", ""):
        return h.send_json(200, table(page, meta))
    h.send_json(200, {"kind": res.kind + "List", "apiVersion": res.api_version, "metadata": meta,
                      "items": page})


def table(items, meta):
    def age(obj):
        secs = int(time.time()) - parse_time(obj["metadata"]["creationTimestamp"])[0]
        return f"{secs}s" if secs < 120 else f"{secs // 60}m"

    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": meta,
            "columnDefinitions": [
                {"name": "Name", "type": "string", "format": "name", "description": "Name", "priority": 0},
                {"name": "Age", "type": "string", "format": "", "description": "Age", "priority": 0}],
            "rows": [{"cells": [o["metadata"]["name"], age(o)],
                      "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                                 "metadata": o["metadata"]}} for o in items]}


# ---- watch -------------------------------------------------------------------------------------
def watch(h, res, ns):
    store = h.server.store
    timeout = float(h.query.get("timeoutSeconds") or 1800)
    bookmarks = h.query.get("allowWatchBookmarks") in ("true", "1")
    rv = h.query.get("resourceVersion") or "0"
    deadline = time.monotonic() + timeout
    with store.lock:
        if rv == "0":
            items, cursor = store.list(res, ns)
            initial = [("ADDED", o) for o in items if matches(h, o)]
        else:
            cursor = int(rv)
            initial = []
            if cursor < store.compacted_rv:
                initial = None
    h.start_chunked("application/json")
    if initial is None:
        send_event(h, "ERROR", {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                "message": f"too old resource version: {rv} ({store.compacted_rv})",
                                "reason": "Expired", "code": 410})
        return h.end_chunked()
    sent = 0
    for etype, obj in initial:
        send_event(h, etype, obj)
        sent += 1
        if h.fault == "truncate" and sent == 1:
            return h.drop()
    last_bookmark = time.monotonic()
    while not h.server.stopping.is_set():
        with store.changed:
            pending = [(r, t, o) for (r, t, ev_res, o) in
                       ((e[0], e[1], e[2], e[3]) for e in store.events)
                       if r > cursor and ev_res is res and (ns is None or o["metadata"].get("namespace") == ns)]
            if not pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                store.changed.wait(min(left, h.server.config["bookmark_interval"]))
                pending = []
        for r, t, o in pending:
            cursor = r
            if matches(h, o):
                send_event(h, t, o)
                sent += 1
                if h.fault == "truncate":
                    h.wfile.write(b"40\r\n{\"type\":")
                    return h.drop()
        if bookmarks and time.monotonic() - last_bookmark >= h.server.config["bookmark_interval"]:
            with store.lock:
                cursor = max(cursor, store.rv) if not any(e[0] > cursor for e in store.events) else cursor
            send_event(h, "BOOKMARK", {"kind": res.kind, "apiVersion": res.api_version,
                                       "metadata": {"resourceVersion": str(cursor)}})
            last_bookmark = time.monotonic()
        if time.monotonic() >= deadline:
            break
    h.end_chunked()


def send_event(h, etype, obj):
    h.chunk(json.dumps({"type": etype, "object": obj}).encode() + b"\n")


# ---- logs and eviction -------------------------------------------------------------------------
def logs(h, res, ns, name):
    pod = h.server.store.get(res, ns, name)
    containers = [c["name"] for c in pod.get("spec", {}).get("containers", [])]
    container = h.query.get("container")
    if not container:
        if len(containers) != 1:
            raise ApiError(400, "BadRequest", f'a container name must be specified for pod {name}, choose one of: [{" ".join(containers)}]')
        container = containers[0]
    elif container not in containers:
        raise ApiError(400, "BadRequest", f"container {container} is not valid for pod {name}")
    key = (ns, name, container)
    log = h.server.logs.setdefault(key, {"lines": [], "previous": [], "done": False})
    previous = h.query.get("previous") in ("true", "1")
    if previous and not log["previous"]:
        raise ApiError(400, "BadRequest", f'previous terminated container "{container}" in pod "{name}" not found')
    # The lines sent first and the count a follow goes on from are taken together: a line
    # added between the two would be in neither (a lost line, and a test waiting for ever).
    with h.server.store.changed:
        own = log["lines"]
        lines = list(log["previous"] if previous else own)
        seen = len(own)
        now = h.server.store.objects.get(h.server.store.key(res, ns, name)) or pod
        restarts = restart_count(now, container)
    since = h.query.get("sinceTime")
    if h.query.get("sinceSeconds") is not None:
        since = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(
            seconds=int(h.query["sinceSeconds"]))
        since = since.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if since:
        # The API server hands sinceTime to the kubelet in whole seconds (RFC3339, not Nano),
        # and the kubelet's filter is inclusive: a stream asked from a line's time starts again
        # with every line of that second.
        since = (parse_time(since)[0], 0)
        lines = [ln for ln in lines if parse_time(ln["time"]) >= since]
    tail = h.query.get("tailLines")
    if tail is not None and int(tail) >= 0:
        lines = lines[len(lines) - int(tail):] if int(tail) else []
    stamps = h.query.get("timestamps") in ("true", "1")
    follow = h.query.get("follow") in ("true", "1") and not previous
    h.start_chunked("text/plain")

    cut = take_cut(h.server, key)
    if cut is None and h.fault == "cut_log":
        cut = h.server.faults.log_cut()
    sent = [0]

    def emit(ln):
        """Sends a line; False once the stream is cut (after `cut` lines, half of the next one
        sent and no final chunk)."""
        text = ((ln["time"] + " " if stamps else "") + ln["text"] + "\n").encode()
        if cut is not None and sent[0] == cut:
            h.chunk(text[:len(text) // 2])
            h.drop()
            return False
        h.chunk(text)
        sent[0] += 1
        return True

    for i, ln in enumerate(lines):
        if not emit(ln):
            return
        if h.fault == "truncate" and i == len(lines) // 2:
            return h.drop()
    # `own` is this container's lines: a restart (pod-phase with restarts) makes them "previous"
    # and starts a new list for the new container, which this stream never shows.
    while follow and not h.server.stopping.is_set():
        with h.server.store.changed:
            if len(own) == seen and not log["done"]:
                h.server.store.changed.wait(0.5)
            new = own[seen:]
            seen = len(own)
            done = log["done"]
            current = h.server.store.objects.get(h.server.store.key(res, ns, name))
            # The kubelet ends a followed log when the container ends or the pod goes.
            gone = current is None or current["metadata"]["uid"] != pod["metadata"]["uid"] or \
                current.get("status", {}).get("phase") in ("Succeeded", "Failed") or \
                restart_count(current, container) != restarts or log["lines"] is not own
        for ln in new:
            if (not since or parse_time(ln["time"]) >= since) and not emit(ln):
                return
        if done or gone:
            break
    h.end_chunked()


def take_cut(srv, key):
    """The lines after which this stream of the log `key` breaks (/_test/log-cut), or None."""
    with srv.store.changed:
        cuts = srv.log_cuts.get(key)
        return cuts.pop(0) if cuts else None


def restart_count(pod, container):
    for cs in pod.get("status", {}).get("containerStatuses", []):
        if cs.get("name") == container:
            return cs.get("restartCount", 0)
    return 0


def proxy(h, res, ns, target, path):
    """The pod proxy: answers as a pod's HTTP server would, naming what was asked."""
    name, _, port = target.partition(":")
    forbid(h, "get", res, name, ns, "proxy")
    pod = h.server.store.get(res, ns, name)
    h.send_json(200, {"pod": pod["metadata"]["name"], "port": port or "80", "path": path})


def evict(h, res, ns, name):
    h.server.store.get(res, ns, name)
    if name in h.server.config["evict_blocked"]:
        raise ApiError(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.",
                       {"causes": [{"reason": "DisruptionBudget",
                                    "message": "The disruption budget ejob-pdb needs 1 healthy pods and has 1 currently"}]})
    dry_run = h.query.get("dryRun") == "All"
    if not dry_run:
        # As kube-apiserver ≥ 1.26 does: the pod is marked before it goes, so that its watchers
        # (the job's controller, ejob --wait) tell an eviction from a failure.
        pod = h.server.store.get(res, ns, name)
        conditions = [c for c in pod.setdefault("status", {}).get("conditions", [])
                      if c.get("type") != "DisruptionTarget"]
        conditions.append({"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
                           "message": "Eviction API: evicting",
                           "lastTransitionTime": now_rfc3339()})
        pod["status"]["conditions"] = conditions
        h.server.store.replace(res, ns, name, pod, "kube-apiserver", False, subresource="status")
    h.server.store.delete(res, ns, name, None, dry_run)
    h.send_json(201, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201})


# ---- test control ------------------------------------------------------------------------------
def control(h):
    srv = h.server
    cmd = h.url_path[len("/_test/"):]
    body = json.loads(h.body() or b"{}")
    if cmd == "faults":
        srv.faults.configure(body if h.command == "POST" else {})
    elif cmd == "requests":
        with srv.requests_lock:
            return h.send_json(200, list(srv.requests))
    elif cmd == "requests/reset":
        with srv.requests_lock:
            srv.requests.clear()
    elif cmd == "tokens":
        for token, user in body.items():
            if user is None:
                srv.tokens.pop(token, None)
            else:
                srv.tokens[token] = user
    elif cmd == "logs":
        key = (body["namespace"], body["pod"], body["container"])
        with srv.store.changed:
            log = srv.logs.setdefault(key, {"lines": [], "previous": [], "done": False})
            for field in ("lines", "previous"):
                for ln in body.get(field, []):
                    log[field].append({"time": ln.get("time") or now_nano(), "text": ln["text"]})
            log["done"] = body.get("done", log["done"])
            srv.store.changed.notify_all()
    elif cmd == "log-cut":
        key = (body["namespace"], body["pod"], body["container"])
        with srv.store.changed:
            srv.log_cuts.setdefault(key, []).extend(int(n) for n in body["after"])
    elif cmd == "pod-phase":
        if body.get("restarts") is not None:  # a new container: the old one's log is "previous"
            with srv.store.changed:
                for (ns, pod, container), log in srv.logs.items():
                    if (ns, pod) == (body["namespace"], body["name"]):
                        log["previous"], log["lines"] = log["lines"], []
                srv.store.changed.notify_all()
        srv.controller.set_pod_phase(body["namespace"], body["name"], body["phase"], body.get("exitCode", 0),
                                     body.get("reason"), body.get("message"), body.get("disruption"),
                                     body.get("restarts"))
    elif cmd == "status":  # what a controller writes: an object's status, as given
        with srv.store.lock:
            res = srv.store.resource_for_kind(body["apiVersion"], body["kind"])
            current = srv.store.get(res, body.get("namespace"), body["name"])
            new = copy.deepcopy(current)
            new["status"] = body["status"]
            srv.store.commit(res, current, new, "test-controller", "Update", False)
    elif cmd == "config":
        srv.config.update({k: v for k, v in body.items() if k not in ("crd_establish_delay", "gc_delay", "gc")})
        if "crd_establish_delay" in body:
            srv.store.crd_establish_delay = float(body["crd_establish_delay"])
        if "gc_delay" in body:
            srv.store.gc_delay = float(body["gc_delay"])
        if "gc" in body:
            srv.store.gc_enabled = bool(body["gc"])
    elif cmd == "compact":
        srv.store.compact()
    elif cmd == "sync":
        for _ in range(20):  # the controller's work makes garbage, and the collector's work events
            srv.controller.wait_idle()
            srv.store.wait_gc_idle()
            if srv.controller.busy == 0 and srv.store.gc_pending == 0:
                break
    elif cmd == "objects":
        with srv.store.lock:
            return h.send_json(200, [o for o in srv.store.objects.values()])
    elif cmd == "websocket":
        return websocket.serve_echo(h)
    elif cmd == "websocket-closes":
        return h.send_json(200, list(srv.websocket_closes))
    elif cmd == "shutdown":
        srv.stopping.set()
    else:
        raise ApiError(404, "NotFound", f"no test control endpoint {cmd}")
    h.send_json(200, {"ok": True, "at": now_rfc3339()})
