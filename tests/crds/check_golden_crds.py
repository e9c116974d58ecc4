#!/usr/bin/env python3
"""Every custom resource ejob renders in the golden cases is valid for its real CRD
(../shared/crds, charts/elasticjob-crd): each field is in the structural schema (nothing a
server would prune), types, enums, required fields, minimums. A field that a server drops
silently is a setting the user asked for and never got.

    check_golden_crds.py REPO SHARED_CRDS
"""

import glob
import os
import sys

import yaml


def load_crds(paths):
    schemas = {}
    for path in paths:
        for doc in yaml.safe_load_all(open(path)):
            if not doc or doc.get("kind") != "CustomResourceDefinition":
                continue
            spec = doc["spec"]
            for v in spec.get("versions") or [{"name": spec.get("version")}]:
                schema = (v.get("schema") or spec.get("validation") or {}).get("openAPIV3Schema")
                if schema:  # the v1beta1 original has one for all versions
                    schemas[(f"{spec['group']}/{v['name']}", spec["names"]["kind"])] = schema
    return schemas


TYPES = {"object": dict, "array": list, "string": str, "boolean": bool}


def type_ok(value, schema):
    t = schema.get("type")
    if schema.get("x-kubernetes-int-or-string"):
        return isinstance(value, (int, str)) and not isinstance(value, bool)
    if t is None:
        return True
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[t])


def check(value, schema, path, errors):
    if value is None:
        if not schema.get("nullable"):
            errors.append(f"{path}: null where the schema wants {schema.get('type')}")
        return
    if not type_ok(value, schema):
        errors.append(f"{path}: {type(value).__name__} where the schema wants {schema.get('type')}")
        return
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if "minimum" in schema and isinstance(value, (int, float)) and value < schema["minimum"]:
        errors.append(f"{path}: {value} is below {schema['minimum']}")
    if isinstance(value, dict):
        check_object(value, schema, path, errors)
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            check(item, schema["items"], f"{path}[{i}]", errors)


def check_object(value, schema, path, errors):
    for name in schema.get("required", []):
        if name not in value:
            errors.append(f"{path}.{name}: required")
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        return
    props = schema.get("properties", {})
    extra = schema.get("additionalProperties")
    for key, item in value.items():
        if key in props:
            check(item, props[key], f"{path}.{key}", errors)
        elif isinstance(extra, dict):
            check(item, extra, f"{path}.{key}", errors)
        elif not (schema.get("x-kubernetes-embedded-resource") and key in ("apiVersion", "kind", "metadata")):
            errors.append(f"{path}.{key}: not in the CRD's schema (a server prunes it)")


def main():
    repo, shared = sys.argv[1], sys.argv[2]
    # ejob's own ElasticJob CRD (apiextensions v1) last: it is the one `ejob install-crds` applies.
    crds = sorted(glob.glob(os.path.join(shared, "*.yaml")))
    crds += glob.glob(os.path.join(repo, "charts", "elasticjob-crd", "templates", "*.yaml"))
    schemas = load_crds(crds)
    checked, errors = 0, []
    for out in sorted(glob.glob(os.path.join(repo, "tests", "golden", "*", "expected.out"))):
        case = os.path.basename(os.path.dirname(out))
        text = open(out).read()
        if not text.startswith("---"):
            continue  # not manifests (help text, values)
        for doc in yaml.safe_load_all(text):
            if not isinstance(doc, dict) or (doc.get("apiVersion"), doc.get("kind")) not in schemas:
                continue
            schema = schemas[(doc["apiVersion"], doc["kind"])]
            body = {k: v for k, v in doc.items() if k != "metadata"}
            found = []
            check_object(body, {**schema, "properties": {k: v for k, v in schema.get("properties", {}).items() if k != "metadata"}}, doc["kind"], found)
            errors += [f"{case}: {e}" for e in found]
            checked += 1
    for e in errors:
        print(e)
    print(f"{checked} custom resources checked against their CRDs, {len(errors)} problems")
    return 1 if errors or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
