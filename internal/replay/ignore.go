package replay

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Rule is one accepted difference of an --ignore file: a difference
// matches when every given part matches. Field and Reason are required.
//
//   - field: $.payment.merchant.name     # the JSON path ([*] stands for any index), or status
//     path: /api/v2/checkout/{id}        # optional; {id} stands for any id, * for anything
//     method: GET                        # optional
//     kind: shape                        # optional: status, missing, extra, type, value, ...
//     side: answer                       # optional: answer, request, notification
//     reason: the sandbox's merchant is not the account's
type Rule struct {
	Field  string `yaml:"field"`
	Path   string `yaml:"path"`
	Method string `yaml:"method"`
	Kind   string `yaml:"kind"`
	Side   string `yaml:"side"`
	Reason string `yaml:"reason"`
	line   int
}

// IgnoreError is an --ignore file that cannot be used.
type IgnoreError struct {
	File, Problem string
	Line          int
}

func (e *IgnoreError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Problem)
	}
	return e.File + ": " + e.Problem
}

// Hint shows the format.
func (e *IgnoreError) Hint() string {
	return "the file is a YAML list of accepted differences, each with field and reason (and optionally path, method, kind, side); see docs/sandbox.md"
}

// ExitCode is a usage error's: nothing was replayed.
func (e *IgnoreError) ExitCode() int { return 2 }

// ParseIgnore reads an --ignore file.
func ParseIgnore(name string, data []byte) ([]Rule, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &IgnoreError{File: name, Problem: err.Error()}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	list := doc.Content[0]
	if list.Kind != yaml.SequenceNode {
		return nil, &IgnoreError{File: name, Line: list.Line, Problem: "expected a list of accepted differences"}
	}
	var rules []Rule
	for _, item := range list.Content {
		if err := checkRuleKeys(item); err != nil {
			return nil, &IgnoreError{File: name, Line: err.line, Problem: err.problem}
		}
		var r Rule
		if err := item.Decode(&r); err != nil {
			return nil, &IgnoreError{File: name, Line: item.Line, Problem: err.Error()}
		}
		r.line = item.Line
		switch {
		case strings.TrimSpace(r.Field) == "":
			return nil, &IgnoreError{File: name, Line: item.Line, Problem: "an accepted difference needs its field (a JSON path such as $.payment.status, or status)"}
		case strings.TrimSpace(r.Reason) == "":
			return nil, &IgnoreError{File: name, Line: item.Line, Problem: "an accepted difference needs its reason: say why it is accepted"}
		case r.Kind != "" && !ruleKinds[r.Kind]:
			return nil, &IgnoreError{File: name, Line: valueLine(item, "kind"), Problem: fmt.Sprintf("unknown kind %q: use one of %s", r.Kind, strings.Join(sortedKeys(ruleKinds), ", "))}
		case r.Side != "" && !ruleSides[r.Side]:
			return nil, &IgnoreError{File: name, Line: valueLine(item, "side"), Problem: fmt.Sprintf("unknown side %q: use answer, request or notification", r.Side)}
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// ruleKinds and ruleSides are the kinds and sides a difference may have.
var (
	ruleKinds = map[string]bool{DiffStatus: true, DiffBody: true, DiffMissing: true, DiffExtra: true, DiffType: true,
		DiffValue: true, DiffAmount: true, DiffShape: true, DiffID: true, DiffLength: true, DiffOrder: true,
		DiffRequest: true, DiffNotified: true}
	ruleSides = map[string]bool{"answer": true, "request": true, "notification": true}
	ruleKeys  = map[string]bool{"field": true, "path": true, "method": true, "kind": true, "side": true, "reason": true}
)

type ruleProblem struct {
	line    int
	problem string
}

// checkRuleKeys refuses an accepted difference that is not a mapping, or
// that has a key a rule does not know (a misspelt one would widen the
// rule).
func checkRuleKeys(item *yaml.Node) *ruleProblem {
	if item.Kind != yaml.MappingNode {
		return &ruleProblem{item.Line, "an accepted difference is a mapping of field, reason and optionally path, method, kind, side"}
	}
	for i := 0; i+1 < len(item.Content); i += 2 {
		k := item.Content[i]
		if !ruleKeys[k.Value] {
			return &ruleProblem{k.Line, fmt.Sprintf("unknown key %q: an accepted difference has %s", k.Value, strings.Join(sortedKeys(ruleKeys), ", "))}
		}
	}
	return nil
}

// valueLine is the line of a mapping's key.
func valueLine(item *yaml.Node, key string) int {
	for i := 0; i+1 < len(item.Content); i += 2 {
		if item.Content[i].Value == key {
			return item.Content[i].Line
		}
	}
	return item.Line
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var indexPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[[0-9]+\]`) })

// Template is a path or field as rules name it: ids as {id}, indexes [*].
func Template(s string) string {
	s = indexPattern().ReplaceAllString(s, "[*]")
	parts := strings.Split(s, "/")
	for i, p := range parts {
		if isUUID(p) {
			parts[i] = "{id}"
		}
	}
	return strings.Join(parts, "/")
}

// Match answers the first rule that accepts d.
func Match(rules []Rule, d Difference) (Rule, bool) {
	for _, r := range rules {
		if r.matches(d) {
			return r, true
		}
	}
	return Rule{}, false
}

func (r Rule) matches(d Difference) bool {
	if r.Method != "" && !strings.EqualFold(r.Method, d.Method) {
		return false
	}
	if r.Kind != "" && r.Kind != d.Kind {
		return false
	}
	if r.Side != "" && r.Side != d.Side {
		return false
	}
	if r.Path != "" && !glob(Template(r.Path), Template(d.Path)) {
		return false
	}
	return glob(Template(r.Field), Template(d.Field))
}

// glob matches s against a pattern where * stands for any run of
// characters and everything else for itself.
func glob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// Apply moves the differences an accepted rule matches to ignored, each
// with the rule's reason.
func Apply(rules []Rule, diffs []Difference) (kept, ignored []Difference) {
	kept, ignored = []Difference{}, []Difference{}
	for _, d := range diffs {
		if r, ok := Match(rules, d); ok {
			d.Ignored = r.Reason
			ignored = append(ignored, d)
			continue
		}
		kept = append(kept, d)
	}
	return kept, ignored
}
