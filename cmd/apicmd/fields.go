package apicmd

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// field is one -f or -F argument, parsed.
type field struct {
	path  []string // "order[items][]" → order, items, "" (append)
	key   string   // as typed, for query parameters and messages
	value any
}

// jsonNumber is what -F turns into a JSON number: JSON's own grammar, so
// that "007" or "1e" stay strings rather than becoming something else.
var jsonNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`) })

// parseField reads KEY=VALUE. With typed (-F), the value becomes true,
// false, null, a number, a JSON array or object written inline, or the
// contents of a file (@path, @- for stdin); anything else stays a string.
// readFile is injected for tests.
func parseField(arg string, typed bool, readFile func(string) ([]byte, error)) (field, error) {
	key, value, ok := strings.Cut(arg, "=")
	flag := "-f"
	if typed {
		flag = "-F"
	}
	if !ok || key == "" {
		return field{}, fmt.Errorf("%s %q: want key=value", flag, arg)
	}
	path, err := parseKey(key)
	if err != nil {
		return field{}, fmt.Errorf("%s %q: %w", flag, arg, err)
	}
	f := field{path: path, key: key, value: value}
	if !typed {
		return f, nil
	}
	switch {
	case value == "true":
		f.value = true
	case value == "false":
		f.value = false
	case value == "null":
		f.value = nil
	case jsonNumber().MatchString(value):
		f.value = json.Number(value)
	case strings.HasPrefix(value, "@"):
		b, err := readFile(value[1:])
		if err != nil {
			return field{}, fmt.Errorf("-F %s: %w", key, err)
		}
		f.value = string(b)
	case (strings.HasPrefix(value, "{") || strings.HasPrefix(value, "[")) && json.Valid([]byte(value)):
		f.value = json.RawMessage(value)
	}
	return f, nil
}

// parseKey splits "a[b][c]" into a, b, c; "a[]" appends to the array a.
// Brackets, not dots, because the service's own names never use them and
// a dot stays usable in a key.
func parseKey(key string) ([]string, error) {
	name, rest, nested := strings.Cut(key, "[")
	if name == "" {
		return nil, fmt.Errorf("the key must start with a name")
	}
	if strings.Contains(name, "]") {
		return nil, fmt.Errorf("unexpected ]: nest keys as a[b][c]")
	}
	path := []string{name}
	if !nested {
		return path, nil
	}
	rest = "[" + rest
	for rest != "" {
		if rest[0] != '[' {
			return nil, fmt.Errorf("unexpected %q after ]: nest keys as a[b][c]", rest)
		}
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return nil, fmt.Errorf("unclosed [")
		}
		seg := rest[1:end]
		if strings.ContainsAny(seg, "[") {
			return nil, fmt.Errorf("unexpected [ inside []")
		}
		path = append(path, seg)
		rest = rest[end+1:]
	}
	for i, seg := range path[:len(path)-1] {
		if seg == "" && i > 0 {
			return nil, fmt.Errorf("[] may only come last: build arrays of objects with -F 'key=[{...}]'")
		}
	}
	return path, nil
}

// buildBody nests fields into one JSON object. Setting the same leaf twice,
// or a value where an object is being built, is an error rather than a
// silent overwrite.
func buildBody(fields []field) (map[string]any, error) {
	root := map[string]any{}
	for _, f := range fields {
		node := root
		for i, seg := range f.path {
			last := i == len(f.path)-1
			if last {
				if err := setLeaf(node, seg, f); err != nil {
					return nil, err
				}
				break
			}
			next := f.path[i+1]
			if next == "" {
				// seg is an array the leaf is appended to.
				if err := appendLeaf(node, seg, f); err != nil {
					return nil, err
				}
				break
			}
			child, exists := node[seg]
			if !exists {
				m := map[string]any{}
				node[seg] = m
				node = m
				continue
			}
			m, ok := child.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("field %s: %s already holds a value, not an object", f.key, strings.Join(f.path[:i+1], "."))
			}
			node = m
		}
	}
	return root, nil
}

func setLeaf(node map[string]any, seg string, f field) error {
	if _, exists := node[seg]; exists {
		return fmt.Errorf("field %s is given twice", f.key)
	}
	node[seg] = f.value
	return nil
}

func appendLeaf(node map[string]any, seg string, f field) error {
	switch cur := node[seg].(type) {
	case nil:
		if _, exists := node[seg]; exists {
			return fmt.Errorf("field %s: %s already holds null, not an array", f.key, seg)
		}
		node[seg] = []any{f.value}
	case []any:
		node[seg] = append(cur, f.value)
	default:
		return fmt.Errorf("field %s: %s already holds a value, not an array", f.key, seg)
	}
	return nil
}

// buildQuery turns fields into query parameters, for GET and for requests
// whose body comes from --input. Keys are used as typed, and a key given
// twice is sent twice, which is how the disputes list takes several
// statuses (-f statuses=new -f statuses=declined).
func buildQuery(fields []field) url.Values {
	q := url.Values{}
	for _, f := range fields {
		q.Add(f.key, queryValue(f.value))
	}
	return q
}

func queryValue(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case json.Number:
		return t.String()
	case json.RawMessage:
		return string(t)
	}
	return fmt.Sprint(v)
}
