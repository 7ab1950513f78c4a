package secret

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestMaskerKnownSecrets(t *testing.T) {
	m := NewMasker("sk_test_0123456789abcdef", "hook-value-42", "", "abc")
	cases := map[string]string{
		"Bearer sk_test_0123456789abcdef":  "Bearer sk_test_****cdef",
		"value hook-value-42 echoed":       "value ****e-42 echoed",
		"abc stays, too short to look for": "abc stays, too short to look for",
		"nothing here":                     "nothing here",
	}
	for in, want := range cases {
		if got := m.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMaskerEscapedForms(t *testing.T) {
	secretValue := `a<b>"c"é-long-value`
	m := NewMasker(secretValue)
	html, _ := json.Marshal(secretValue) // escapes <, > and "
	for _, form := range []string{
		secretValue,
		strings.Trim(string(html), `"`),
		`a\u003cb\u003e\"c\"\u00e9-long-value`, // ensure_ascii style
	} {
		if got := m.String("echo: " + form + " end"); strings.Contains(got, "long-value") {
			t.Errorf("form %q not masked: %q", form, got)
		}
	}
}

func TestMaskerNil(t *testing.T) {
	var m *Masker
	if got := m.String("key sk_live_abcdefghijkl in text"); got != "key sk_****ijkl in text" {
		t.Errorf("nil masker: %q", got)
	}
	if got := m.With("hook-value-42").String("hook-value-42"); got != "****e-42" {
		t.Errorf("With on nil: %q", got)
	}
}

func TestMaskerJSON(t *testing.T) {
	m := NewMasker("hook-value-42")
	in := []byte(`{"error":"got sk_test_abcdefgh12345678","hook-value-42":["x","\u0068ook-value-42"],"n":1.50}`)
	out := m.Bytes(in)
	s := string(out)
	if strings.Contains(s, "hook-value-42") || strings.Contains(s, "abcdefgh1234") {
		t.Errorf("not masked: %s", s)
	}
	if !json.Valid(out) || !strings.Contains(s, `"n":1.50`) {
		t.Errorf("JSON broken or number changed: %s", s)
	}
	clean := []byte(`{ "a": 1 }`)
	if got := m.Bytes(clean); string(got) != string(clean) {
		t.Errorf("untouched body reformatted: %s", got)
	}
	if got := m.Bytes([]byte("plain hook-value-42")); string(got) != "plain ****e-42" {
		t.Errorf("text body: %s", got)
	}
}

func TestRedactKeys(t *testing.T) {
	cases := map[string]string{
		`"sk_test_abcdef123456" is not a UUID`: `"sk_test_****3456" is not a UUID`,
		"sk_live1234567890":                    "sk_****7890",
		"task_list and risk_level":             "task_list and risk_level",
		"use a live key (sk_…)":                "use a live key (sk_…)",
		"prefix sk_test_ only":                 "prefix sk_test_ only",
		"masked sk_test_****abcd stays":        "masked sk_test_****abcd stays",
		"--amount=sk_test_zzzzzzzzzz9":         "--amount=sk_test_****zzz9",
	}
	for in, want := range cases {
		if got := RedactKeys(in); got != want {
			t.Errorf("RedactKeys(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactURLQuery(t *testing.T) {
	cases := map[string]string{
		"https://user:pw@api.example.com/x":     "https://****@api.example.com/x",
		"https://api.example.com/?token=abc&x=": "https://api.example.com/?token=****&x=",
		"https://u:p%zz@host/ unparsable":       "https://****@host/ unparsable",
		"https://api.example.com/path?k=v#frag": "https://api.example.com/path?k=****#frag",
		"http://127.0.0.1:8700":                 "http://127.0.0.1:8700",
		"not a url":                             "not a url",
	}
	for in, want := range cases {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
	text := `parse "https://me:hunter2@hooks.example.com/a b": invalid; see http://127.0.0.1/x?limit=5`
	want := `parse "https://****@hooks.example.com/a b": invalid; see http://127.0.0.1/x?limit=5`
	if got := RedactURLs(text); got != want {
		t.Errorf("RedactURLs = %q, want %q", got, want)
	}
}

func TestPrintable(t *testing.T) {
	cases := map[string]string{
		"plain\nlines\tand tabs":   "plain\nlines\tand tabs",
		"\x1b]0;title\x07\x1b[2J":  `\x1b]0;title\x07\x1b[2J`,
		"over\rwrite\b":            `over\rwrite\b`,
		"c1 \u009b31m":             `c1 \x9b31m`,
		"bidi \u202egnp.exe":       `bidi \u202egnp.exe`,
		"bad \xff utf8":            "bad \uFFFD utf8",
		"Arabic مرحبا and emoji 🙂": "Arabic مرحبا and emoji 🙂",
	}
	for in, want := range cases {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
	if got := PrintableLine("a\nb\tc\x1b"); got != `a\nb\tc\x1b` {
		t.Errorf("PrintableLine: %q", got)
	}
}

func FuzzMaskerNeverLeaks(f *testing.F) {
	f.Add("hook-value-42", "prefix hook-value-42 suffix")
	f.Add(`a"b<c>d`, `{"e":"a\"b\u003cc\u003ed"}`)
	f.Fuzz(func(t *testing.T, secretValue, text string) {
		if len([]rune(secretValue)) < 9 || strings.ContainsAny(secretValue, "*") {
			return
		}
		out := NewMasker(secretValue).Text(text + secretValue + text)
		if strings.Contains(out, secretValue) {
			t.Fatalf("secret %q left in %q", secretValue, out)
		}
	})
}

func TestMaskerAppears(t *testing.T) {
	m := NewMasker("sk_test_0123456789abcdef", `hook"<value>`)
	for _, tc := range []struct {
		body string
		want bool
	}{
		{`{"id":"x","status":"AUTHORIZED"}`, false},
		{`{"echo":"Bearer sk_test_0123456789abcdef"}`, true},
		{`{"echo":"hook\"\u003cvalue\u003e"}`, true}, // as json.Marshal writes it
		{`{"echo":"hook\"<value>"}`, true},
		{`plain text hook"<value> in it`, true},
		{`{"key":"sk_test_0123"}`, false}, // a key's shape alone is String's business
	} {
		if got := m.Appears([]byte(tc.body)); got != tc.want {
			t.Errorf("Appears(%s) = %v, want %v", tc.body, got, tc.want)
		}
	}
	var none *Masker
	if none.Appears([]byte("sk_test_0123456789abcdef")) {
		t.Error("a nil masker knows no secret")
	}
}

// A key spelt with JSON escapes, known or only shaped like one, is found
// and masked; a body with nothing of the kind is left as it came.
func TestMaskerFindsEscapedKeys(t *testing.T) {
	key := "sk_test_0123456789abcdef"
	var esc strings.Builder
	for _, r := range key {
		fmt.Fprintf(&esc, `\u%04x`, r)
	}
	body := []byte(`{"note":"` + esc.String() + `","name":"\u0644\u064a\u0644\u0649"}`)
	for _, m := range []*Masker{nil, NewMasker(key)} {
		if !m.MayHold(body) {
			t.Fatalf("MayHold missed the escaped key")
		}
		out := string(m.Bytes(body))
		if strings.Contains(out, "0123456789abcdef") || strings.Contains(out, esc.String()) {
			t.Errorf("escaped key printed in clear: %s", out)
		}
		if !strings.Contains(out, "sk_test_****cdef") || !strings.Contains(out, "ليلى") {
			t.Errorf("masked body: %s", out)
		}
	}
	plain := []byte(`{"id":"x","amount":"10.00"}`)
	if NewMasker(key).MayHold(plain) {
		t.Error("MayHold on a body with no secret")
	}
	if got := NewMasker(key).Bytes(plain); string(got) != string(plain) {
		t.Errorf("a clean body changed: %s", got)
	}
}
