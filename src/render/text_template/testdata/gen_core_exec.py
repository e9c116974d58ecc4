"""Generates core_exec_cases.inc: text/template parse and execution results computed by Go
itself (text/template + Sprig, missingkey=zero), for exec_test.cpp. Each case is a template, its
data as JSON (decoded like encoding/json: numbers are float64) and Go's output; a failure is
written as the output so far followed by `PARSE: <err>` or `EXEC: <err>`.
Run: python3 src/render/text_template/testdata/gen_core_exec.py [GOROOT] (needs scripts/peers.sh's mergo
1.0.1, and Sprig in /usr/share/gocode). GOROOT defaults to scripts/peers.sh's Go 1.24; the
checked-in table was made with Go 1.26.10, the Go of Helm v3.21.4 (Debian sid's golang-1.26-go
and golang-1.26-src unpacked with dpkg-deb -x), where 1.26 differs from 1.24: `eq`/`lt` name both
types in "incompatible types for comparison: T1 and T2"."""
import json
import os
import sys
import subprocess
import tempfile

GO_MAIN = r'''package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
)

func main() {
	src, _ := io.ReadAll(os.Stdin)
	var data interface{}
	json.Unmarshal([]byte(os.Args[1]), &data)
	t := template.New("x").Funcs(sprig.TxtFuncMap()).Option("missingkey=zero")
	var b strings.Builder
	if _, err := t.Parse(string(src)); err != nil {
		fmt.Printf("PARSE: %s", err)
		return
	}
	if err := t.Execute(&b, data); err != nil {
		fmt.Printf("%sEXEC: %s", b.String(), err)
		return
	}
	fmt.Print(b.String())
}
'''

N = '{"a": 1, "s": "str", "z": 0, "f": 1.5, "big": 1000000, "t": true, "n": null, ' \
    '"l": [1, "two", null, 3.5], "e": [], "m": {"k": "v", "b": 2, "a": {"x": 1}}, "em": {}}'

