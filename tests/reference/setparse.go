package main

// The --set family grammar (helm-template.md §7) as Helm 3's pkg/strvals behaves: comma-separated
// `key=value` items, keys with dots (nested maps) and `[i]` (list indexes), backslash escaping
// the next rune, `{a,b}` list values, typed values for --set, strings for --set-string, file
// contents for --set-file (lists too), JSON for --set-json and the raw rest of the argument for
// --set-literal (no escapes, no commas).
//
// The end of the input travels as io.EOF, exactly where Helm lets it travel, because it decides
// what is kept (checked against Helm's pkg/strvals/parser_test.go expectations):
//   - `noval[0]` (no `=`)       → noval: []            (the list is created, nothing set)
//   - `noval[0]=`               → noval: [""]
//   - `a[1].c=` at the end      → a: []                (the map item is dropped: EOF came back
//                                                       from the item's key)
//   - `a[1].c=x`                → a: [null, {c: x}]
//   - `nested[1][1]=1`          → nested: [null, [null, 1]]
//   - `a.` at the end           → nothing set; `a.=x` → error `key map "a" has no value`
//   - `name1.name2=`            → name1: {name2: ""}
// An EOF wrapped by "error parsing index" is an error (Helm 3 compares `err == io.EOF`).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"
)

const (
	maxSetIndex  = 65536
	maxSetNested = 30
)

// valueMode says how a --set flavour turns the text after `=` into a value.
type valueMode int

const (
	modeTyped valueMode = iota
	modeString
	modeJSON
	modeFile
	modeLiteral
)

// setParser scans one --set argument rune by rune (invalid UTF-8 reads as U+FFFD).
type setParser struct {
	sc   *bytes.Buffer
	mode valueMode
}

// parseSetInto parses one --set style argument into dest.
func parseSetInto(arg string, dest map[string]interface{}, mode valueMode) error {
	p := &setParser{sc: bytes.NewBufferString(arg), mode: mode}
	for {
		err := p.key(dest, 0)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// until reads runes up to one of stop, handling backslash escapes (not for --set-literal).
// It returns the text, the stop rune, and io.EOF if the input ended first.
func (p *setParser) until(stop string) (string, rune, error) {
	var out []rune
	for {
		r, _, err := p.sc.ReadRune()
		if err != nil {
			return string(out), 0, io.EOF
		}
		if strings.ContainsRune(stop, r) {
			return string(out), r, nil
		}
		if r == '\\' && p.mode != modeLiteral {
			if r, _, err = p.sc.ReadRune(); err != nil {
				return string(out), 0, io.EOF
			}
		}
		out = append(out, r)
	}
}

// setKey stores val unless the key is empty (Helm never sets an empty key).
func setKey(data map[string]interface{}, key string, val interface{}) {
	if key != "" {
		data[key] = val
	}
}

// key parses one `key...=value` item into data; panics (type assertions on existing values)
// become `unable to parse key: …`.
func (p *setParser) key(data map[string]interface{}, level int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("unable to parse key: %s", r)
		}
	}()
	stop := "=[,."
	if p.mode == modeLiteral {
		stop = "=[."
	}
	k, last, rerr := p.until(stop)
	if rerr != nil {
		if k == "" {
			return rerr
		}
		return fmt.Errorf("key %q has no value", k)
	}
	switch last {
	case '[':
		i, err := p.index()
		if err != nil {
			return fmt.Errorf("error parsing index: %s", err)
		}
		list := []interface{}{}
		if _, ok := data[k]; ok {
			list = data[k].([]interface{})
		}
		list, err = p.listItem(list, i, level)
		setKey(data, k, list)
		return err
	case '=':
		v, err := p.value()
		if err != nil && err != io.EOF {
			return err
		}
		setKey(data, k, v)
		return err
	case ',':
		setKey(data, k, "")
		return fmt.Errorf("key %q has no value (cannot end with ,)", k)
	}
	// '.'
	level++
	if level > maxSetNested {
		return fmt.Errorf("value name nested level is greater than maximum supported nested level of %d", maxSetNested)
	}
	inner := map[string]interface{}{}
	if _, ok := data[k]; ok {
		inner = data[k].(map[string]interface{})
	}
	err = p.key(inner, level)
	if err == nil && len(inner) == 0 {
		return fmt.Errorf("key map %q has no value", k)
	}
	if len(inner) != 0 {
		setKey(data, k, inner)
	}
	return err
}

// index reads `N]` after a `[`.
func (p *setParser) index() (int, error) {
	v, _, err := p.until("]")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(v)
}

