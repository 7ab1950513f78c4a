// Package jsontree decodes a JSON document into the tree encoding/json
// makes of it for an `any` with UseNumber: map[string]any, []any, string,
// json.Number, bool and nil. It makes the same tree, byte for byte, from
// every document encoding/json accepts, and refuses every document it
// refuses (FuzzDecodeIsEncodingJSON holds it to both), in one pass over
// the bytes and without reflection: the sandbox decodes every checkout
// body as a tree for its bounds and its rules, and encoding/json's
// scanner and reflection were a tenth of a checkout's time.
package jsontree

import (
	"encoding/json"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is encoding/json's bound on nesting: a document nested deeper
// is refused, as encoding/json refuses it.
const maxDepth = 10000

// ErrSyntax is the error of a document that is not JSON, or nested
// deeper than encoding/json allows.
var ErrSyntax = errors.New("jsontree: not a JSON value")

// Decode decodes the first JSON value of b, after any white space, and
// answers where it ended: what follows (b[end:]) is the caller's to judge,
// as json.Decoder leaves it.
func Decode(b []byte) (v any, end int, err error) {
	doc, err := DecodeDoc(b)
	return doc.Value, doc.End, err
}

// A Doc is the first JSON value of a document, decoded.
type Doc struct {
	Value any
	// End is where the value ended: what follows (b[end:]) is the
	// caller's to judge, as json.Decoder leaves it.
	End int
	// Repeats tells whether an object of the value names a member twice
	// (names compared as decoded; the tree keeps the last, as
	// encoding/json does).
	Repeats bool
	// LowerNames tells whether every member name of the value is
	// lower-case ASCII letters, digits and underscores, so that no name
	// matches another but itself regardless of case (as encoding/json
	// matches a struct's fields).
	LowerNames bool
}

// DecodeDoc is Decode, telling also what the value's names are like
// (Repeats, LowerNames).
func DecodeDoc(b []byte) (Doc, error) {
	d := decoder{b: b}
	d.space()
	v, ok := d.value(0)
	if !ok {
		return Doc{}, ErrSyntax
	}
	return Doc{Value: v, End: d.i, Repeats: d.repeats, LowerNames: !d.mixed}, nil
}

// DecodeOne decodes b when it holds exactly one JSON value and white
// space around it.
func DecodeOne(b []byte) (any, bool) {
	v, end, err := Decode(b)
	if err != nil || !OnlySpace(b[end:]) {
		return nil, false
	}
	return v, true
}

// OnlySpace tells whether b holds nothing but JSON's white space.
func OnlySpace(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// LowerName tells whether name is lower-case ASCII letters, digits and
// underscores only. Two such names match regardless of case only when
// they are equal (the letters that fold to ASCII ones, K and ſ, are not
// ASCII).
func LowerName(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

type decoder struct {
	b       []byte
	i       int
	repeats bool // an object named a member twice
	mixed   bool // a member name is not LowerName
}

func (d *decoder) space() {
	for d.i < len(d.b) && isSpace(d.b[d.i]) {
		d.i++
	}
}

// value decodes the value at d.i, which is not white space, at a nesting
// of depth.
func (d *decoder) value(depth int) (any, bool) {
	if d.i >= len(d.b) {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.str()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, false
}

func (d *decoder) literal(word string) bool {
	if len(d.b)-d.i < len(word) || string(d.b[d.i:d.i+len(word)]) != word {
		return false
	}
	d.i += len(word)
	return true
}

func (d *decoder) object(depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	d.i++ // {
	m := map[string]any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		name := k.(string)
		if !d.mixed && !LowerName(name) {
			d.mixed = true
		}
		n := len(m)
		m[name] = v // the last of two members of one name, as encoding/json keeps
		if len(m) == n {
			d.repeats = true
		}
		if more, ok := d.after('}'); !more {
			return m, ok
		}
	}
}

// after reads what follows a member or an element: a comma (more is
// true, and the next one starts at d.i) or the closing byte (more is
// false, ok true); anything else is not JSON.
func (d *decoder) after(closing byte) (more, ok bool) {
	d.space()
	if d.i >= len(d.b) {
		return false, false
	}
	switch d.b[d.i] {
	case ',':
		d.i++
		d.space()
		return true, true
	case closing:
		d.i++
		return false, true
	}
	return false, false
}

func (d *decoder) array(depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	d.i++ // [
	a := []any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if more, ok := d.after(']'); !more {
			return a, ok
		}
	}
}

// number reads a number as JSON writes it: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *decoder) number() (any, bool) {
	b, start := d.b, d.i
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return nil, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return nil, false
		}
		i = j
	}
	d.i = i
	return json.Number(b[start:i]), true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// str reads a string: a string of plain bytes is copied once; one with
// escapes or bytes that are not UTF-8 is unquoted as encoding/json
// unquotes it (a lone surrogate and each invalid byte become U+FFFD).
func (d *decoder) str() (any, bool) {
	b := d.b
	i := d.i + 1
	for i < len(b) {
		c := b[i]
		if c == '"' {
			s := string(b[d.i+1 : i])
			d.i = i + 1
			return s, true
		}
		if c == '\\' || c < 0x20 {
			break
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	return d.slowStr(i)
}

// slowStr reads the rest of a string from i, the first byte that is not
// plain.
func (d *decoder) slowStr(i int) (any, bool) {
	b := d.b
	out := make([]byte, 0, i-d.i+16)
	out = append(out, b[d.i+1:i]...)
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			d.i = i + 1
			return string(out), true
		case c < 0x20:
			return nil, false
		case c == '\\':
			if i+1 >= len(b) {
				return nil, false
			}
			switch e := b[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
				i += 2
			case 'b':
				out, i = append(out, '\b'), i+2
			case 'f':
				out, i = append(out, '\f'), i+2
			case 'n':
				out, i = append(out, '\n'), i+2
			case 'r':
				out, i = append(out, '\r'), i+2
			case 't':
				out, i = append(out, '\t'), i+2
			case 'u':
				r, ok := hex4(b, i+2)
				if !ok {
					return nil, false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A pair when a valid \u escape of the other half
					// follows; a lone half is U+FFFD, and what follows
					// is read on its own.
					if r2, ok := escapedRune(b, i); ok {
						if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
							out = utf8.AppendRune(out, pair)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			default:
				return nil, false
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			out = utf8.AppendRune(out, r) // an invalid byte is U+FFFD
			i += size
		}
	}
	return nil, false
}

// escapedRune reads a \uXXXX escape at i, if there is one.
func escapedRune(b []byte, i int) (rune, bool) {
	if i+1 >= len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, false
	}
	return hex4(b, i+2)
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}
