package main

// `ejob-reference bench --chart DIR [-n N]`: renders a chart N times in-process (values
// assembly, coalescing, parse, execute, sort, print; the chart is loaded once) and prints the
// mean time per render, for bench/render.sh.

import (
	"fmt"
	"strconv"
	"time"
)

func benchCommand(args []string) (string, error) {
	n := 1000
	var templateArgs []string
	for i := 0; i < len(args); i++ {
		if args[i] == "-n" && i+1 < len(args) {
			v, err := strconv.Atoi(args[i+1])
			if err != nil || v <= 0 {
				return "", fmt.Errorf("bad -n %q", args[i+1])
			}
			n = v
			i++
			continue
		}
		templateArgs = append(templateArgs, args[i])
	}
	o, err := parseArgs(append([]string{"template"}, templateArgs...))
	if err != nil {
		return "", err
	}
	chart, err := loadChart(o.chartDir, nil)
	if err != nil {
		return "", err
	}
	var out string
	render := func() error {
		out, err = renderLoaded(o, chart)
		return err
	}
	if err := render(); err != nil { // warm-up, and the output size for the report
		return "", err
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		if err := render(); err != nil {
			return "", err
		}
	}
	perOp := time.Since(start) / time.Duration(n)
	return fmt.Sprintf("go-reference in-process: %d renders, %d ns/op, %d bytes/render\n",
		n, perOp.Nanoseconds(), len(out)), nil
}
