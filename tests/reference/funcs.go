package main

// Helm's function map (helm-template.md §3): Sprig's text functions without env/expandenv,
// plus the serialization functions, required, fail, lookup and getHostByName. include and tpl
// are bound per template set in engine.go.

import (
	"bytes"
	"encoding/json"
	"strings"
	"text/template"

	"github.com/BurntSushi/toml"
	"github.com/Masterminds/sprig"
	yaml3 "gopkg.in/yaml.v3"
	"sigs.k8s.io/yaml"
)

// failError marks an error raised by `required` or `fail`; the renderer reports it as
// `execution error at (LOCATION): MSG`.
type failError struct{ msg string }

func (e *failError) Error() string { return e.msg }

func toYAML(v interface{}) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func toYAMLPretty(v interface{}) string {
	var buf bytes.Buffer
	enc := yaml3.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&v); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func fromYAML(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromYAMLArray(s string) []interface{} {
	a := []interface{}{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

func toTOML(v interface{}) string {
	b := bytes.NewBuffer(nil)
	if err := toml.NewEncoder(b).Encode(v); err != nil {
		return err.Error()
	}
	return b.String()
}

func fromTOML(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if _, err := toml.Decode(s, &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func toJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

func fromJSON(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(s string) []interface{} {
	a := []interface{}{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

func required(msg string, val interface{}) (interface{}, error) {
	if val == nil {
		return val, &failError{msg}
	}
	if s, ok := val.(string); ok && s == "" {
		return val, &failError{msg}
	}
	return val, nil
}

func fail(msg string) (string, error) { return "", &failError{msg} }

func lookup(apiVersion, kind, namespace, name string) (map[string]interface{}, error) {
	return map[string]interface{}{}, nil
}

// baseFuncs is the function map without include and tpl.
func baseFuncs() template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	sprig330(f)
	extra := template.FuncMap{
		"toToml":        toTOML,
		"fromToml":      fromTOML,
		"toYaml":        toYAML,
		"toYamlPretty":  toYAMLPretty,
		"fromYaml":      fromYAML,
		"fromYamlArray": fromYAMLArray,
		"toJson":        toJSON,
		"fromJson":      fromJSON,
		"fromJsonArray": fromJSONArray,
		"required":      required,
		"fail":          fail,
		"lookup":        lookup,
		"getHostByName": func(name string) string { return "" },
		// declared so that templates parse; engine.go binds both to the template set
		"include": func(string, interface{}) (string, error) { return "", nil },
		"tpl":     func(string, interface{}) (string, error) { return "", nil },
	}
	for k, v := range extra {
		f[k] = v
	}
	return f
}
