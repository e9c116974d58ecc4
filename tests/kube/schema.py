"""Custom resources as kube-apiserver's apiextensions treats them (structural schemas,
apiextensions-apiserver pkg/apiserver/schema): unknown fields pruned, defaults applied after
pruning, then the object validated against its version's openAPIV3Schema. The root's
apiVersion, kind and metadata are never pruned; neither is anything under
x-kubernetes-preserve-unknown-fields, nor an embedded resource's apiVersion/kind/metadata.
x-kubernetes-validations (CEL rules) are not evaluated: the test server cannot run CEL, and
ejob's objects do not depend on them.
"""

import copy
import re


def prune(value, schema, root=False):
    """Removes, in place, every field the schema does not specify."""
    if not isinstance(schema, dict):
        return
    if isinstance(value, dict):
        if schema.get("x-kubernetes-preserve-unknown-fields"):
            keep_unknown = True
        else:
            keep_unknown = False
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        embedded = schema.get("x-kubernetes-embedded-resource")
        for key in list(value):
            if (root or embedded) and key in ("apiVersion", "kind", "metadata"):
                continue
            if key in props:
                prune(value[key], props[key])
            elif isinstance(extra, dict):
                prune(value[key], extra)
            elif not keep_unknown and extra is not True:
                del value[key]
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            prune(item, schema["items"])


def default(value, schema):
    """Sets, in place, each missing field that has a default (and recursing into present ones).
    A null in a field that is not nullable is dropped first, as the server does."""
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key, sub in props.items():
            if key in value and value[key] is None and not sub.get("nullable"):
                del value[key]
            if key not in value and "default" in sub:
                value[key] = copy.deepcopy(sub["default"])
            if key in value:
                default(value[key], sub)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for key in value:
                if key not in props:
                    default(value[key], extra)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            default(item, schema["items"])


def _type_of(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _type_ok(value, schema):
    want = schema.get("type")
    got = _type_of(value)
    if schema.get("x-kubernetes-int-or-string"):
        return got in ("integer", "string")
    if want is None or (got == "null" and schema.get("nullable")):
        return True
    return got == want or (want == "number" and got == "integer")


def validate(value, schema, path, causes):
    """Appends a Status cause per violation: type, required, enum, bounds, pattern."""
    if not _type_ok(value, schema):
        causes.append({"reason": "FieldValueTypeInvalid", "field": path,
                       "message": f'Invalid value: "{_type_of(value)}": {path} in body must be of type '
                                  f'{schema.get("type")}: "{_type_of(value)}"'})
        return
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(f'"{e}"' for e in schema["enum"])
        causes.append({"reason": "FieldValueNotSupported", "field": path,
                       "message": f'Unsupported value: "{value}": supported values: {allowed}'})
    _check_bounds(value, schema, path, causes)
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                causes.append({"reason": "FieldValueRequired", "field": f"{path}.{name}",
                               "message": "Required value"})
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            sub = props.get(key, extra if isinstance(extra, dict) else None)
            if sub is not None:
                validate(item, sub, f"{path}.{key}", causes)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            validate(item, schema["items"], f"{path}[{i}]", causes)


def _check_bounds(value, schema, path, causes):
    def invalid(why):
        causes.append({"reason": "FieldValueInvalid", "field": path,
                       "message": f"Invalid value: {_shown(value)}: {path} in body {why}"})

    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            invalid(f"should be greater than or equal to {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            invalid(f"should be less than or equal to {schema['maximum']}")
    if isinstance(value, str):
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            invalid(f"may not be longer than {schema['maxLength']}")
        if "minLength" in schema and len(value) < schema["minLength"]:
            invalid(f"should be at least {schema['minLength']} chars long")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            invalid(f"should match '{schema['pattern']}'")
    if isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            invalid(f"must have at most {schema['maxItems']} items")
        if "minItems" in schema and len(value) < schema["minItems"]:
            invalid(f"should have at least {schema['minItems']} items")


def _shown(value):
    return f'"{value}"' if isinstance(value, str) else str(value)


def admit(obj, schema):
    """Prunes and defaults `obj` (in place) and returns the causes of its invalid fields."""
    prune(obj, schema, root=True)
    default(obj, schema)
    causes = []
    body = {k: v for k, v in obj.items() if k != "metadata"}
    props = {k: v for k, v in schema.get("properties", {}).items() if k != "metadata"}
    validate(body, dict(schema, properties=props, required=[
        r for r in schema.get("required", []) if r != "metadata"]), "", causes)
    for c in causes:
        c["field"] = c["field"].lstrip(".")
        c["message"] = c["message"].replace(" .", " ")
    return causes
