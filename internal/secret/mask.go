package secret

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MinKnownLength is the shortest known secret a Masker looks for: a value
// of one to three characters would be found inside ordinary words, and
// masking those would garble every message without protecting much.
const MinKnownLength = 4

// Masker hides secrets in text that came from somewhere bnpl does not
// control, above all the service's answers: a proxy or a server that echoes
// the Authorization header or the request body must not make bnpl print a
// key. It knows some secrets by value (the key in use, the signing header
// values of the command) and recognises others by their shape (anything
// that looks like a secret key, the credentials of a URL).
//
// A nil *Masker masks by shape only. Maskers are immutable and safe for
// concurrent use.
type Masker struct {
	// known holds each secret with its masked form, longest first so that
	// a secret containing another is replaced whole.
	known []knownSecret
}

type knownSecret struct {
	value, masked string
	bytes         []byte // value, for Appears
}

// NewMasker returns a masker that knows secrets; empty and too short values
// are ignored.
func NewMasker(secrets ...string) *Masker {
	return (*Masker)(nil).With(secrets...)
}

// With returns a masker that knows m's secrets and more.
func (m *Masker) With(secrets ...string) *Masker {
	out := &Masker{}
	seen := map[string]bool{}
	add := func(value, masked string) {
		if value == "" || seen[value] {
			return
		}
		seen[value] = true
		out.known = append(out.known, knownSecret{value, masked, []byte(value)})
	}
	if m != nil {
		for _, k := range m.known {
			out.known = append(out.known, k)
			seen[k.value] = true
		}
	}
	for _, s := range secrets {
		if utf8.RuneCountInString(s) < MinKnownLength {
			continue
		}
		masked := MaskValue(s)
		if strings.HasPrefix(s, "sk_") {
			masked = MaskKey(s)
		}
		add(s, masked)
		// The same secret as it appears inside a JSON string written by
		// an encoder that escapes HTML or all non-ASCII characters: an
		// echoed request body is often a JSON document in a JSON string.
		for _, esc := range jsonForms(s) {
			add(esc, masked)
		}
	}
	sort.SliceStable(out.known, func(i, j int) bool { return len(out.known[i].value) > len(out.known[j].value) })
	return out
}

// jsonForms are the ways s may be written inside a JSON string, other than
// as itself: escaped by an encoder that escapes HTML characters or not,
// and that writes non-ASCII characters as \u escapes (in either case) or not.
func jsonForms(s string) []string {
	var forms []string
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) == nil {
		forms = append(forms, unquote(plain.Bytes()))
	}
	if b, err := json.Marshal(s); err == nil {
		forms = append(forms, unquote(b))
	}
	for _, f := range forms[:len(forms):len(forms)] {
		a := asciiEscaped(f)
		forms = append(forms, a, upperEscapes(a))
	}
	var out []string
	for _, f := range forms {
		if f != s {
			out = append(out, f)
		}
	}
	return out
}

