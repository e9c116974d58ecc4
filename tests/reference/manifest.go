package main

// Manifest post-processing and output (helm-template.md §5 steps 6–8): files sorted by path,
// split on `(?:^|\s*\n)---\s*`, each document parsed for kind and hook annotations, stable-sorted
// by kind install order, printed with `# Source:` headers, hooks last; --show-only and
// --output-dir.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

var installOrder = []string{
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange",
	"PodSecurityPolicy", "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList",
	"ConfigMap", "StorageClass", "PersistentVolume", "PersistentVolumeClaim",
	"CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
	"ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service",
	"DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress",
	"APIService",
}

var knownHooks = map[string]bool{
	"pre-install": true, "post-install": true, "pre-delete": true, "post-delete": true,
	"pre-upgrade": true, "post-upgrade": true, "pre-rollback": true, "post-rollback": true,
	"test": true, "test-success": true,
}

var docSeparator = regexp.MustCompile(`(?:^|\s*\n)---\s*`)

// SimpleHead is the part of a document the sorter reads.
type SimpleHead struct {
	Version  string `json:"apiVersion"`
	Kind     string `json:"kind,omitempty"`
	Metadata *struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata,omitempty"`
}

// manifest is one output document.
type manifest struct {
	path    string
	content string
	kind    string
	test    bool // a hook with the test (or test-success) event
}

// splitManifests splits one rendered file into trimmed documents.
func splitManifests(text string) []string {
	var docs []string
	for _, d := range docSeparator.Split(strings.TrimSpace(text), -1) {
		if d == "" {
			continue
		}
		docs = append(docs, strings.TrimSpace(d))
	}
	return docs
}

// sortManifests classifies documents into manifests and hooks, both sorted by kind.
func sortManifests(files map[string]string) (manifests, hooks []manifest, err error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		content := files[name]
		if strings.HasPrefix(path.Base(name), "_") || strings.TrimSpace(content) == "" {
			continue
		}
		for _, doc := range splitManifests(content) {
			var head SimpleHead
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				return nil, nil, fmt.Errorf("YAML parse error on %s: %s", name, err)
			}
			m := manifest{path: name, content: doc, kind: head.Kind}
			if head.Metadata == nil || head.Metadata.Annotations == nil {
				manifests = append(manifests, m)
				continue
			}
			hookTypes, isHook := head.Metadata.Annotations["helm.sh/hook"]
			if !isHook {
				manifests = append(manifests, m)
				continue
			}
			known := true
			for _, h := range strings.Split(hookTypes, ",") {
				event := strings.ToLower(strings.TrimSpace(h))
				if !knownHooks[event] {
					known = false
					break
				}
				m.test = m.test || event == "test" || event == "test-success"
			}
			if !known {
				fmt.Fprintf(os.Stderr, "info: skipping unknown hook: %q\n", hookTypes)
				continue
			}
			hooks = append(hooks, m)
		}
	}
	sortByKind(manifests)
	sortByKind(hooks)
	return manifests, hooks, nil
}

func sortByKind(ms []manifest) {
	rank := map[string]int{}
	for i, k := range installOrder {
		rank[k] = i
	}
	sort.SliceStable(ms, func(i, j int) bool {
		ri, iKnown := rank[ms[i].kind]
		rj, jKnown := rank[ms[j].kind]
		switch {
		case iKnown && jKnown:
			return ri < rj
		case iKnown != jKnown:
			return iKnown
		}
		return ms[i].kind < ms[j].kind
	})
}

// crdObjects is Helm's Chart.CRDObjects: crds/*.{yaml,yml,json} (any case) of the chart in
// load order, then of its subcharts.
func crdObjects(c *Chart) []manifest {
	var out []manifest
	for _, name := range c.FileOrder {
		ext := strings.ToLower(filepath.Ext(name))
		if strings.HasPrefix(name, "crds/") && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
			out = append(out, manifest{path: filepath.Join(c.FullPath(), name), content: string(c.Files[name])})
		}
	}
	for _, s := range c.Subcharts {
		out = append(out, crdObjects(s)...)
	}
	return out
}

