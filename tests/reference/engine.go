package main

// Rendering (helm-template.md §3 render context, §5 steps 3–5): every template of the chart
// and its subcharts parsed into one set in Helm's order, each non-partial template executed
// with its chart's context, missingkey=zero, `<no value>` removed.

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"text/template"
)

const includeRecursionMax = 1000

// KubeVersion is `.Capabilities.KubeVersion`.
type KubeVersion struct {
	Version string
	Major   string
	Minor   string
}

// String returns the version text (v1.36.0).
func (kv *KubeVersion) String() string { return kv.Version }

// GitVersion returns the version text (v1.36.0).
func (kv *KubeVersion) GitVersion() string { return kv.Version }

// VersionSet is `.Capabilities.APIVersions`.
type VersionSet []string

// Has reports whether the set holds an API version.
func (v VersionSet) Has(apiVersion string) bool {
	for _, x := range v {
		if x == apiVersion {
			return true
		}
	}
	return false
}

// HelmVersion is `.Capabilities.HelmVersion`.
type HelmVersion struct {
	Version      string
	GitCommit    string
	GitTreeState string
	GoVersion    string
}

// Capabilities is `.Capabilities`.
type Capabilities struct {
	APIVersions VersionSet
	KubeVersion KubeVersion
	HelmVersion HelmVersion
}

// ChartInfo is `.Chart`: the metadata plus IsRoot.
type ChartInfo struct {
	Metadata
	IsRoot bool
}

// templateJob is one parsed template with the context it executes in.
type templateJob struct {
	name     string
	basePath string
	text     string
	ctx      map[string]interface{}
}

// chartContexts builds the per-chart context maps and collects the templates, recursively.
func chartContexts(c *Chart, vals Values, release map[string]interface{}, caps *Capabilities,
	jobs *[]templateJob) map[string]interface{} {
	ctx := map[string]interface{}{
		"Chart":        ChartInfo{Metadata: c.Meta, IsRoot: c.IsRoot()},
		"Capabilities": caps,
		"Release":      release,
		"Values":       vals,
		"Files":        c.Files,
	}
	subs := map[string]interface{}{}
	for _, s := range c.Subcharts {
		sv, err := vals.Table(s.Meta.Name)
		if err != nil {
			sv = Values{}
		}
		subs[s.Meta.Name] = chartContexts(s, sv, release, caps, jobs)
	}
	ctx["Subcharts"] = subs
	full := c.FullPath()
	for _, t := range c.Templates {
		if c.Meta.Type == "library" && !strings.HasPrefix(path.Base(t.Name), "_") {
			continue
		}
		*jobs = append(*jobs, templateJob{
			name: full + "/" + t.Name, basePath: full + "/templates", text: string(t.Data), ctx: ctx,
		})
	}
	return ctx
}

// sortJobs orders templates as Helm parses them: more `/` first, then reverse byte order.
func sortJobs(jobs []templateJob) {
	sort.SliceStable(jobs, func(i, j int) bool {
		ci, cj := strings.Count(jobs[i].name, "/"), strings.Count(jobs[j].name, "/")
		if ci != cj {
			return ci > cj
		}
		return jobs[i].name > jobs[j].name
	})
}

// bindEngineFuncs binds include and tpl to the template set t.
func bindEngineFuncs(t *template.Template, included map[string]int) template.FuncMap {
	return template.FuncMap{
		"include": func(name string, data interface{}) (string, error) {
			if included[name] > includeRecursionMax {
				return "", fmt.Errorf("rendering template has a nested reference name: %s: %w",
					name, errors.New("unable to execute template"))
			}
			included[name]++
			var sb strings.Builder
			err := t.ExecuteTemplate(&sb, name, data)
			included[name]--
			return sb.String(), err
		},
		"tpl": func(text string, data interface{}) (string, error) {
			clone, err := t.Clone()
			if err != nil {
				return "", fmt.Errorf("cannot clone template: %w", err)
			}
			clone.Option("missingkey=zero")
			clone.Funcs(bindEngineFuncs(clone, included))
			nt, err := clone.New(t.Name()).Parse(text)
			if err != nil {
				return "", fmt.Errorf("cannot parse template %q: %w", text, err)
			}
			var sb strings.Builder
			if err := nt.Execute(&sb, data); err != nil {
				return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
			}
			return strings.ReplaceAll(sb.String(), "<no value>", ""), nil
		},
	}
}

// parseError turns Go's `template: NAME:LINE: MSG` into Helm's `parse error at (NAME:LINE): MSG`.
func parseError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "template: ")
	i := strings.Index(msg, ": ")
	if i < 0 {
		return fmt.Errorf("parse error: %s", msg)
	}
	return fmt.Errorf("parse error at (%s): %s", msg[:i], msg[i+2:])
}

// execError turns an execution error raised by required/fail into
// `execution error at (NAME:LINE:COL): MSG`; other errors keep Go's text.
func execError(name string, err error) error {
	var fe *failError
	if !errors.As(err, &fe) {
		return err
	}
	tokens := strings.SplitN(err.Error(), ": ", 3)
	if len(tokens) != 3 {
		return fmt.Errorf("execution error in (%s): %s", name, fe.msg)
	}
	return fmt.Errorf("execution error at (%s): %s", tokens[1], fe.msg)
}

// renderChart renders every template; the result maps template names to output.
func renderChart(c *Chart, vals Values, release map[string]interface{},
	caps *Capabilities) (map[string]string, error) {
	var jobs []templateJob
	chartContexts(c, vals, release, caps, &jobs)
	sortJobs(jobs)
	included := map[string]int{}
	t := template.New("gotpl")
	t.Option("missingkey=zero")
	t.Funcs(baseFuncs())
	t.Funcs(bindEngineFuncs(t, included))
	for _, j := range jobs {
		if _, err := t.New(j.name).Parse(j.text); err != nil {
			return nil, parseError(err)
		}
	}
	out := map[string]string{}
	for _, j := range jobs {
		if strings.HasPrefix(path.Base(j.name), "_") {
			continue
		}
		j.ctx["Template"] = map[string]interface{}{"Name": j.name, "BasePath": j.basePath}
		var sb strings.Builder
		if err := t.ExecuteTemplate(&sb, j.name, j.ctx); err != nil {
			return nil, execError(j.name, err)
		}
		out[j.name] = strings.ReplaceAll(sb.String(), "<no value>", "")
	}
	return out, nil
}
