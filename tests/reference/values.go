package main

// Values: Helm's named values type with its template-visible methods, user-value assembly
// (-f files and the --set family, helm-template.md §6/§7) and coalescing with chart defaults.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

// Values is the type of `.Values`: a map with methods that shadow same-named keys.
type Values map[string]interface{}

// YAML renders the values as YAML (not trimmed).
func (v Values) YAML() (string, error) {
	b, err := yaml.Marshal(v)
	return string(b), err
}

// Table returns the nested table at a dotted path.
func (v Values) Table(name string) (Values, error) {
	table := v
	for _, part := range strings.Split(name, ".") {
		next, ok := table[part]
		if !ok {
			return Values{}, fmt.Errorf("no table named %q", name)
		}
		m, ok := asTable(next)
		if !ok {
			return Values{}, fmt.Errorf("no table named %q", name)
		}
		table = m
	}
	return table, nil
}

// AsMap returns the values as a plain map.
func (v Values) AsMap() map[string]interface{} {
	if len(v) == 0 {
		return map[string]interface{}{}
	}
	return v
}

// Encode writes the values as YAML.
func (v Values) Encode(w io.Writer) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// PathValue returns the non-table value at a dotted path.
func (v Values) PathValue(path string) (interface{}, error) {
	parts := strings.Split(path, ".")
	table := v
	if len(parts) > 1 {
		t, err := v.Table(strings.Join(parts[:len(parts)-1], "."))
		if err != nil {
			return nil, fmt.Errorf("%q is not a value", path)
		}
		table = t
	}
	last := parts[len(parts)-1]
	val, ok := table[last]
	if !ok {
		return nil, fmt.Errorf("%q is not a value", path)
	}
	if _, isTable := asTable(val); isTable {
		return nil, fmt.Errorf("%q is not a value", path)
	}
	return val, nil
}

func asTable(v interface{}) (map[string]interface{}, bool) {
	switch t := v.(type) {
	case map[string]interface{}:
		return t, true
	case Values:
		return t, true
	}
	return nil, false
}

