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
}

func usage() error {
	return fmt.Errorf("usage: ejob-reference template --chart DIR --name NAME [--exact-name] " +
		"[-n NS] [-f FILE]... [--set K=V]... [--set-string K=V]... [--set-json K=JSON]... " +
		"[--set-file K=PATH]... [--set-literal K=V]... [--kube-version V] [--show-only T] " +
		"[--output-dir DIR]")
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
	}
	singles := map[string]*string{
		"--chart": &o.chartDir, "--name": &o.name, "-n": &o.namespace, "--namespace": &o.namespace,
		"--kube-version": &o.kubeVersion, "--output-dir": &o.outputDir,
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--exact-name" {
			continue
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
