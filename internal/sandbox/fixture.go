package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Fixtures: a file of payments (and webhooks) that `bnpl sandbox seed`
// builds through the sandbox's own state machine, and that `bnpl sandbox
// export` writes back from the state. YAML, or JSON of the same shape (JSON
// is read as YAML). docs/sandbox.md ("Fixtures") has the format; Fixture is
// its normalised form, every default filled in, which export writes.

// Fixture is the content of a fixture file.
type Fixture struct {
	Webhooks []FixtureWebhook `json:"webhooks,omitempty" yaml:"webhooks,omitempty"`
	Payments []FixturePayment `json:"payments" yaml:"payments"`
}

// FixtureWebhook is a payment webhook registered after the payments.
type FixtureWebhook struct {
	ID       string `json:"id,omitempty" yaml:"id,omitempty"`
	Merchant string `json:"merchant,omitempty" yaml:"merchant,omitempty"`
	Test     *bool  `json:"test,omitempty" yaml:"test,omitempty"`
	URL      string `json:"url" yaml:"url"`
}

// FixturePayment is one payment and the moves that bring it to its state.
type FixturePayment struct {
	ID              string                  `json:"id,omitempty" yaml:"id,omitempty"`
	SessionID       string                  `json:"session_id,omitempty" yaml:"session_id,omitempty"`
	Merchant        string                  `json:"merchant,omitempty" yaml:"merchant,omitempty"`
	Test            *bool                   `json:"test,omitempty" yaml:"test,omitempty"`
	Status          string                  `json:"status,omitempty" yaml:"status,omitempty"`
	CreatedAt       string                  `json:"created_at,omitempty" yaml:"created_at,omitempty"`
	Amount          string                  `json:"amount" yaml:"amount"`
	Currency        string                  `json:"currency,omitempty" yaml:"currency,omitempty"`
	Description     string                  `json:"description,omitempty" yaml:"description,omitempty"`
	Order           *FixtureOrder           `json:"order,omitempty" yaml:"order,omitempty"`
	Buyer           *FixtureBuyer           `json:"buyer,omitempty" yaml:"buyer,omitempty"`
	ShippingAddress *FixtureShippingAddress `json:"shipping_address,omitempty" yaml:"shipping_address,omitempty"`
	Checkout        string                  `json:"checkout,omitempty" yaml:"checkout,omitempty"`
	ApprovedAt      string                  `json:"approved_at,omitempty" yaml:"approved_at,omitempty"`
	Captures        []FixtureMove           `json:"captures,omitempty" yaml:"captures,omitempty"`
	AuthExpiredAt   string                  `json:"auth_expired_at,omitempty" yaml:"auth_expired_at,omitempty"`
	ClosedAt        string                  `json:"closed_at,omitempty" yaml:"closed_at,omitempty"`
	Refunds         []FixtureMove           `json:"refunds,omitempty" yaml:"refunds,omitempty"`
	Disputes        []FixtureDispute        `json:"disputes,omitempty" yaml:"disputes,omitempty"`
}

// FixtureOrder is the merchant's order: its number and items.
type FixtureOrder struct {
	ReferenceID string        `json:"reference_id" yaml:"reference_id"`
	Items       []FixtureItem `json:"items,omitempty" yaml:"items,omitempty"`
}

// FixtureItem is an item of the order.
type FixtureItem struct {
	Title       string `json:"title" yaml:"title"`
	Quantity    int    `json:"quantity,omitempty" yaml:"quantity,omitempty"`
	UnitPrice   string `json:"unit_price" yaml:"unit_price"`
	Category    string `json:"category,omitempty" yaml:"category,omitempty"`
	ReferenceID string `json:"reference_id,omitempty" yaml:"reference_id,omitempty"`
}

// FixtureBuyer is the customer.
type FixtureBuyer struct {
	Name  string `json:"name" yaml:"name"`
	Email string `json:"email" yaml:"email"`
	Phone string `json:"phone" yaml:"phone"`
}

// FixtureShippingAddress is where the order goes.
type FixtureShippingAddress struct {
	City    string `json:"city" yaml:"city"`
	Address string `json:"address" yaml:"address"`
	Zip     string `json:"zip" yaml:"zip"`
}

// FixtureMove is a capture or a refund.
type FixtureMove struct {
	ID          string `json:"id,omitempty" yaml:"id,omitempty"`
	Amount      string `json:"amount" yaml:"amount"`
	ReferenceID string `json:"reference_id,omitempty" yaml:"reference_id,omitempty"`
	Reason      string `json:"reason,omitempty" yaml:"reason,omitempty"`
	At          string `json:"at,omitempty" yaml:"at,omitempty"`
}