func setIndex(list []interface{}, i int, v interface{}) ([]interface{}, error) {
	if i < 0 {
		return list, fmt.Errorf("negative %d index not allowed", i)
	}
	if i > maxSetIndex {
		return list, fmt.Errorf("index of %d is greater than maximum supported index of %d", i, maxSetIndex)
	}
	for len(list) <= i {
		list = append(list, nil)
	}
	list[i] = v
	return list, nil
}

// listItem parses what follows `key[i]`: `=value`, `[j]...` or `.key...`. Items are changed
// in place where they exist (Go slices share their array), as in Helm.
func (p *setParser) listItem(list []interface{}, i int, level int) ([]interface{}, error) {
	if i < 0 {
		return list, fmt.Errorf("negative %d index not allowed", i)
	}
	k, last, err := p.until("[.=")
	if len(k) > 0 {
		// Helm formats the runes with %q: ['n' 'a' 'm' 'e']
		return list, fmt.Errorf("unexpected data at end of array index: %q", []rune(k))
	}
	if err != nil {
		return list, err
	}
	switch last {
	case '=':
		v, err := p.value()
		if err != nil && err != io.EOF {
			return list, err
		}
		return setIndex(list, i, v)
	case '[':
		j, err := p.index()
		if err != nil {
			return list, fmt.Errorf("error parsing index: %s", err)
		}
		var current []interface{}
		if len(list) > i && list[i] != nil {
			current = list[i].([]interface{})
		}
		inner, err := p.listItem(current, j, level)
		if err != nil {
			return list, err
		}
		return setIndex(list, i, inner)
	}
	// '.': an existing item that is not a map is replaced by a fresh map first
	inner := map[string]interface{}{}
	if len(list) > i {
		m, ok := list[i].(map[string]interface{})
		if !ok {
			m = map[string]interface{}{}
			list[i] = m
		}
		inner = m
	}
	if err := p.key(inner, level); err != nil {
		return list, err
	}
	return setIndex(list, i, inner)
}

// value parses the text after `=` according to the mode. io.EOF (with "") means the input
// ended right after the `=` of a --set/--set-string/--set-file item.
func (p *setParser) value() (interface{}, error) {
	switch p.mode {
	case modeLiteral:
		v, _, _ := p.until("")
		return v, nil
	case modeJSON:
		return p.jsonValue()
	}
	r, _, err := p.sc.ReadRune()
	if err != nil {
		return "", io.EOF
	}
	if r == '{' {
		return p.listValue()
	}
	if err := p.sc.UnreadRune(); err != nil {
		return nil, err
	}
	v, _, _ := p.until(",")
	return p.convert(v)
}

func (p *setParser) convert(s string) (interface{}, error) {
	switch p.mode {
	case modeString:
		return s, nil
	case modeFile:
		b, err := os.ReadFile(s)
		if err != nil {
			return nil, err
		}
		return string(b), nil
	}
	return typedSetValue(s), nil
}

// listValue parses `a,b,c}` after the `{` and a comma right after the `}` (anything else
// after the `}` starts the next key).
func (p *setParser) listValue() (interface{}, error) {
	list := []interface{}{}
	for {
		v, last, err := p.until(",}")
		if err != nil {
			return nil, errors.New("list must terminate with '}'")
		}
		item, err := p.convert(v)
		if err != nil {
			return nil, err
		}
		list = append(list, item)
		if last == '}' {
			if r, _, err := p.sc.ReadRune(); err == nil && r != ',' {
				_ = p.sc.UnreadRune()
			}
			return list, nil
		}
	}
}

// emptyValue skips white space and one comma; true when the value is empty (the input ended
// or a comma came first). Any other rune is left unread.
func (p *setParser) emptyValue() bool {
	for {
		r, _, err := p.sc.ReadRune()
		if err != nil || r == ',' {
			return true
		}
		if !unicode.IsSpace(r) {
			_ = p.sc.UnreadRune()
			return false
		}
	}
}

// jsonValue decodes one JSON value (an empty value is null), then skips blanks and a comma.
// Whatever follows the value otherwise starts the next key (`a=1 b=2` sets both).
func (p *setParser) jsonValue() (interface{}, error) {
	if p.emptyValue() {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(p.sc.String()))
	var v interface{}
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	p.sc.Next(int(dec.InputOffset()))
	p.emptyValue()
	return v, nil
}

// typedSetValue applies --set's type inference.
func typedSetValue(s string) interface{} {
	if strings.EqualFold(s, "true") {
		return true
	}
	if strings.EqualFold(s, "false") {
		return false
	}
	if strings.EqualFold(s, "null") {
		return nil
	}
	if s == "0" {
		return int64(0)
	}
	if len(s) > 0 && s[0] != '0' {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
	}
	return s
}
