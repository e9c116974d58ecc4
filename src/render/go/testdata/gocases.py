"""Shared helpers for the generators of Go-verified test tables (go_fmt, json, yaml).

Values are written in a small Python notation and rendered both as Go expressions (to run
through the real Go library) and as C++ expressions building ejob::render::go::Value:
  None nil; True/False bool; ('i',n) int; ('I',n) int64; ('u',n) uint64; ('B',n) uint8;
  float → float64; ('f', 'inf'|'-inf'|'nan') special floats; str → string; bytes → []byte;
  list → []interface{}; ('ls',[...]) []string; ('li',[...]) []int; dict → map[string]interface{};
  ('ms',{...}) map[string]string; ('vals',{...}) chartutil.Values.
"""
import base64
import math
import os
import subprocess
import tempfile


def go_bytes(b):
    out = '"'
    for c in b:
        if 0x20 <= c < 0x7f and c not in (0x22, 0x5c):
            out += chr(c)
        else:
            out += '\\x%02x' % c
    return out + '"'


def cpp_bytes(b):
    out = '"'
    for c in b:
        if 0x20 <= c < 0x7f and c not in (0x22, 0x5c, 0x3f):
            out += chr(c)
        else:
            out += '\\%03o' % c
    return out + '"'


def cpp_string(b):
    if isinstance(b, str):
        b = b.encode()
    return 'std::string(%s, %d)' % (cpp_bytes(b), len(b))


def go_float(x):
    if isinstance(x, tuple):
        return {'inf': 'math.Inf(1)', '-inf': 'math.Inf(-1)', 'nan': 'math.NaN()'}[x[1]]
    if x == 0 and math.copysign(1, x) < 0:
        return 'math.Copysign(0, -1)'
    return 'float64(%r)' % x


def cpp_float(x):
    if isinstance(x, tuple):
        return {'inf': 'std::numeric_limits<double>::infinity()',
                '-inf': '-std::numeric_limits<double>::infinity()',
                'nan': 'std::numeric_limits<double>::quiet_NaN()'}[x[1]]
    return repr(x)


def go_expr(v):
    if v is None:
        return 'nil'
    if v is True or v is False:
        return 'true' if v else 'false'
    if isinstance(v, float):
        return go_float(v)
    if isinstance(v, int):
        return 'int(%d)' % v
    if isinstance(v, str):
        return go_bytes(v.encode())
    if isinstance(v, bytes):
        return '[]byte(%s)' % go_bytes(v)
    if isinstance(v, list):
        return '[]interface{}{%s}' % ', '.join(go_expr(x) for x in v)
    if isinstance(v, dict):
        return 'map[string]interface{}{%s}' % ', '.join(
            '%s: %s' % (go_bytes(k.encode()), go_expr(x)) for k, x in v.items())
    tag, x = v
    if tag == 'f':
        return go_float(v)
    if tag in ('i', 'I', 'u', 'B'):
        return '%s(%d)' % ({'i': 'int', 'I': 'int64', 'u': 'uint64', 'B': 'uint8'}[tag], x)
    if tag == 'ls':
        return '[]string{%s}' % ', '.join(go_bytes(s.encode()) for s in x)
    if tag == 'li':
        return '[]int{%s}' % ', '.join(str(i) for i in x)
    if tag == 'ms':
        return 'map[string]string{%s}' % ', '.join(
            '%s: %s' % (go_bytes(k.encode()), go_bytes(s.encode())) for k, s in x.items())
    if tag == 'vals':
        return 'chartutil.Values{%s}' % ', '.join(
            '%s: %s' % (go_bytes(k.encode()), go_expr(s)) for k, s in x.items())
    raise ValueError(v)


def cpp_int(x):
    return '(-9223372036854775807LL - 1)' if x == -2**63 else '%dLL' % x


def cpp_expr(v):
    if v is None:
        return 'Value()'
    if v is True or v is False:
        return 'Value::boolean(%s)' % ('true' if v else 'false')
    if isinstance(v, float):
        return 'Value::float64(%s)' % cpp_float(v)
    if isinstance(v, int):
        return 'Value::integer(%d)' % v
    if isinstance(v, str):
        return 'Value::string(%s)' % cpp_string(v)
    if isinstance(v, bytes):
        return 'Value::bytes(%s)' % cpp_string(v)
    if isinstance(v, list):
        return 'Value::list(List{%s})' % ', '.join(cpp_expr(x) for x in v)
    if isinstance(v, dict):
        return 'Value::map(Map{%s})' % ', '.join(
            '{%s, %s}' % (cpp_string(k), cpp_expr(x)) for k, x in v.items())
    tag, x = v
    if tag == 'f':
        return 'Value::float64(%s)' % cpp_float(v)
    if tag == 'i':
        return 'Value::integer(%s)' % cpp_int(x)
    if tag == 'I':
        return 'Value::int64(%s)' % cpp_int(x)
    if tag == 'u':
        return 'Value::uint64(%dULL)' % x
    if tag == 'B':
        return 'Value::integer(%d, GoType::Uint8)' % x
    if tag == 'ls':
        return 'Value::list(List{%s}, GoType::ListString)' % ', '.join(cpp_expr(s) for s in x)
    if tag == 'li':
        return 'Value::list(List{%s}, GoType::ListInt)' % ', '.join(cpp_expr(i) for i in x)
    if tag == 'ms':
        return 'Value::map(Map{%s}, GoType::MapString)' % ', '.join(
            '{%s, %s}' % (cpp_string(k), cpp_expr(s)) for k, s in x.items())
    if tag == 'vals':
        return 'Value::map(Map{%s}, GoType::Values)' % ', '.join(
            '{%s, %s}' % (cpp_string(k), cpp_expr(s)) for k, s in x.items())
    raise ValueError(v)


def run_go(body, imports):
    """Runs a Go main whose body prints one base64 line per case; returns the decoded bytes."""
    src = 'package main\n\nimport (\n%s\n)\n\nfunc main() {\n%s\n}\n' % (
        '\n'.join('\t%s' % i if '"' in i else '\t"%s"' % i for i in imports), body)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'main.go')
        with open(path, 'w') as f:
            f.write(src)
        env = dict(os.environ, GO111MODULE='off', GOPATH='/tmp/gp:/usr/share/gocode',
                   GOCACHE='/tmp/gocache')
        out = subprocess.run(['go', 'run', path], env=env, check=True, capture_output=True)
    return [base64.b64decode(line) for line in out.stdout.decode().splitlines()]
