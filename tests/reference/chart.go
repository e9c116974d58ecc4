package main

// Chart loading (helm-template.md §5 step 1): Chart.yaml, values.yaml, templates/**, charts/*
// subchart directories, every other file into .Files; `.helmignore` rules and the default
// `templates/.?*` rule; dependencies' conditions, tags and aliases (§6).

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/Masterminds/semver"
	"sigs.k8s.io/yaml"
)

// Maintainer is one entry of Chart.yaml `maintainers`.
type Maintainer struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// Dependency is one entry of Chart.yaml `dependencies`.
type Dependency struct {
	Name         string        `json:"name"`
	Version      string        `json:"version,omitempty"`
	Repository   string        `json:"repository"`
	Condition    string        `json:"condition,omitempty"`
	Tags         []string      `json:"tags,omitempty"`
	Enabled      bool          `json:"enabled,omitempty"`
	ImportValues []interface{} `json:"import-values,omitempty"`
	Alias        string        `json:"alias,omitempty"`
}

// Metadata is Chart.yaml.
type Metadata struct {
	Name         string            `json:"name,omitempty"`
	Home         string            `json:"home,omitempty"`
	Sources      []string          `json:"sources,omitempty"`
	Version      string            `json:"version,omitempty"`
	Description  string            `json:"description,omitempty"`
	Keywords     []string          `json:"keywords,omitempty"`
	Maintainers  []*Maintainer     `json:"maintainers,omitempty"`
	Icon         string            `json:"icon,omitempty"`
	APIVersion   string            `json:"apiVersion,omitempty"`
	Condition    string            `json:"condition,omitempty"`
	Tags         string            `json:"tags,omitempty"`
	AppVersion   string            `json:"appVersion,omitempty"`
	Deprecated   bool              `json:"deprecated,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	KubeVersion  string            `json:"kubeVersion,omitempty"`
	Dependencies []*Dependency     `json:"dependencies,omitempty"`
	Type         string            `json:"type,omitempty"`
}

// Chart is a loaded chart.
type Chart struct {
	Meta      Metadata
	Values    map[string]interface{}
	Templates []TemplateFile // names relative to the chart root: templates/x.yaml
	Files     Files
	FileOrder []string // the names of Files in load order (for crds/)
	Schema    []byte   // values.schema.json, nil when absent
	Subcharts []*Chart
	Parent    *Chart
}

// TemplateFile is one file under templates/.
type TemplateFile struct {
	Name string
	Data []byte
}

// FullPath is the chart's path in template names: parent/charts/sub.
func (c *Chart) FullPath() string {
	if c.Parent == nil {
		return c.Meta.Name
	}
	return c.Parent.FullPath() + "/charts/" + c.Meta.Name
}

// IsRoot is true for the top chart.
func (c *Chart) IsRoot() bool { return c.Parent == nil }

// ignoreRules is a small .helmignore: one glob per line, `#` comments, `!` negation, a
// trailing `/` for directories only, patterns without `/` matching any base name.
type ignoreRules []string

func readIgnore(dir string) ignoreRules {
	rules := ignoreRules{"templates/.?*"}
	data, err := os.ReadFile(filepath.Join(dir, ".helmignore"))
	if err != nil {
		return rules
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rules = append(rules, line)
	}
	return rules
}

func (r ignoreRules) ignored(rel string, isDir bool) bool {
	ignored := false
	for _, rule := range r {
		negate := strings.HasPrefix(rule, "!")
		rule = strings.TrimPrefix(rule, "!")
		if strings.HasSuffix(rule, "/") {
			if !isDir {
				continue
			}
			rule = strings.TrimSuffix(rule, "/")
		}
		rule = strings.TrimPrefix(rule, "/")
		target := rel
		if !strings.Contains(rule, "/") {
			target = path.Base(rel)
		}
		if ok, _ := path.Match(rule, target); ok {
			ignored = !negate
		}
	}
	return ignored
}

// loadChart reads a chart directory.
func loadChart(dir string, parent *Chart) (*Chart, error) {
	return loadChartDir(dir, parent, readIgnore(dir), "")
}

// loadChartDir reads a chart directory with `rules`, which see each file's path from the top
// chart (`under` + "/" + its path here): Helm's LoadDir walks the whole tree with the top
// chart's .helmignore only, so a subchart folder's own .helmignore is just another file.
func loadChartDir(dir string, parent *Chart, rules ignoreRules, under string) (*Chart, error) {
	c := &Chart{Parent: parent, Files: Files{}}
	metaSeen := false
	var subdirs []string
	archives := map[string][]byte{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		fromTop := rel
		if under != "" {
			fromTop = under + "/" + rel
		}
		if rules.ignored(fromTop, info.IsDir()) {
			if info.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if info.IsDir() {
			if strings.HasPrefix(rel, "charts/") && strings.Count(rel, "/") == 1 {
				base := path.Base(rel)
				if !strings.HasPrefix(base, "_") && !strings.HasPrefix(base, ".") {
					subdirs = append(subdirs, p)
				}
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if isArchiveSubchart(rel) {
			archives[path.Base(rel)] = data
			return nil
		}
		return c.addFile(rel, data, &metaSeen)
	})
	if err != nil {
		return nil, err
	}
	if err := c.finish(metaSeen); err != nil {
		return nil, err
	}
	// dependencies in name order, directories and archives together
	subs := map[string]func() (*Chart, error){}
	for _, sd := range subdirs {
		sd := sd
		rel, _ := filepath.Rel(dir, sd)
		fromTop := filepath.ToSlash(rel)
		if under != "" {
			fromTop = under + "/" + fromTop
		}
		subs[path.Base(filepath.ToSlash(sd))] = func() (*Chart, error) {
			return loadChartDir(sd, c, rules, fromTop)
		}
	}
	for name, data := range archives {
		data := data
		subs[name] = func() (*Chart, error) { return loadArchive(data, c) }
	}
	names := make([]string, 0, len(subs))
	for n := range subs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		sub, err := subs[n]()
		if err != nil {
			if _, isArchive := archives[n]; isArchive {
				return nil, fmt.Errorf("error unpacking subchart %s in %s: %s", n, c.Meta.Name, err)
			}
			return nil, err
		}
		c.Subcharts = append(c.Subcharts, sub)
	}
	return c, nil
}

// addFile classifies one chart file by its path relative to the chart root.
func (c *Chart) addFile(rel string, data []byte, metaSeen *bool) error {
	switch {
	case rel == "Chart.yaml":
		*metaSeen = true
		if err := yaml.Unmarshal(data, &c.Meta); err != nil {
			return fmt.Errorf("cannot load Chart.yaml: %s", err)
		}
	case rel == "values.yaml":
		c.Values = map[string]interface{}{}
		if err := yaml.Unmarshal(data, &c.Values); err != nil {
			return fmt.Errorf("cannot load values.yaml: %s", err)
		}
	case rel == "values.schema.json":
		c.Schema = data
	case rel == "Chart.lock", rel == "requirements.yaml", rel == "requirements.lock":
	case strings.HasPrefix(rel, "templates/"):
		c.Templates = append(c.Templates, TemplateFile{Name: rel, Data: data})
	case strings.HasPrefix(rel, "charts/") && path.Ext(rel) != ".prov":
	default:
		if _, seen := c.Files[rel]; !seen {
			c.FileOrder = append(c.FileOrder, rel)
		}
		c.Files[rel] = data
	}
	return nil
}

// finish checks the metadata once every file is in.
func (c *Chart) finish(metaSeen bool) error {
	if !metaSeen {
		return fmt.Errorf("Chart.yaml file is missing")
	}
	if err := validateMeta(&c.Meta); err != nil {
		return err
	}
	if c.Values == nil {
		c.Values = map[string]interface{}{}
	}
	return nil
}

func validateMeta(m *Metadata) error {
	if m.APIVersion == "" {
		return fmt.Errorf("validation: chart.metadata.apiVersion is required")
	}
	if m.Name == "" {
		return fmt.Errorf("validation: chart.metadata.name is required")
	}
	if m.Version == "" {
		return fmt.Errorf("validation: chart.metadata.version is required")
	}
	if _, err := semver.NewVersion(m.Version); err != nil {
		return fmt.Errorf("validation: chart.metadata.version %q is invalid", m.Version)
	}
	return nil
}

// lookupPath walks a dotted path through nested maps.
func lookupPath(vals map[string]interface{}, p string) (interface{}, bool) {
	cur := interface{}(vals)
	for _, part := range strings.Split(p, ".") {
		m, ok := cur.(map[string]interface{})
		if !ok {
			return nil, false
		}
		cur, ok = m[part]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// resolveDependencies applies Chart.yaml `dependencies` (aliases, tags, conditions evaluated
// against the merged values at prefix) to the chart's subcharts, recursively.
func resolveDependencies(c *Chart, vals map[string]interface{}, prefix string) {
	// Helm's processDependencyEnabled returns at once for a chart without a `dependencies`
	// list: its subcharts keep their parent (pkg/chartutil/dependencies.go, v3.21.4).
	if c.Meta.Dependencies == nil {
		return
	}
	byName := map[string]*Chart{}
	for _, s := range c.Subcharts {
		byName[s.Meta.Name] = s
	}
	referenced := map[string]bool{}
	for _, d := range c.Meta.Dependencies {
		referenced[d.Name] = true
	}
	var kept []*Chart
	for _, s := range c.Subcharts {
		if !referenced[s.Meta.Name] {
			kept = append(kept, s)
		}
	}
	tags, _ := lookupPath(vals, "tags")
	tagMap, _ := tags.(map[string]interface{})
	for _, d := range c.Meta.Dependencies {
		sub, ok := byName[d.Name]
		if !ok {
			continue
		}
		// As Helm's getAliasDependency: every declared dependency is a copy (its subcharts
		// shared), renamed by its alias; SetDependencies makes c its parent.
		cp := *sub
		if d.Alias != "" {
			cp.Meta.Name = d.Alias
		}
		cp.Parent = c
		if dependencyEnabled(d, vals, prefix, tagMap) {
			kept = append(kept, &cp)
		}
	}
	c.Subcharts = kept
	for _, s := range c.Subcharts {
		resolveDependencies(s, vals, prefix+s.Meta.Name+".")
	}
	for _, s := range c.Subcharts {
		s.Parent = c // Helm's final SetDependencies, after the recursion
	}
}

func dependencyEnabled(d *Dependency, vals map[string]interface{}, prefix string,
	tags map[string]interface{}) bool {
	enabled := true
	hasTrue, hasFalse := false, false
	for _, t := range d.Tags {
		if b, ok := tags[t].(bool); ok {
			if b {
				hasTrue = true
			} else {
				hasFalse = true
			}
		}
	}
	if !hasTrue && hasFalse {
		enabled = false
	}
	if d.Condition != "" {
		for _, cond := range strings.Split(d.Condition, ",") {
			v, ok := lookupPath(vals, prefix+strings.TrimSpace(cond))
			if !ok {
				continue
			}
			if b, isBool := v.(bool); isBool {
				enabled = b
				break
			}
			warnf("Condition path '%s' for chart %s returned non-bool value", cond, d.Name)
		}
	}
	return enabled
}
