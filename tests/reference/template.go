package main

// The `template` command: load, assemble values, coalesce, render, sort, print.

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

const defaultKubeVersion = "v1.36.0"

// defaultAPIVersions is client-go's built-in group/versions plus apiextensions.
var defaultAPIVersions = VersionSet{
	"v1", "admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1alpha1",
	"admissionregistration.k8s.io/v1beta1", "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1",
	"apps/v1", "apps/v1beta1", "apps/v1beta2", "authentication.k8s.io/v1",
	"authentication.k8s.io/v1alpha1", "authentication.k8s.io/v1beta1", "authorization.k8s.io/v1",
	"authorization.k8s.io/v1beta1", "autoscaling/v1", "autoscaling/v2", "autoscaling/v2beta1",
	"autoscaling/v2beta2", "batch/v1", "batch/v1beta1", "certificates.k8s.io/v1",
	"certificates.k8s.io/v1alpha1", "certificates.k8s.io/v1beta1", "coordination.k8s.io/v1",
	"coordination.k8s.io/v1alpha2", "coordination.k8s.io/v1beta1", "discovery.k8s.io/v1",
	"discovery.k8s.io/v1beta1", "events.k8s.io/v1", "events.k8s.io/v1beta1", "extensions/v1beta1",
	"flowcontrol.apiserver.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1beta1",
	"flowcontrol.apiserver.k8s.io/v1beta2", "flowcontrol.apiserver.k8s.io/v1beta3",
	"internal.apiserver.k8s.io/v1alpha1", "networking.k8s.io/v1", "networking.k8s.io/v1alpha1",
	"networking.k8s.io/v1beta1", "node.k8s.io/v1", "node.k8s.io/v1alpha1", "node.k8s.io/v1beta1",
	"policy/v1", "policy/v1beta1", "rbac.authorization.k8s.io/v1",
	"rbac.authorization.k8s.io/v1alpha1", "rbac.authorization.k8s.io/v1beta1", "resource.k8s.io/v1",
	"resource.k8s.io/v1alpha3", "resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2",
	"scheduling.k8s.io/v1", "scheduling.k8s.io/v1alpha1", "scheduling.k8s.io/v1beta1",
	"storage.k8s.io/v1", "storage.k8s.io/v1alpha1", "storage.k8s.io/v1beta1",
	"storagemigration.k8s.io/v1alpha1",
}

var releaseNamePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// validateReleaseName applies Helm's release name rule.
func validateReleaseName(name string) error {
	if name == "" {
		return fmt.Errorf("release name %q: no name provided", name)
	}
	if len(name) > 53 || !releaseNamePattern.MatchString(name) {
		return fmt.Errorf("release name %q: invalid release name, must match regex %s and the length must not be longer than 53",
			name, releaseNamePattern.String())
	}
	return nil
}

func templateCommand(o *options) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering template failed: %v", r)
		}
	}()
	chart, err := loadChart(o.chartDir, nil)
	if err != nil {
		return "", err
	}
	return renderLoaded(o, chart)
}

// renderLoaded runs everything after chart loading. It works on a copy of the chart's
// dependency list, so that a loaded chart can be rendered many times.
func renderLoaded(o *options, loaded *Chart) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering template failed: %v", r)
		}
	}()
	chart := copyChartTree(loaded, nil)
	if chart.Meta.Type == "library" {
		return "", fmt.Errorf("library charts are not installable")
	}
	if err := validateReleaseName(o.name); err != nil {
		return "", err
	}
	user, err := userValues(o)
	if err != nil {
		return "", err
	}
	probe := deepCopy(user).(map[string]interface{})
	if err := coalesceChart(chart, probe, chart.Meta.Name+"."); err != nil {
		return "", err
	}
	resolveDependencies(chart, probe, "")
	if err := coalesceChart(chart, user, chart.Meta.Name+"."); err != nil {
		return "", err
	}
	if err := validateSchemas(chart, user); err != nil {
		return "", fmt.Errorf("values don't meet the specifications of the schema(s) in the following chart(s):\n%s", err)
	}
	kv := KubeVersion{Version: defaultKubeVersion, Major: "1", Minor: "36"}
	if o.kubeVersion != "" {
		if kv, err = parseKubeVersion(o.kubeVersion); err != nil {
			return "", err
		}
	}
	caps := &Capabilities{
		APIVersions: defaultAPIVersions,
		KubeVersion: kv,
		HelmVersion: HelmVersion{Version: "v3.21.4", GitTreeState: "clean", GoVersion: "go1.24"},
	}
	release := map[string]interface{}{
		"Name": o.name, "Namespace": o.namespace, "IsUpgrade": false, "IsInstall": true,
		"Revision": 1, "Service": "Helm",
	}
	files, err := renderChart(chart, Values(user), release, caps)
	if err != nil {
		return "", err
	}
	if os.Getenv("EJOB_REFERENCE_RAW") != "" {
		// debugging aid for writing cases: the rendered files before splitting and sorting
		var sb strings.Builder
		for name, text := range files {
			fmt.Fprintf(&sb, "=== %s\n%s\n", name, text)
		}
		return sb.String(), nil
	}
	for name := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			delete(files, name)
		}
	}
	manifests, hooks, err := sortManifests(files)
	if err != nil {
		return "", err
	}
	return writeOutput(o, manifests, hooks)
}

// copyChartTree copies the chart nodes (not the file contents) so that dependency processing
// can prune and rename subcharts without touching the loaded chart.
func copyChartTree(c *Chart, parent *Chart) *Chart {
	cp := *c
	cp.Parent = parent
	cp.Subcharts = nil
	for _, s := range c.Subcharts {
		cp.Subcharts = append(cp.Subcharts, copyChartTree(s, &cp))
	}
	return &cp
}
