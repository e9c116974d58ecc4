package main

// The `template` command: load, assemble values, coalesce, render, sort, print.

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
)

const defaultKubeVersion = "v1.36.0"

// defaultAPIVersions is client-go's built-in group/versions plus apiextensions.
var defaultAPIVersions = VersionSet{
	"v1", "admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1alpha1",
	"admissionregistration.k8s.io/v1beta1", "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1",
	"apps/v1", "apps/v1beta1", "apps/v1beta2", "authentication.k8s.io/v1",
	"authentication.k8s.io/v1alpha1", "authentication.k8s.io/v1beta1", "authorization.k8s.io/v1",
	"authorization.k8s.io/v1beta1", "autoscaling/v1", "autoscaling/v2", "batch/v1", "batch/v1beta1", "certificates.k8s.io/v1",
	"certificates.k8s.io/v1alpha1", "certificates.k8s.io/v1beta1", "coordination.k8s.io/v1",
	"coordination.k8s.io/v1alpha2", "coordination.k8s.io/v1beta1", "discovery.k8s.io/v1",
	"discovery.k8s.io/v1beta1", "events.k8s.io/v1", "events.k8s.io/v1beta1", "extensions/v1beta1",
	"flowcontrol.apiserver.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1beta1",
	"flowcontrol.apiserver.k8s.io/v1beta2", "flowcontrol.apiserver.k8s.io/v1beta3",
	"internal.apiserver.k8s.io/v1alpha1", "networking.k8s.io/v1",
	"networking.k8s.io/v1beta1", "node.k8s.io/v1", "node.k8s.io/v1alpha1", "node.k8s.io/v1beta1",
	"policy/v1", "policy/v1beta1", "rbac.authorization.k8s.io/v1",
	"rbac.authorization.k8s.io/v1alpha1", "rbac.authorization.k8s.io/v1beta1", "resource.k8s.io/v1",
	"resource.k8s.io/v1alpha3", "resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2",
	"scheduling.k8s.io/v1", "scheduling.k8s.io/v1alpha2", "scheduling.k8s.io/v1beta1",
	"storage.k8s.io/v1", "storage.k8s.io/v1alpha1", "storage.k8s.io/v1beta1",
	"storagemigration.k8s.io/v1beta1",
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

// helmVersion is .Capabilities.HelmVersion of the v3.21.4 release binary: its tag, the
// tag's commit, a clean tree; the Go release of the build is the latest go1.26 patch on the
// release day (2026-08-13), which the sources do not record (docs/template.md).
var helmVersion = HelmVersion{Version: "v3.21.4", GitCommit: "813176c51bb5c181dbbd7901298ddcc104cd3417",
	GitTreeState: "clean", GoVersion: "go1.26.6"}

// versionMatchRE is apimachinery's (pkg/util/version) for ParseGeneric.
var versionMatchRE = regexp.MustCompile(`^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)*$`)

// parseKubeVersion is Helm v3.21's chartutil.ParseKubeVersion: apimachinery's ParseGeneric,
// written back as "v" + the numbers.
func parseKubeVersion(v string) (KubeVersion, error) {
	fail := func(format string, args ...interface{}) (KubeVersion, error) {
		return KubeVersion{}, fmt.Errorf("invalid kube version '%s': %s", v, fmt.Sprintf(format, args...))
	}
	parts := versionMatchRE.FindStringSubmatch(v)
	if parts == nil {
		return fail("could not parse %q as version", v)
	}
	components := strings.Split(parts[1], ".")
	if len(components) < 2 {
		return fail("illegal version string %q", v)
	}
	nums := make([]string, len(components))
	for i, comp := range components {
		if i == 0 && strings.HasPrefix(comp, "0") && comp != "0" {
			return fail("illegal zero-prefixed version component %q in %q", comp, v)
		}
		n, err := strconv.ParseUint(comp, 10, 0)
		if err != nil {
			return fail("illegal non-numeric version component %q in %q: %v", comp, v, err)
		}
		nums[i] = strconv.FormatUint(n, 10)
	}
	return KubeVersion{Version: "v" + strings.Join(nums, "."), Major: nums[0], Minor: nums[1]}, nil
}

// templateName is Helm's action.TemplateName for --name-template.
func templateName(text string) (string, error) {
	t, err := template.New("name-template").Funcs(sprig.TxtFuncMap()).Parse(text)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, nil); err != nil {
		return "", err
	}
	return b.String(), nil
}

