// Command ejob-reference is the test oracle for `ejob template`: a small renderer built on Go's
// text/template, Sprig, sigs.k8s.io/yaml and go-yaml, with the Helm glue (chart loading,
// values coalescing, the --set grammar, render context, manifest sorting) written from the
// facts in shared/protocols/helm-template.md. It takes the same command line as
// `ejob template` and prints what `helm template` prints; on error it prints
// `Error: <helm message>` on stderr and exits 1.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// options holds the parsed command line of `ejob-reference template`.
type options struct {
	chartDir    string
	name        string
	namespace   string
	valueFiles  []string
	sets        []string
	setStrings  []string
	setJSONs    []string
	setFiles    []string
	setLiterals []string
	kubeVersion string
	showOnly    []string
	outputDir   string
	// helm template's flags (cmd/helm/template.go and install.go of Helm v3.21.4)
	apiVersions      []string // -a/--api-versions, each value read as CSV
	includeCRDs      bool
	skipTests        bool
	noHooks          bool
	isUpgrade        bool
	releaseNameDir   bool // --release-name
	skipSchema       bool // --skip-schema-validation
	dependencyUpdate bool
	generateName     bool
	nameTemplate     string
	nameGiven        bool
	labels           []string
	postRenderer     string
	postRendererArgs []string
	dryRun           string
	timeout          string
	validate         bool
	enableDNS        bool
}

// boolFlags are helm template's flags without a value (the no-op ones change nothing printed).
var boolFlags = map[string]bool{
	"--exact-name": true, "--include-crds": true, "--skip-tests": true, "--no-hooks": true,
	"--is-upgrade": true, "--release-name": true, "--skip-schema-validation": true,
	"--dependency-update": true, "--generate-name": true, "--validate": true, "--enable-dns": true,
	"--skip-crds": true, "--wait": true, "--wait-for-jobs": true, "--atomic": true, "--force": true,
	"--replace": true, "--create-namespace": true, "--disable-openapi-validation": true,
	"--render-subchart-notes": true, "--hide-notes": true, "--take-ownership": true, "--devel": true,
}

func usage() error {
	return fmt.Errorf("usage: ejob-reference template --chart DIR --name NAME [--exact-name] " +
		"[-n NS] [-f FILE]... [--set K=V]... [--set-string K=V]... [--set-json K=JSON]... " +
		"[--set-file K=PATH]... [--set-literal K=V]... [--kube-version V] [--show-only T] " +
		"[--output-dir DIR] [helm template's flags: -a, --include-crds, --skip-tests, " +
		"--no-hooks, --is-upgrade, --release-name, --name-template, --post-renderer, …]")
}

// parseArgs reads the command line (without the program name).
func parseArgs(args []string) (*options, error) {
	if len(args) == 0 || args[0] != "template" {
		return nil, usage()
	}
	o := &options{name: "release-name", namespace: "default"}
	lists := map[string]*[]string{
		"-f": &o.valueFiles, "--values": &o.valueFiles, "--set": &o.sets,
		"--set-string": &o.setStrings, "--set-json": &o.setJSONs, "--set-file": &o.setFiles,
		"--set-literal": &o.setLiterals, "--show-only": &o.showOnly, "-s": &o.showOnly,
		"-a": &o.apiVersions, "--api-versions": &o.apiVersions, "-l": &o.labels,
		"--labels": &o.labels, "--post-renderer-args": &o.postRendererArgs,
	}
	var description string
	singles := map[string]*string{
		"--chart": &o.chartDir, "--name": &o.name, "-n": &o.namespace, "--namespace": &o.namespace,
		"--kube-version": &o.kubeVersion, "--output-dir": &o.outputDir,
		"--name-template": &o.nameTemplate, "--post-renderer": &o.postRenderer,
		"--timeout": &o.timeout, "--description": &description,
	}
	flags := map[string]*bool{
		"--include-crds": &o.includeCRDs, "--skip-tests": &o.skipTests, "--no-hooks": &o.noHooks,
		"--is-upgrade": &o.isUpgrade, "--release-name": &o.releaseNameDir,
		"--skip-schema-validation": &o.skipSchema, "--dependency-update": &o.dependencyUpdate,
		"--generate-name": &o.generateName, "--validate": &o.validate, "--enable-dns": &o.enableDNS,
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if boolFlags[a] {
			if p, ok := flags[a]; ok {
				*p = true
			}
			continue
		}
		if a == "--dry-run" || strings.HasPrefix(a, "--dry-run=") {
			o.dryRun = "client"
			if strings.HasPrefix(a, "--dry-run=") {
				o.dryRun = strings.TrimPrefix(a, "--dry-run=")
			}
			continue
		}
		if a == "--name" || strings.HasPrefix(a, "--name=") {
			o.nameGiven = true
		}
		flag, value, hasValue := strings.Cut(a, "=")
		if !strings.HasPrefix(flag, "--") {
			flag, hasValue = a, false
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("flag needs an argument: %s", a)
			}
			i++
			value = args[i]
		}
		if p, ok := lists[flag]; ok {
			*p = append(*p, value)
		} else if p, ok := singles[flag]; ok {
			*p = value
		} else {
			return nil, fmt.Errorf("unknown flag: %s", flag)
		}
	}
	if o.chartDir == "" {
		return nil, usage()
	}
	if o.timeout != "" {
		if _, err := time.ParseDuration(o.timeout); err != nil {
			return nil, fmt.Errorf("invalid argument %q for \"--timeout\" flag: %s", o.timeout, err)
		}
	}
	return o, nil
}

func run(args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "bench" {
		out, err := benchCommand(args[1:])
		if err == nil {
			_, err = io.WriteString(stdout, out)
		}
		return err
	}
	o, err := parseArgs(args)
	if err != nil {
		return err
	}
	out, err := templateCommand(o)
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, out)
	return err
}

func main() {
	var sb strings.Builder
	if err := run(os.Args[1:], &sb); err != nil {
		fmt.Fprintf(os.Stderr, "Error: %s\n", helmTypeNames(err.Error()))
		os.Exit(1)
	}
	os.Stdout.WriteString(sb.String())
}

// helmTypeNames renames this program's Go types in error texts to the names they have in Helm
// (the reference's types live in package main, Helm's in chartutil and releaseutil).
func helmTypeNames(msg string) string {
	return strings.NewReplacer("main.Values", "chartutil.Values",
		"main.SimpleHead", "releaseutil.SimpleHead").Replace(msg)
}