// mergeMaps merges b into a copy of a: maps merge deeply, anything else replaces.
func mergeMaps(a, b map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bm, ok := v.(map[string]interface{}); ok {
			if am, ok := out[k].(map[string]interface{}); ok {
				out[k] = mergeMaps(am, bm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// userValues assembles -f files left to right, then --set-json, --set, --set-string,
// --set-file and --set-literal (by flag type, not command-line order).
func userValues(o *options) (map[string]interface{}, error) {
	base := map[string]interface{}{}
	for _, f := range o.valueFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		current := map[string]interface{}{}
		if err := yaml.Unmarshal(data, &current); err != nil {
			return nil, fmt.Errorf("failed to parse %s: %s", f, err)
		}
		base = mergeMaps(base, current)
	}
	for _, a := range o.setJSONs {
		// a whole JSON object (after white space) is merged as a map, as Helm's MergeValues does
		if trimmed := strings.TrimSpace(a); len(trimmed) > 0 && trimmed[0] == '{' {
			var m map[string]interface{}
			if err := json.Unmarshal([]byte(trimmed), &m); err != nil {
				return nil, fmt.Errorf("failed parsing --set-json data JSON: %s", a)
			}
			base = mergeMaps(base, m)
			continue
		}
		if err := parseSetInto(a, base, modeJSON); err != nil {
			// Helm reports only the argument here, not the JSON error
			return nil, fmt.Errorf("failed parsing --set-json data %s", a)
		}
	}
	groups := []struct {
		args []string
		mode valueMode
		what string
	}{
		{o.sets, modeTyped, "failed parsing --set data"},
		{o.setStrings, modeString, "failed parsing --set-string data"},
		{o.setFiles, modeFile, "failed parsing --set-file data"},
		{o.setLiterals, modeLiteral, "failed parsing --set-literal data"},
	}
	for _, g := range groups {
		for _, a := range g.args {
			if err := parseSetInto(a, base, g.mode); err != nil {
				return nil, fmt.Errorf("%s: %s", g.what, err)
			}
		}
	}
	return base, nil
}

// deepCopy copies maps and lists of a values tree.
func deepCopy(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(t))
		for k, e := range t {
			out[k] = deepCopy(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(t))
		for i, e := range t {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

func warnf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "warning: "+format+"\n", args...)
}

// coalesceChart merges the chart's defaults (and its subcharts') under dest, the user's values.
func coalesceChart(c *Chart, dest map[string]interface{}, prefix string) error {
	coalesceTop(c, dest, prefix)
	for _, sub := range c.Subcharts {
		name := sub.Meta.Name
		if _, ok := dest[name]; !ok {
			dest[name] = map[string]interface{}{}
		}
		sv, ok := dest[name].(map[string]interface{})
		if !ok {
			return fmt.Errorf("type mismatch on %s: %t", name, dest[name])
		}
		coalesceGlobals(sv, dest)
		if err := coalesceChart(sub, sv, prefix+name+"."); err != nil {
			return err
		}
	}
	return nil
}

// isSubchartKey reports whether key names one of c's subcharts.
func isSubchartKey(c *Chart, key string) bool {
	for _, sub := range c.Subcharts {
		if sub.Meta.Name == key {
			return true
		}
	}
	return false
}

// coalesceTop merges the chart's values.yaml keys under dest (user values win).
func coalesceTop(c *Chart, dest map[string]interface{}, prefix string) {
	for key, chartVal := range deepCopy(c.Values).(map[string]interface{}) {
		userVal, present := dest[key]
		if !present {
			dest[key] = chartVal
			continue
		}
		if userVal == nil {
			delete(dest, key)
			continue
		}
		if um, ok := userVal.(map[string]interface{}); ok {
			if cm, ok := chartVal.(map[string]interface{}); ok {
				coalesceTables(um, cm, prefix+key, isSubchartKey(c, key))
			} else {
				warnf("skipped value for %s%s: Not a table.", prefix, key)
			}
		}
	}
}

// coalesceTables merges src (chart defaults) under dst (user values), as Helm's
// coalesceTablesFullKey. A user null deletes the key only where the chart sets a non-null
// value there and merge is false; a null for a key the chart does not set (or sets to null)
// is kept. merge is true below a subchart's key in the parent's values (Helm's
// childChartMergeTrue) and for globals, so the nulls survive to the subchart's own pass.
func coalesceTables(dst, src map[string]interface{}, path string, merge bool) {
	for key, dv := range dst {
		if _, inSrc := src[key]; dv == nil && !inSrc {
			src[key] = nil
		}
	}
	for key, sv := range src {
		full := path + "." + key
		dv, present := dst[key]
		if !present {
			dst[key] = sv
			continue
		}
		if dv == nil {
			if !merge && sv != nil {
				delete(dst, key)
			}
			continue
		}
		sm, srcTable := sv.(map[string]interface{})
		dm, dstTable := dv.(map[string]interface{})
		if srcTable {
			if dstTable {
				coalesceTables(dm, sm, full, merge)
			} else {
				warnf("cannot overwrite table with non table for %s (%v)", full, sv)
			}
		} else if dstTable && sv != nil {
			warnf("destination for %s is a table. Ignoring non-table value (%v)", full, sv)
		}
	}
}

// coalesceGlobals merges the parent's `global` into the subchart's (parent wins).
func coalesceGlobals(sub, parent map[string]interface{}) {
	pg, _ := parent["global"].(map[string]interface{})
	sg, _ := sub["global"].(map[string]interface{})
	if sg == nil {
		sg = map[string]interface{}{}
	}
	for k, v := range pg {
		if vm, ok := v.(map[string]interface{}); ok {
			if dm, ok := sg[k].(map[string]interface{}); ok {
				merged := deepCopy(vm).(map[string]interface{})
				coalesceTables(merged, dm, "global."+k, true)
				sg[k] = merged
				continue
			}
		}
		sg[k] = deepCopy(v)
	}
	sub["global"] = sg
}