// nameAndChart is Helm's Install.NameAndChart for `helm template [NAME] CHART`; --name is NAME.
func nameAndChart(o *options) error {
	if o.nameGiven && o.generateName {
		return fmt.Errorf("cannot set --generate-name and also specify a name")
	}
	if o.nameGiven && o.nameTemplate != "" {
		return fmt.Errorf("cannot set --name-template and also specify a name")
	}
	if !o.nameGiven && o.nameTemplate != "" {
		name, err := templateName(o.nameTemplate)
		if err != nil {
			return err
		}
		o.name = name
	}
	return nil
}

// checkFlags refuses what the reference cannot do without a cluster or the network, and
// checks the flags Helm checks before rendering.
func checkFlags(o *options) error {
	if o.validate || o.enableDNS || o.dryRun == "server" || o.dryRun == "none" || o.dryRun == "false" {
		return fmt.Errorf("reference: this flag needs a cluster or the network")
	}
	if o.dryRun != "" && o.dryRun != "true" && o.dryRun != "client" {
		return fmt.Errorf("Invalid dry-run flag. Flag must one of the following: false, true, none, client, server")
	}
	return nil
}

// checkDependencies is Helm's CheckDependencies of the top chart.
func checkDependencies(c *Chart, update bool) error {
	var missing []string
	for _, d := range c.Meta.Dependencies {
		found := false
		for _, s := range c.Subcharts {
			found = found || s.Meta.Name == d.Name
		}
		if !found {
			missing = append(missing, d.Name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if update {
		return fmt.Errorf("reference: --dependency-update needs the network")
	}
	return fmt.Errorf("An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: %s", strings.Join(missing, ", "))
}

// labelKeys reads --labels as pflag's StringToString does.
func labelKeys(values []string) ([]string, error) {
	var keys []string
	for _, v := range values {
		pairs, err := csvValues([]string{v}, "-l, --labels")
		if err != nil {
			return nil, err
		}
		for _, p := range pairs {
			k, _, ok := strings.Cut(p, "=")
			if !ok {
				return nil, fmt.Errorf("invalid argument %q for \"-l, --labels\" flag: %s must be formatted as key=value", p, p)
			}
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// csvValues is pflag's StringSlice: each value one CSV record.
func csvValues(values []string, flag string) ([]string, error) {
	var out []string
	for _, v := range values {
		if v == "" {
			continue
		}
		rec, err := csv.NewReader(strings.NewReader(v)).Read()
		if err != nil {
			return nil, fmt.Errorf("invalid argument %q for \"%s\" flag: %s", v, flag, err)
		}
		out = append(out, rec...)
	}
	return out, nil
}

func templateCommand(o *options) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering template failed: %v", r)
		}
	}()
	if err := checkFlags(o); err != nil {
		return "", err
	}
	if err := nameAndChart(o); err != nil {
		return "", err
	}
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
	kv := KubeVersion{Version: defaultKubeVersion, Major: "1", Minor: "36"}
	if o.kubeVersion != "" {
		if kv, err = parseKubeVersion(o.kubeVersion); err != nil {
			return "", err
		}
	}
	extraAPIs, err := csvValues(o.apiVersions, "-a, --api-versions")
	if err != nil {
		return "", err
	}
	labels, err := labelKeys(o.labels)
	if err != nil {
		return "", err
	}
	chart := copyChartTree(loaded, nil)
	if chart.Meta.Type == "library" {
		return "", fmt.Errorf("library charts are not installable")
	}
	if err := checkDependencies(chart, o.dependencyUpdate); err != nil {
		return "", err
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
	if !o.skipSchema {
		if err := validateSchemas(chart, user); err != nil {
			return "", fmt.Errorf("values don't meet the specifications of the schema(s) in the following chart(s):\n%s", err)
		}
	}
	for _, k := range labels {
		switch k {
		case "name", "owner", "status", "version", "createdAt", "modifiedAt":
			return "", fmt.Errorf("user supplied labels contains system reserved label name. System labels: [name owner status version createdAt modifiedAt]")
		}
	}
	caps := &Capabilities{
		APIVersions: append(append(VersionSet{}, defaultAPIVersions...), extraAPIs...),
		KubeVersion: kv,
		HelmVersion: helmVersion,
	}
	release := map[string]interface{}{
		"Name": o.name, "Namespace": o.namespace, "IsUpgrade": o.isUpgrade, "IsInstall": !o.isUpgrade,
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
	var crds []manifest
	if o.includeCRDs {
		crds = crdObjects(chart)
	}
	if o.noHooks {
		hooks = nil
	}
	if o.skipTests {
		var kept []manifest
		for _, h := range hooks {
			if !h.test {
				kept = append(kept, h)
			}
		}
		hooks = kept
	}
	return writeOutput(o, crds, manifests, hooks)
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