// postRender runs --post-renderer as Helm's postrender.execRender does.
func postRender(o *options, in string) (string, error) {
	full, err := exec.LookPath(o.postRenderer)
	if err != nil {
		return "", fmt.Errorf("invalid argument %q for \"--post-renderer\" flag: unable to find binary at %s: %s", o.postRenderer, o.postRenderer, err)
	}
	if full, err = filepath.Abs(full); err != nil {
		return "", err
	}
	cmd := exec.Command(full, o.postRendererArgs...)
	cmd.Stdin = strings.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("error while running post render on files: error while running command %s. error output:\n%s: %s", full, stderr.String(), err)
	}
	return stdout.String(), nil
}

// writeOutput produces `helm template`'s stdout (or writes files under outputDir): the
// manifest text (CRDs, manifests, post-rendered), TrimSpace'd, then the hooks.
func writeOutput(o *options, crds, manifests, hooks []manifest) (string, error) {
	var body strings.Builder
	var log string
	if o.outputDir != "" {
		var err error
		if log, err = writeOutputDir(o, crds, manifests, hooks); err != nil {
			return "", err
		}
	} else {
		for _, m := range append(append([]manifest{}, crds...), manifests...) {
			fmt.Fprintf(&body, "---\n# Source: %s\n%s\n", m.path, m.content)
		}
	}
	text := body.String()
	if o.postRenderer != "" {
		var err error
		if text, err = postRender(o, text); err != nil {
			return "", err
		}
	}
	out := strings.TrimSpace(text) + "\n"
	if o.outputDir == "" {
		for _, h := range hooks {
			out += fmt.Sprintf("---\n# Source: %s\n%s\n", h.path, h.content)
		}
	}
	if len(o.showOnly) > 0 {
		shown, err := showOnly(out, o.showOnly)
		return log + shown, err
	}
	return log + out, nil
}

var sourceLine = regexp.MustCompile(`# Source: [^/]+/(.+)`)

// showOnly keeps the documents whose template path (after the chart name) matches a glob.
func showOnly(out string, patterns []string) (string, error) {
	docs := splitManifests(out)
	var sb strings.Builder
	for _, p := range patterns {
		found := false
		for _, d := range docs {
			m := sourceLine.FindStringSubmatch(d)
			if m == nil {
				continue
			}
			if ok, _ := filepath.Match(filepath.ToSlash(p), m[1]); !ok {
				continue
			}
			found = true
			sb.WriteString("---\n" + d + "\n")
		}
		if !found {
			return "", fmt.Errorf("could not find template %s in chart", p)
		}
	}
	return sb.String(), nil
}

// writeOutputDir writes CRDs to DIR/<path>, manifests and hooks to DIR[/RELEASE]/<path>
// (appending further documents of a file; a hook appends to any file already there), and
// lists each write.
func writeOutputDir(o *options, crds, manifests, hooks []manifest) (string, error) {
	var sb strings.Builder
	written := map[string]bool{}
	releaseDir := o.outputDir
	if o.releaseNameDir {
		releaseDir = filepath.Join(o.outputDir, o.name)
	}
	write := func(dir string, m manifest, appendTo bool) error {
		target := strings.Join([]string{dir, m.path}, "/")
		if err := os.MkdirAll(path.Dir(target), 0o755); err != nil {
			return err
		}
		flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
		if appendTo {
			flags = os.O_APPEND | os.O_WRONLY
		}
		f, err := os.OpenFile(target, flags, 0o644)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(f, "---\n# Source: %s\n%s\n", m.path, m.content)
		f.Close()
		sb.WriteString("wrote " + target + "\n")
		return err
	}
	for _, m := range crds {
		if err := write(o.outputDir, m, written[m.path]); err != nil {
			return "", err
		}
		written[m.path] = true
	}
	for _, m := range manifests {
		if err := write(releaseDir, m, written[m.path]); err != nil {
			return "", err
		}
		written[m.path] = true
	}
	for _, h := range hooks {
		_, err := os.Stat(filepath.Join(releaseDir, h.path))
		if err := write(releaseDir, h, err == nil); err != nil {
			return "", err
		}
	}
	return sb.String(), nil
}
