package main

// The --set family grammar (helm-template.md §7): comma-separated `key=value` items, keys with
// dots (nested maps) and `[i]` (list indexes), backslash escaping the next rune, `{a,b}` list
// values, typed values for --set, strings for --set-string / --set-file, JSON for --set-json
// and the raw rest of the argument for --set-literal.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
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

// setParser scans one --set argument.
type setParser struct {
	text []rune
	pos  int
	mode valueMode
}

// parseSetInto parses one --set style argument into dest.
func parseSetInto(arg string, dest map[string]interface{}, mode valueMode) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("unable to parse key: %s", r)
		}
	}()
	p := &setParser{text: []rune(arg), mode: mode}
	for {
		done, err := p.key(dest, 0)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

func (p *setParser) eof() bool { return p.pos >= len(p.text) }

// until reads runes up to (not including) one of stop, handling backslash escapes. It returns
// the text, the stop rune found (0 at the end of input).
func (p *setParser) until(stop string) ([]rune, rune) {
	var out []rune
	for !p.eof() {
		r := p.text[p.pos]
		p.pos++
		if r == '\\' {
			if !p.eof() {
				out = append(out, p.text[p.pos])
				p.pos++
			}
			continue
		}
		if strings.ContainsRune(stop, r) {
			return out, r
		}
		out = append(out, r)
	}
	return out, 0
}

// key parses one `key...=value` item into data. done is true at the end of the input.
func (p *setParser) key(data map[string]interface{}, level int) (bool, error) {
	if level > maxSetNested {
		return false, fmt.Errorf("value name nested level is greater than maximum supported nested level of %d", maxSetNested)
	}
	k, last := p.until("=[,.")
	key := string(k)
	switch last {
	case 0:
		if len(k) == 0 {
			return true, nil
		}
		return false, fmt.Errorf("key %q has no value", key)
	case ',':
		data[key] = ""
		return false, fmt.Errorf("key %q has no value (cannot end with ,)", key)
	case '=':
		v, err := p.value()
		if err != nil {
			return false, err
		}
		data[key] = v
		return p.eof(), nil
	case '[':
		idx, err := p.index()
		if err != nil {
			return false, err
		}
		var list []interface{}
		if existing, ok := data[key]; ok {
			list = existing.([]interface{})
		}
		list, err = p.listItem(list, idx, level)
		data[key] = list
		return p.eof(), err
	default: // '.'
		inner := map[string]interface{}{}
		if existing, ok := data[key]; ok {
			inner = existing.(map[string]interface{})
		}
		done, err := p.key(inner, level+1)
		data[key] = inner
		return done, err
	}
}

// index reads the digits of `[N]` after the `[`.
func (p *setParser) index() (int, error) {
	v, _ := p.until("]")
	i, err := strconv.Atoi(string(v))
	if err != nil {
		return 0, err
	}
	if i < 0 {
		return 0, fmt.Errorf("negative %d index not allowed", i)
	}
	if i > maxSetIndex {
		return 0, fmt.Errorf("index of %d is greater than maximum supported index of %d", i, maxSetIndex)
	}
	return i, nil
}

func setIndex(list []interface{}, i int, v interface{}) []interface{} {
	for len(list) <= i {
		list = append(list, nil)
	}
	list[i] = v
	return list
}

// listItem parses what follows `key[i]`: `=value`, `[j]...` or `.key...`.
func (p *setParser) listItem(list []interface{}, i int, level int) ([]interface{}, error) {
	k, last := p.until("[.=")
	if len(k) > 0 {
		return list, fmt.Errorf("unexpected data at end of array index: %q", string(k))
	}
	switch last {
	case '=':
		v, err := p.value()
		if err != nil {
			return list, err
		}
		return setIndex(list, i, v), nil
	case '[':
		j, err := p.index()
		if err != nil {
			return list, err
		}
		var inner []interface{}
		if i < len(list) && list[i] != nil {
			inner = list[i].([]interface{})
		}
		inner, err = p.listItem(inner, j, level)
		return setIndex(list, i, inner), err
	case '.':
		inner := map[string]interface{}{}
		if i < len(list) && list[i] != nil {
			inner = list[i].(map[string]interface{})
		}
		_, err := p.key(inner, level+1)
		return setIndex(list, i, inner), err
	default:
		return list, fmt.Errorf("parse error: unexpected end of key after index %d", i)
	}
}

// value parses the text after `=` according to the mode, consuming the following comma.
func (p *setParser) value() (interface{}, error) {
	switch p.mode {
	case modeLiteral:
		v := string(p.text[p.pos:])
		p.pos = len(p.text)
		return v, nil
	case modeJSON:
		return p.jsonValue()
	}
	if p.mode != modeFile && !p.eof() && p.text[p.pos] == '{' {
		p.pos++
		return p.listValue()
	}
	v, _ := p.until(",")
	return p.convert(string(v))
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

// listValue parses `a,b,c}` after the `{`, then the comma that follows.
func (p *setParser) listValue() (interface{}, error) {
	list := []interface{}{}
	for {
		v, last := p.until(",}")
		if last == 0 {
			return nil, fmt.Errorf("list must terminate with '}'")
		}
		item, err := p.convert(string(v))
		if err != nil {
			return nil, err
		}
		list = append(list, item)
		if last == '}' {
			if !p.eof() {
				if p.text[p.pos] != ',' {
					return nil, fmt.Errorf("list must terminate with '}'")
				}
				p.pos++
			}
			return list, nil
		}
	}
}

// jsonValue decodes one JSON value, then the comma that follows it.
func (p *setParser) jsonValue() (interface{}, error) {
	rest := string(p.text[p.pos:])
	if rest == "" || rest[0] == ',' {
		if rest != "" {
			p.pos++
		}
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(rest)))
	var v interface{}
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	used := []rune(rest[:dec.InputOffset()])
	p.pos += len(used)
	for !p.eof() && (p.text[p.pos] == ' ' || p.text[p.pos] == '\n' || p.text[p.pos] == '\t') {
		p.pos++
	}
	if !p.eof() {
		if p.text[p.pos] != ',' {
			return nil, fmt.Errorf("unexpected character after JSON value: %q", p.text[p.pos])
		}
		p.pos++
	}
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
	if s == "null" {
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
