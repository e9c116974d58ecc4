package main

// `.Files` (helm-template.md §3): the chart's non-template files with Get, GetBytes, Glob,
// Lines, AsConfig and AsSecrets.

import (
	"encoding/base64"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Files maps a chart-relative path to its contents.
type Files map[string][]byte

// GetBytes returns a file's bytes (nil when absent).
func (f Files) GetBytes(name string) []byte {
	if v, ok := f[name]; ok {
		return v
	}
	return []byte{}
}

// Get returns a file's contents as a string ("" when absent).
func (f Files) Get(name string) string { return string(f.GetBytes(name)) }

// Glob returns the files whose path matches a glob (`*` within a path segment, `**` across,
// `?`, `[...]`, `{a,b}`); an invalid pattern matches everything.
func (f Files) Glob(pattern string) Files {
	re, err := globRegexp(pattern)
	if err != nil {
		re = regexp.MustCompile(`^.*$`)
	}
	out := Files{}
	for name, data := range f {
		if re.MatchString(name) {
			out[name] = data
		}
	}
	return out
}

// AsConfig renders the files as a YAML map from base name to contents.
func (f Files) AsConfig() string {
	if len(f) == 0 {
		return ""
	}
	m := map[string]string{}
	for k, v := range f {
		m[path.Base(k)] = string(v)
	}
	return toYAML(m)
}

// AsSecrets renders the files as a YAML map from base name to base64 contents.
func (f Files) AsSecrets() string {
	if len(f) == 0 {
		return ""
	}
	m := map[string]string{}
	for k, v := range f {
		m[path.Base(k)] = base64.StdEncoding.EncodeToString(v)
	}
	return toYAML(m)
}

// Lines splits a file into lines (a final newline does not start an empty line).
func (f Files) Lines(name string) []string {
	if f == nil || f[name] == nil {
		return []string{}
	}
	s := string(f[name])
	if len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return strings.Split(s, "\n")
}

// globRegexp translates a glob with `/` as separator into an anchored regexp.
func globRegexp(pattern string) (*regexp.Regexp, error) {
	var sb strings.Builder
	sb.WriteString("^")
	depth := 0
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '*' && i+1 < len(pattern) && pattern[i+1] == '*':
			sb.WriteString(".*")
			i++
		case c == '*':
			sb.WriteString("[^/]*")
		case c == '?':
			sb.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(pattern[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("missing ]")
			}
			class := pattern[i+1 : i+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			sb.WriteString("[" + class + "]")
			i += end
		case c == '{':
			depth++
			sb.WriteString("(?:")
		case c == '}' && depth > 0:
			depth--
			sb.WriteString(")")
		case c == ',' && depth > 0:
			sb.WriteString("|")
		case c == '\\' && i+1 < len(pattern):
			i++
			sb.WriteString(regexp.QuoteMeta(string(pattern[i])))
		default:
			sb.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	sb.WriteString("$")
	return regexp.Compile(sb.String())
}