CASES = [
    # text, trim markers, comments
    ('plain text', 'null'),
    ('a  {{- "b" -}}  \n c', 'null'),
    ('a \n\t{{- 3 }} \n', 'null'),
    ('{{ 3 -}}\n\n  x', 'null'),
    ('{{-3}}', 'null'),
    ('x {{- /* c */ -}} y', 'null'),
    ('x {{/* multi\nline */}} y', 'null'),
    ('a{{/* c */ -}}  b', 'null'),
    ('{{ "a"\n | printf "%s-%s" "b" }}', 'null'),
    # literals
    ("{{ 'a' }} {{ 1_000 }} {{ 0x10 }} {{ -0.0 }} {{ 0o17 }} {{ 0b101 }} {{ 1e3 }} {{ 1.5 }}", 'null'),
    ('{{ "a\\tb\\u00e9\\x41" }}|{{ `raw\\n` }}', 'null'),
    ('{{ true }} {{ false }} {{ 0x1p4 }} {{ 017 }} {{ .5 }} {{ -7 }}', 'null'),
    ('{{ nil }}', 'null'),
    ('{{ 1e400 }}', 'null'),
    ('{{ 0x1.8 }}', 'null'),
    # fields and missing values
    ('{{ .a }} {{ .s }} {{ .big }} {{ .t }} {{ .n }} {{ .missing }} {{ .l }} {{ .m }}', N),
    ('{{ .m.k }} {{ .m.a.x }} {{ .m.nope }} {{ .em.x }}', N),
    ('{{ .missing.sub }}', N),
    ('{{ .n.sub }}', N),
    ('{{ .a.sub }}', N),
    ('{{ .s.sub }}', N),
    ('{{ .l.x }}', N),
    ('{{ $x := .missing }}{{ $x.a.b }}|', N),
    ('{{ $x := .a }}{{ $x.b }}', N),
    ('{{ .m.k.z }}', N),
    ('{{ .a 1 }}', N),
    ('{{ (.m).k }} {{ (index .l 1) }}', N),
    ('{{ . }}', '"top"'),
    ('{{ .x }}', '5'),
    ('{{ .x }}', 'null'),
    ('{{ .x.y }}', 'null'),
    # variables
    ('{{ $x := 1 }}{{ $x }}{{ $x = 2 }}{{ $x }}', 'null'),
    ('{{ $x := 1 }}{{ if true }}{{ $x = 3 }}{{ $y := 4 }}{{ $y }}{{ end }}{{ $x }}', 'null'),
    ('{{ $ }}', '"root"'),
    ('{{ with .m }}{{ $.s }}{{ .k }}{{ end }}', N),
    ('{{ $x := $x }}', 'null'),
    ('{{ $x := .a }}{{ $x }}', N),
    # if / else if / with / else with
    ('{{ if .a }}A{{ else }}B{{ end }}{{ if .z }}A{{ else if .s }}S{{ else }}C{{ end }}', N),
    ('{{ if .e }}1{{ end }}{{ if .em }}2{{ end }}{{ if .n }}3{{ end }}{{ if "0" }}4{{ end }}{{ if 0.0 }}5{{ end }}', N),
    ('{{ with .m }}{{ .k }}{{ else }}none{{ end }}|{{ with .missing }}x{{ else }}none{{ end }}', N),
    ('{{ if $v := .s }}{{ $v }}{{ end }}', N),
    # range
    ('{{ range .l }}[{{ . }}]{{ end }}', N),
    ('{{ range $i, $e := .l }}{{ $i }}={{ $e }};{{ end }}', N),
    ('{{ range $k, $v := .m }}{{ $k }}:{{ $v }} {{ end }}', N),
    ('{{ range .e }}x{{ else }}empty{{ end }}{{ range .missing }}x{{ else }}nil{{ end }}', N),
    ('{{ range .a }}x{{ end }}', N),
    ('{{ range .s }}x{{ end }}', N),
    ('{{ range $i, $e := .l }}{{ if eq $i 2.0 }}{{ break }}{{ end }}{{ $e }}{{ end }}', N),
    ('{{ range $i, $e := .l }}{{ if eq $i 1 }}{{ continue }}{{ end }}{{ $e }},{{ break }}{{ end }}', N),
    ('{{ range .l }}{{ .x }}{{ end }}', N),
    ('{{ range $e := .l }}{{ $e.x }}{{ end }}', '{"l": [null]}'),
    ('{{ range $e := .l }}{{ trunc 2 $e }}{{ end }}', '{"l": [null]}'),
    ('{{ range $x := .l }}{{ end }}{{ $x }}', N),
    ('{{ range $i, $e := .m }}{{ $i }}{{ end }}', N),
    ('{{ range (list 3 1 2) }}{{ . }}{{ end }}', 'null'),
    # define / template / block
    ('{{ define "a" }}A{{ . }}{{ end }}{{ template "a" 5 }}{{ template "a" }}', 'null'),
    ('{{ template "nope" }}', 'null'),
    ('{{ block "b" .s }}[{{ . }}]{{ end }}', N),
    ('{{ define "a" }}{{ $ }}{{ end }}{{ template "a" .m.k }}', N),
    ('{{ define "x" }}{{ end }}', 'null'),
    ('{{ define "r" }}{{ .x }}{{ end }}{{ template "r" .m }}', N),
    # functions and arguments
    ('{{ trunc 2 "abcdef" }} {{ trunc 2.0 "abc" }}', 'null'),
    ('{{ trunc .a "abc" }}', N),
    ('{{ trunc 1.5 "abc" }}', 'null'),
    ('{{ trunc "x" "abc" }}', 'null'),
    ('{{ trunc 2 3 }}', 'null'),
    ('{{ trunc 2 }}', 'null'),
    ('{{ trunc 2 "a" "b" }}', 'null'),
    ('{{ "abc" | trunc 2 }} {{ .s | upper }}', N),
    ('{{ .a | upper }}', N),
    ('{{ upper nil }}', 'null'),
    ('{{ upper .missing }}', N),
    ('{{ .missing | upper }}', N),
    ('{{ 3 | upper }}', 'null'),
    ('{{ upper .l }}', N),
    ('{{ list 1 "a" nil .a }}', N),
    ('{{ printf "%d %s %v" 1 "x" .f }} {{ printf "%d" .a }}', N),
    ('{{ printf 3 }}', 'null'),
    ('{{ print 1 2 "a" "b" 3 nil true }}|{{ println 1 "a" }}|', 'null'),
    ('{{ "x" 1 }}', 'null'),
    ('{{ .s.x 1 }}', N),
    ('{{ (1) 2 }}', 'null'),
    ('{{ $x := 1 }}{{ $x 2 }}', 'null'),
    ('{{ 1 | $ }}', 'null'),
    ('{{ nil.x }}', 'null'),
    ('{{ (nil).x }}', 'null'),
    ('{{ (list 1).x }}', 'null'),
    ('{{ (dict "a" 1).a }}', 'null'),
    ('{{ 99999999999999999999.0 }}', 'null'),
    ('{{ 18446744073709551615 }}', 'null'),
    # and / or / not
    ('{{ and 1 0 "x" }}|{{ and 1 2 }}|{{ or 0 "" }}|{{ or 0 "a" 1 }}|{{ not .z }}|{{ not .s }}', N),
    ('{{ and .missing .missing.sub }}|{{ or .s .missing.sub }}', N),
    ('{{ and }}', 'null'),
    ('{{ 0 | and 1 }}|{{ 0 | or 1 }}|{{ 5 | and 1 }}', 'null'),
    ('{{ and .l .m }}', N),
    # comparisons
    ('{{ eq 1 1 }} {{ eq .a 1.0 }} {{ eq "a" "a" "b" }} {{ eq .s "x" "str" }} {{ ne 1 2 }}', N),
    ('{{ eq .a 1 }}', N),
    ('{{ eq .missing "x" }} {{ eq .missing nil }} {{ eq nil .missing }} {{ eq .n 1 }}', N),
    ('{{ eq 1 }}', 'null'),
    ('{{ eq .m .m }}', N),
    ('{{ eq .l "x" }}', N),
    ('{{ eq .l .m }}', N),
    ('{{ lt 1 2 }} {{ le 2 2 }} {{ gt "b" "a" }} {{ ge 1.5 .f }} {{ lt -1 2 }}', N),
    ('{{ lt 1 1.5 }}', 'null'),
    ('{{ lt true false }}', 'null'),
    ('{{ lt .missing 1 }}', N),
    ('{{ gt .l 1 }}', N),
    # len / index / slice
    ('{{ len "héllo" }} {{ len .l }} {{ len .m }} {{ len .e }}', N),
    ('{{ len .missing }}', N),
    ('{{ .missing | len }}', N),
    ('{{ len 3 }}', 'null'),
    ('{{ len nil }}', 'null'),
    ('{{ index nil 1 }}|{{ eq nil nil }}|{{ not nil }}|{{ and nil 1 }}|{{ or nil 1 }}', 'null'),
    ('{{ len .a }}', N),
    ('{{ index .l 1 }} {{ index .m "k" }} {{ index .m "a" "x" }} {{ index .m "nope" }} {{ index "abc" 1 }}', N),
    ('{{ index .l 5 }}', N),
    ('{{ index .l 4 }}', N),
    ('{{ index .l .a }}', N),
    ('{{ index .m 1 }}', N),
    ('{{ index .missing 1 }}', N),
    ('{{ index .l nil }}', N),
    ('{{ index 3 1 }}', 'null'),
    ('{{ index .l 2 "x" }}', N),
    ('{{ index .m nil }}', N),
    ('{{ index .l -1 }}', N),
    ('{{ index .l }}', N),
    # escapers, call
    ('{{ html "<a href=\'x\'>&\\"" }} {{ js "a\'b\\"c<>=&\\\\\\n" }} {{ urlquery "a b&c/d" }}', 'null'),
    ('{{ html nil }} {{ html 1 2 }} {{ urlquery "x" 1 }} {{ js "é\\u2028" }}', 'null'),
    ('{{ call .a }}', N),
    ('{{ call .missing }}', N),
    # Go >= 1.24 names the callee: the first argument's node, or the piped value's String()
    ('{{ call .s 1 }}', N),
    ('{{ .s | call }}', N),
    ('{{ .a | call }}', N),
    ('{{ call (print "x") }}', N),
    ('{{ call $ }}', N),
    # Go 1.22..1.24: range over an integer, else with, range assigning to declared variables
    ('{{ range 3 }}[{{ . }}]{{ end }}|{{ range 0 }}x{{ else }}none{{ end }}|{{ range -2 }}x{{ else }}neg{{ end }}', N),
    ('{{ range $i := 3 }}{{ $i }}{{ end }}', N),
    ('{{ range $i, $e := 3 }}{{ $i }}{{ end }}', N),
    ('{{ range (len .l) }}{{ . }}{{ end }}', N),
    ('{{ range len .m }}{{ . }}{{ end }}|{{ range .a }}x{{ end }}', N),
    ('{{ with .missing }}a{{ else with .s }}{{ . }}{{ else }}c{{ end }}', N),
    ('{{ with .z }}a{{ else with .missing }}b{{ else with .e }}c{{ else }}d{{ end }}', N),
    ('{{ $i := 0 }}{{ $e := 0 }}{{ range $i, $e = .l }}{{ end }}{{ $i }}:{{ $e }}', N),
    ('{{ $x := 9 }}{{ range $x = .l }}{{ $x }},{{ end }}|{{ $x }}', N),
    ('{{ if .a }}{{ else with .s }}{{ . }}{{ end }}', N),
    ('{{ range $x := 2 }}{{ break }}{{ end }}ok', N),
    ('{{ (1) ) }}', N),
    ('{{ 1 ) }}', N),
    # pipelines
    ('{{ "x" | printf "%s-%s" "y" | printf "[%s]" }}', 'null'),
    ('{{ (printf "%d" 3) | printf "%s%s" "n" }}', 'null'),
    ('{{ .m | len | printf "%d" }}', N),
    ('{{ 1 | 2 }}', 'null'),
    # line/column bookkeeping across multi-line text, actions and trims
    ('line1\n  {{- /* c\n  c */ -}}\n\n{{ .missing.x }}', 'null'),
    ('a\n{{ if true }}\n  {{ .missing.x }}\n{{ end }}', 'null'),
    ('a\n{{ .m\n  | len\n  | printf "%d"\n  | .x }}', N),
    ('{{ "a" }}\n\n{{ 1 2 }}', 'null'),
    ('x\n{{ define "d" }}\n{{ .a.b }}{{ end }}{{ template "d" . }}', N),
    ('{{ define "d" }}{{ 1 2 }}\n{{ end }}', 'null'),
    ('{{ define "d" }}\n\n{{ end }', 'null'),
    ('{{ if .a }}\n\n{{ else }}\n{{ .x.y', N),
    ('a {{- "b"\n-}}\n c', 'null'),
    ('{{ "a" -}} \t\r\n b', 'null'),
    ('{{- "a" }}', 'null'),
    ('  {{- /* only */ -}}  ', 'null'),
    ('{{/*a*/}}{{/* b */}}', 'null'),
    ('{{ /* not a comment */ }}', 'null'),
    ('{{- /* ok */}}', 'null'),
    ('{{ .a}}{{.a }}{{.a}}', N),
    ('{{ "x" -}}', 'null'),
    ('{{ 3 -}}x{{- 4 }}', 'null'),
    # node strings in error contexts
    ('{{ $x := .missing.y }}', N),
    ('{{ (printf "%s" "a").b }}', N),
    ('{{ (index .m "a").x.y }}', N),
    ('{{ $x := .m }}{{ $x.a.x.q }}', N),
    ('{{ if and .a (.s.q) }}{{ end }}', N),
    ('{{ range $i, $v := .s }}{{ end }}', N),
    ('{{ with $v := .s.q }}{{ end }}', N),
    ('{{ template "t" .s.q }}{{ define "t" }}{{ end }}', N),
    ('{{ printf "%s %v" .s (list 1 "a" nil) }}', N),
    ('{{ trunc -1 "abc" }}', 'null'),
    ('{{ trunc 0x1 "abc" }}', 'null'),
    ('{{ trunc \'a\' "abc" }}', 'null'),
    ('{{ trunc 1e2 "abc" }}', 'null'),
    ('{{ trunc nil "abc" }}', 'null'),
    ('{{ trunc true "abc" }}', 'null'),
    ('{{ upper 1 }}', 'null'),
    ('{{ list .missing }}', N),
    ('{{ printf "%v" .missing }}', N),
    ('{{ upper (list 1) }}', 'null'),
    ('{{ .m.k.x }}', N),
    # variables and scoping
    ('{{ range $i, $e := .l }}{{ $i }}{{ end }}{{ range .l }}{{ $ }}{{ end }}', '{"l": [1, 2]}'),
    ('{{ $v := 1 }}{{ range .l }}{{ $v = . }}{{ end }}{{ $v }}', '{"l": [1, 2]}'),
    ('{{ $v := 1 }}{{ with .l }}{{ $v := 2 }}{{ $v }}{{ end }}{{ $v }}', '{"l": [1, 2]}'),
    ('{{ range $e := .l }}{{ range $f := $.l }}{{ $e }}{{ $f }} {{ end }}{{ end }}', '{"l": [1, 2]}'),
    ('{{ range .l }}{{ range . }}{{ . }}{{ break }}{{ end }}|{{ end }}', '{"l": [[1, 2], [3]]}'),
    ('{{ range $k, $v := .m }}{{ $k }}{{ continue }}{{ $v }}{{ end }}', N),
    ('{{ range $i := .m }}{{ $i }},{{ end }}', N),
    ('{{ define "t" }}{{ $ }}{{ end }}{{ range .l }}{{ template "t" }}{{ end }}', '{"l": [1, 2]}'),
    ('{{ $x := 1 }}{{ define "t" }}{{ $x }}{{ end }}', 'null'),
    ('{{ $x = 1 }}', 'null'),
    ('{{ range $x, $y := .l }}{{ end }}{{ $x }}', '{"l": [1]}'),
    ('{{ $a, $b := 1 }}', 'null'),
    ('{{ range $a, $b, := .l }}{{ end }}', 'null'),
    ('{{ range $a 1 }}{{ end }}', 'null'),
    # map keys sort, nested prints
    ('{{ . }}', '{"b": 1, "a": [true, null, {"z": "q"}], "c": "x y"}'),
    ('{{ range $k, $v := . }}{{ $k }}={{ $v }};{{ end }}', '{"b": 1, "B": 2, "a": 3, "_": 4, "1": 5}'),
    ('{{ .a }} {{ .b }} {{ .c }} {{ .d }} {{ .e }}', '{"a": 123456, "b": 1234567, "c": 0.0001, "d": 0.00001, "e": 3.0}'),
]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, 'main.go'), 'w') as f:
            f.write(GO_MAIN)
        peers = os.path.join(here, '..', '..', '..', '.cache', 'peers')
        goroot = sys.argv[1] if len(sys.argv) > 1 else os.path.join(peers, 'debian13-go', 'usr',
                                                                     'lib', 'go-1.24')
        overlay = os.path.join(peers, 'debian13-gocode', 'usr', 'share', 'gocode')
        env = dict(os.environ, GO111MODULE='off', GOROOT=goroot, GOTOOLCHAIN='local',
                   GOPATH=tmp + ':' + overlay + ':/usr/share/gocode')
        exe = os.path.join(tmp, 'gocheck')
        subprocess.run([os.path.join(goroot, 'bin', 'go'), 'build', '-o', exe, 'main.go'], cwd=tmp,
                       env=env, check=True)
        version = subprocess.run([os.path.join(goroot, 'bin', 'go'), 'env', 'GOVERSION'], env=env,
                                 check=True, capture_output=True, text=True).stdout.strip()
        out = ['// Generated by gen_core_exec.py from %s text/template + Sprig. Do not edit.\n'
               % version]
        for text, data in CASES:
            json.loads(data)
            r = subprocess.run([exe, data], input=text.encode(), capture_output=True, check=True)
            out.append('{%s, %s, %s},\n' % (c(text.encode()), c(data.encode()), c(r.stdout)))
    with open(os.path.join(here, 'core_exec_cases.inc'), 'w') as f:
        f.writelines(out)


def c(b):
    s = '"'
    for ch in b:
        if 0x20 <= ch < 0x7f and ch not in (0x22, 0x5c, 0x3f):
            s += chr(ch)
        else:
            s += '\\%03o' % ch
    return 'std::string_view(' + s + '", %d)' % len(b)


if __name__ == '__main__':
    main()
