package main

// Packaged subcharts: `charts/NAME.tgz` is a gzip'd tar whose one top directory holds the
// chart. The files are read with Go's archive/tar and compress/gzip, with Helm's path rules
// (written from its documented behaviour: top directory dropped, `\` archives normalised,
// absolute or parent paths refused, Chart.yaml required below the top directory, 100 MiB per
// chart and 5 MiB per file, a UTF-8 BOM dropped), then classified like a directory's files
// without .helmignore rules.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strings"
)

const (
	maxChartSize = 100 * 1024 * 1024
	maxFileSize  = 5 * 1024 * 1024
)

var drivePath = regexp.MustCompile(`^[a-zA-Z]:/`)

// isArchiveSubchart: `charts/NAME.tgz` directly under charts/, NAME not starting with _ or .
func isArchiveSubchart(rel string) bool {
	if !strings.HasPrefix(rel, "charts/") || strings.Count(rel, "/") != 1 {
		return false
	}
	base := path.Base(rel)
	return path.Ext(base) == ".tgz" && strings.IndexAny(base, "_.") != 0
}

type bufferedFile struct {
	name string
	data []byte
}

// archiveFiles reads the chart files of a .tgz.
func archiveFiles(data []byte) ([]bufferedFile, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	var files []bufferedFile
	remaining := int64(maxChartSize)
	tr := tar.NewReader(zr)
	for {
		hd, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if hd.FileInfo().IsDir() || hd.Typeflag == tar.TypeXGlobalHeader || hd.Typeflag == tar.TypeXHeader {
			continue
		}
		sep := "/"
		if strings.ContainsRune(hd.Name, '\\') {
			sep = "\\"
		}
		parts := strings.Split(hd.Name, sep)
		n := strings.ReplaceAll(strings.Join(parts[1:], sep), sep, "/")
		if path.IsAbs(n) {
			return nil, errors.New("chart illegally contains absolute paths")
		}
		n = path.Clean(n)
		switch {
		case n == ".":
			return nil, fmt.Errorf("chart illegally contains content outside the base directory: %q", hd.Name)
		case strings.HasPrefix(n, ".."):
			return nil, errors.New("chart illegally references parent directory")
		case drivePath.MatchString(n):
			return nil, errors.New("chart contains illegally named files")
		case parts[0] == "Chart.yaml":
			return nil, errors.New("chart yaml not in base directory")
		case hd.Size > remaining:
			return nil, fmt.Errorf("decompressed chart is larger than the maximum file size %d", maxChartSize)
		case hd.Size > maxFileSize:
			return nil, fmt.Errorf("decompressed chart file %q is larger than the maximum file size %d", hd.Name, maxFileSize)
		}
		var b bytes.Buffer
		written, err := io.Copy(&b, io.LimitReader(tr, remaining))
		if err != nil {
			return nil, err
		}
		remaining -= written
		if written < hd.Size || remaining <= 0 {
			return nil, fmt.Errorf("decompressed chart is larger than the maximum file size %d", maxChartSize)
		}
		files = append(files, bufferedFile{n, bytes.TrimPrefix(b.Bytes(), []byte("\xEF\xBB\xBF"))})
	}
	if len(files) == 0 {
		return nil, errors.New("no files in chart archive")
	}
	return files, nil
}

// loadArchive loads a packaged subchart of parent.
func loadArchive(data []byte, parent *Chart) (*Chart, error) {
	files, err := archiveFiles(data)
	if err != nil {
		return nil, err
	}
	return loadFiles(files, parent)
}

// loadFiles builds a chart from in-memory files (paths relative to the chart root);
// subcharts below charts/ are directories (grouped by their first path element) or archives.
func loadFiles(files []bufferedFile, parent *Chart) (*Chart, error) {
	c := &Chart{Parent: parent, Files: Files{}}
	// Helm keeps the other files in the order given (tar order): crds/ prints in it.
	var order []string
	for _, f := range files {
		if !strings.HasPrefix(f.name, "charts/") && !strings.HasPrefix(f.name, "templates/") {
			order = append(order, f.name)
		}
	}
	defer func() { c.FileOrder = filterKnown(order, c.Files) }()
	sort.SliceStable(files, func(i, j int) bool { return files[i].name < files[j].name })
	metaSeen := false
	groups := map[string][]bufferedFile{}
	for _, f := range files {
		if strings.HasPrefix(f.name, "charts/") && path.Ext(f.name) != ".prov" {
			rest := strings.TrimPrefix(f.name, "charts/")
			group := strings.SplitN(rest, "/", 2)[0]
			groups[group] = append(groups[group], bufferedFile{rest, f.data})
			continue
		}
		if err := c.addFile(f.name, f.data, &metaSeen); err != nil {
			return nil, err
		}
	}
	if err := c.finish(metaSeen); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if strings.IndexAny(n, "_.") == 0 {
			continue
		}
		var sub *Chart
		var err error
		if path.Ext(n) == ".tgz" {
			if first := groups[n][0]; first.name != n {
				return nil, fmt.Errorf("error unpacking subchart tar in %s: expected %s, got %s", c.Meta.Name, n, first.name)
			}
			sub, err = loadArchive(groups[n][0].data, c)
		} else {
			var inner []bufferedFile
			for _, f := range groups[n] {
				if parts := strings.SplitN(f.name, "/", 2); len(parts) == 2 {
					inner = append(inner, bufferedFile{parts[1], f.data})
				}
			}
			sub, err = loadFiles(inner, c)
		}
		if err != nil {
			return nil, fmt.Errorf("error unpacking subchart %s in %s: %s", n, c.Meta.Name, err)
		}
		c.Subcharts = append(c.Subcharts, sub)
	}
	return c, nil
}

// filterKnown keeps the names that became Files, each once, in the given order.
func filterKnown(order []string, files Files) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range order {
		if _, ok := files[n]; ok && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