// FixtureDispute is a dispute the customer opened, and where support took
// it.
type FixtureDispute struct {
	ID         string `json:"id,omitempty" yaml:"id,omitempty"`
	Reason     string `json:"reason,omitempty" yaml:"reason,omitempty"`
	Amount     string `json:"amount,omitempty" yaml:"amount,omitempty"`
	Status     string `json:"status,omitempty" yaml:"status,omitempty"`
	OpenedAt   string `json:"opened_at,omitempty" yaml:"opened_at,omitempty"`
	ResolvedAt string `json:"resolved_at,omitempty" yaml:"resolved_at,omitempty"`
	RefundID   string `json:"refund_id,omitempty" yaml:"refund_id,omitempty"`
}

// maxFixtureFile bounds a fixture file: thousands of payments fit.
const maxFixtureFile = 8 << 20

// FixtureError is a fixture that cannot be applied: the file, the line and
// the field at fault (fixtures.yaml:14: payments[2].captures[0].amount: ...).
// Nothing was changed.
type FixtureError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *FixtureError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// fixtureDoc is a parsed fixture file: its content, and the line of every
// field, by path (payments[2].captures[0].amount).
type fixtureDoc struct {
	name  string
	fx    Fixture
	lines map[string]int
}

// fail is a FixtureError at path, with the line of the nearest field of
// the path the file has.
func (d *fixtureDoc) fail(path, format string, args ...any) *FixtureError {
	line := 0
	for p := path; p != ""; p = parentPath(p) {
		if l, ok := d.lines[p]; ok {
			line = l
			break
		}
	}
	return &FixtureError{File: d.name, Line: line, Field: path, Msg: fmt.Sprintf(format, args...)}
}

// parentPath drops the last step of a path: a.b[1].c -> a.b[1] -> a.b -> a.
func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		return p[:strings.LastIndexByte(p, '[')]
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// ParseFixture reads a fixture file (YAML or JSON; name is what errors
// call it). It checks the shape: unknown fields, lists and objects where
// values belong, and the reverse; the values are checked when it is
// applied.
func ParseFixture(name string, data []byte) (*fixtureDoc, error) {
	d := &fixtureDoc{name: name, lines: map[string]int{}}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) || strings.TrimSpace(string(data)) == "" {
			return nil, &FixtureError{File: name, Msg: "the file is empty: want an object with a \"payments\" list"}
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[1])
			return nil, &FixtureError{File: name, Line: line, Msg: m[2]}
		}
		return nil, &FixtureError{File: name, Msg: msg}
	}
	node := &root
	if node.Kind == yaml.DocumentNode && len(node.Content) == 1 {
		node = node.Content[0]
	}
	if node.Kind != yaml.MappingNode {
		return nil, &FixtureError{File: name, Line: node.Line, Msg: "want an object with a \"payments\" list (and optionally \"webhooks\")"}
	}
	if err := d.walk(node, "", reflect.TypeOf(Fixture{})); err != nil {
		return nil, err
	}
	if err := node.Decode(&d.fx); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			if m := yamlLine.FindStringSubmatch(te.Errors[0]); m != nil {
				line, _ := strconv.Atoi(m[1])
				return nil, &FixtureError{File: name, Line: line, Field: d.pathAt(line), Msg: m[2]}
			}
		}
		return nil, &FixtureError{File: name, Msg: err.Error()}
	}
	return d, nil
}

// pathAt is the path of the field on a line (the first one, in file
// order), for yaml's type errors, which give only the line.
func (d *fixtureDoc) pathAt(line int) string {
	best := ""
	for p, l := range d.lines {
		if l == line && (best == "" || len(p) > len(best)) {
			best = p
		}
	}
	return best
}

// walk records the line of every field under node and refuses the fields
// that t (a fixture type) does not have, and a list or an object where t
// wants something else.
func (d *fixtureDoc) walk(node *yaml.Node, path string, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if path != "" {
		d.lines[path] = node.Line
	}
	if node.Kind == yaml.AliasNode {
		return d.fail(path, "aliases are not supported in fixtures: write the value out")
	}
	if node.Kind == yaml.ScalarNode && node.Tag == "!!null" {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if node.Kind != yaml.MappingNode {
			return d.fail(path, "want an object")
		}
		fields := map[string]reflect.Type{}
		var names []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			fields[tag] = f.Type
			names = append(names, tag)
		}
		for i := 0; i+1 < len(node.Content); i += 2 {
			key, val := node.Content[i], node.Content[i+1]
			sub := key.Value
			if path != "" {
				sub = path + "." + key.Value
			}
			ft, ok := fields[key.Value]
			if !ok {
				d.lines[sub] = key.Line
				return d.fail(sub, "unknown field; the fields here are %s", strings.Join(names, ", "))
			}
			if err := d.walk(val, sub, ft); err != nil {
				return err
			}
			d.lines[sub] = key.Line
		}
	case reflect.Slice:
		if node.Kind != yaml.SequenceNode {
			return d.fail(path, "want a list")
		}
		for i, el := range node.Content {
			if err := d.walk(el, fmt.Sprintf("%s[%d]", path, i), t.Elem()); err != nil {
				return err
			}
		}
	default:
		if node.Kind != yaml.ScalarNode {
			return d.fail(path, "want a single value, not a list or an object")
		}
	}
	return nil
}