// asciiEscaped writes every non-ASCII character of s as a JSON \u escape.
func asciiEscaped(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16Pair(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// upperEscapes writes the hex digits of \u escapes in upper case.
func upperEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == '\\' {
			b.WriteString(s[i : i+2])
			i++
			continue
		}
		if s[i] == '\\' && i+6 <= len(s) && s[i+1] == 'u' {
			b.WriteString(`\u` + strings.ToUpper(s[i+2:i+6]))
			i += 5
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unquote(b []byte) string {
	b = bytes.TrimSpace(b)
	return string(b[1 : len(b)-1])
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF
}

// Appears reports whether b holds one of the known secrets, as itself or
// in one of the forms a JSON encoder writes it. It is the cheap test that
// lets a caller skip masking an answer that echoes nothing: a few
// bytes.Contains, no decoding and no allocation. Secrets recognised only by
// their shape are not looked for.
func (m *Masker) Appears(b []byte) bool {
	if m == nil {
		return false
	}
	for _, k := range m.known {
		if bytes.Contains(b, k.bytes) {
			return true
		}
	}
	return false
}

// MayHold reports whether b may hold a secret, known or shaped like a key,
// in any spelling JSON allows: a known secret's bytes, "sk_", or a \u
// escape (which can spell either). Only then is a body worth Bytes, which
// decodes the JSON and so sees every escaped form.
func (m *Masker) MayHold(b []byte) bool {
	return m.Appears(b) || bytes.Contains(b, []byte("sk_")) || bytes.Contains(b, []byte(`\u`))
}

// String masks every known secret in s, then anything shaped like a
// secret key, then the credentials of URLs.
func (m *Masker) String(s string) string {
	if m != nil {
		for _, k := range m.known {
			// The masked form keeps the last characters, which with what
			// follows may spell the secret again: then nothing of it is
			// kept.
			masked := k.masked
			for n := 0; strings.Contains(s, k.value) && n < 8; n++ {
				s = strings.ReplaceAll(s, k.value, masked)
				masked = "****"
			}
		}
	}
	return RedactURLs(RedactKeys(s))
}

// Text is String followed by Printable: what may be shown on a terminal
// of a text that came from outside.
func (m *Masker) Text(s string) string {
	// Masked again after the escaping: the digits of an escape ("\x00")
	// next to a secret's neighbours could spell it anew.
	return m.String(Printable(m.String(s)))
}

// Bytes masks a body: a JSON document value by value (so that escaped
// forms are found too), anything else as text. It returns b itself when
// nothing had to change.
func (m *Masker) Bytes(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	if json.Valid(b) {
		if out, changed := m.JSON(b); changed {
			return out
		}
		return b
	}
	if !utf8.Valid(b) {
		// Binary: only the known values, byte for byte.
		out := b
		if m != nil {
			for _, k := range m.known {
				out = bytes.ReplaceAll(out, []byte(k.value), []byte(k.masked))
			}
		}
		return out
	}
	if s := m.String(string(b)); s != string(b) {
		return []byte(s)
	}
	return b
}

// JSON masks every string (member names included) of a JSON document and
// returns it compact, with whether anything was masked. A document that
// does not parse is returned as is.
func (m *Masker) JSON(b []byte) ([]byte, bool) {
	return EditJSON(b, m.value)
}

// EditJSON decodes one JSON document (numbers kept exactly), lets edit
// change it, and, when edit reports a change, encodes it again compact and
// without HTML escapes. A document that does not parse, or that edit left
// alone, is returned as is with false.
func EditJSON(b []byte, edit func(doc any) (any, bool)) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return b, false
	}
	doc, changed := edit(doc)
	if !changed {
		return b, false
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if enc.Encode(doc) != nil {
		return b, false
	}
	return bytes.TrimRight(out.Bytes(), "\n"), true
}

func (m *Masker) value(v any) (any, bool) {
	switch t := v.(type) {
	case string:
		s := m.String(t)
		return s, s != t
	case map[string]any:
		changed := false
		for k, child := range t {
			nv, c := m.value(child)
			nk := m.String(k)
			if nk != k {
				delete(t, k)
				c = true
			}
			if c {
				t[nk] = nv
				changed = true
			}
		}
		return t, changed
	case []any:
		changed := false
		for i, child := range t {
			nv, c := m.value(child)
			if c {
				t[i] = nv
				changed = true
			}
		}
		return t, changed
	}
	return v, false
}

// RedactKeys masks every word of s that starts like a secret key ("sk_"
// followed by key material), wherever it stands: errors quote what a
// person typed or a server answered, and a key can end up in either by
// mistake. Words that merely contain "sk_" (task_list) and the bare
// prefixes of advice ("sk_test_…", "sk_...") are left alone.
func RedactKeys(s string) string {
	if !strings.Contains(s, "sk_") {
		return s
	}
	var out strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "sk_") && (i == 0 || !(isAlnum(rune(s[i-1])) || s[i-1] == '_')) {
			end := i
			for end < len(s) && isKeyByte(s[end]) {
				end++
			}
			word := s[i:end]
			body := strings.TrimPrefix(strings.TrimPrefix(word, "sk_"), "test_")
			if strings.ContainsFunc(body, isAlnum) {
				out.WriteString(MaskKey(word))
				i = end
				continue
			}
		}
		out.WriteByte(s[i])
		i++
	}
	return out.String()
}

func isAlnum(r rune) bool {
	return ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
}

// isKeyByte is the character set of key material: anything a message would
// put around a key (quotes, spaces, colons) ends it.
func isKeyByte(b byte) bool {
	return b == '_' || b == '-' || b == '.' || b == '+' || b == '/' || b == '=' ||
		('0' <= b && b <= '9') || ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z')
}

// RedactURLs drops the user and password of every URL found in s. Query
// values are kept: running text (a debug log, an error) names request URLs
// whose queries are needed and hold nothing secret.
func RedactURLs(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	var out strings.Builder
	rest := s
	for {
		i := strings.Index(rest, "://")
		if i < 0 {
			out.WriteString(rest)
			return out.String()
		}
		// Back up over the scheme.
		start := i
		for start > 0 && isSchemeByte(rest[start-1]) {
			start--
		}
		end := i + 3
		for end < len(rest) && !isURLEnd(rest[end]) {
			end++
		}
		out.WriteString(rest[:start])
		out.WriteString(RedactUserinfo(rest[start:end]))
		rest = rest[end:]
	}
}

func isSchemeByte(b byte) bool {
	return isAlnum(rune(b)) || b == '+' || b == '-' || b == '.'
}

// isURLEnd ends a URL found in running text: white space, quotes and
// brackets that messages put around it.
func isURLEnd(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '<', '>', '(', ')', '[', ']', '{', '}', '\\':
		return true
	}
	return false
}

// Printable neutralises what a terminal would obey rather than show:
// control characters (escape sequences, carriage returns, backspaces), the
// C1 controls, and the marks that reverse the direction of text. Each
// becomes its Go escape (\x1b, \r, \u202e), so that a person sees that
// something was there. Newlines and tabs are kept; invalid UTF-8 becomes
// U+FFFD.
func Printable(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				b.WriteRune(unicode.ReplacementChar)
				continue
			}
		}
		if !unsafeRune(r) {
			b.WriteRune(r)
			continue
		}
		switch r {
		case '\r':
			b.WriteString(`\r`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\v':
			b.WriteString(`\v`)
		default:
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		}
	}
	return b.String()
}

// PrintableLine is Printable for a text that must stay on one line (a
// table cell, a log line): newlines and tabs are escaped too.
func PrintableLine(s string) string {
	s = Printable(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(s)
}

func needsEscape(s string) bool {
	for i, r := range s {
		if unsafeRune(r) {
			return true
		}
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return true
			}
		}
	}
	return false
}

func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}
