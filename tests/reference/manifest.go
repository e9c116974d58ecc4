package main

// Manifest post-processing and output (helm-template.md §5 steps 6–8): files sorted by path,
// split on `(?:^|\s*\n)---\s*`, each document parsed for kind and hook annotations, stable-sorted
// by kind install order, printed with `# Source:` headers, hooks last; --show-only and
// --output-dir.

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
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
				if !knownHooks[strings.ToLower(strings.TrimSpace(h))] {
					known = false
					break
				}
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

// writeOutput produces `helm template`'s stdout (or writes files under outputDir).
func writeOutput(o *options, manifests, hooks []manifest) (string, error) {
	if o.outputDir != "" {
		return writeOutputDir(o.outputDir, append(manifests, hooks...))
	}
	var body strings.Builder
	for _, m := range manifests {
		fmt.Fprintf(&body, "---\n# Source: %s\n%s\n", m.path, m.content)
	}
	out := strings.TrimSpace(body.String()) + "\n"
	for _, h := range hooks {
		out += fmt.Sprintf("---\n# Source: %s\n%s\n", h.path, h.content)
	}
	if len(o.showOnly) > 0 {
		return showOnly(out, o.showOnly)
	}
	return out, nil
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

// writeOutputDir writes each document to DIR/<template path>, appending documents of the same
// file, and lists each write.
func writeOutputDir(dir string, ms []manifest) (string, error) {
	var sb strings.Builder
	written := map[string]bool{}
	for _, m := range ms {
		target := filepath.Join(dir, m.path)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return "", err
		}
		flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
		if written[target] {
			flags = os.O_APPEND | os.O_WRONLY
		}
		f, err := os.OpenFile(target, flags, 0o644)
		if err != nil {
			return "", err
		}
		_, err = fmt.Fprintf(f, "---\n# Source: %s\n%s\n", m.path, m.content)
		f.Close()
		if err != nil {
			return "", err
		}
		written[target] = true
		sb.WriteString("wrote " + target + "\n")
	}
	// the (empty) manifest text still ends the output with its newline
	sb.WriteString("\n")
	return sb.String(), nil
}

// parseKubeVersion turns `1.30` / `v1.30.2` into `.Capabilities.KubeVersion`.
func parseKubeVersion(v string) (KubeVersion, error) {
	s := strings.TrimPrefix(v, "v")
	parts := strings.SplitN(s, ".", 3)
	for len(parts) < 3 {
		parts = append(parts, "0")
	}
	for _, p := range parts[:2] {
		if _, err := strconv.ParseUint(p, 10, 64); err != nil {
			return KubeVersion{}, fmt.Errorf("invalid kube version %q", v)
		}
	}
	return KubeVersion{Version: "v" + strings.Join(parts, "."), Major: parts[0], Minor: parts[1]}, nil
}
