package reqlog

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/secret"
)

func TestMayHoldSecret(t *testing.T) {
	for body, want := range map[string]bool{
		`{"id":"x","email":"a@b.c"}`:               false,
		`{"note":"sk_test_abcdefgh"}`:              true,
		`{"note":"sk\u005ftest"}`:                  true,
		`{"url":"https://u:p@host/x"}`:             true,
		`{"url":"https://host/x","email":"a@b.c"}`: false,
		`{"email":"a@b.c","url":"https://host"}`:   false,
		`see https://u@host`:                       true,
		`{"url":"ftp://host?x=a@b"}`:               false,
		`{"url":"https://host/x"}`:                 false,
		`{"id":"lamp"}`:                            false,
	} {
		if got := MayHoldSecret([]byte(body)); got != want {
			t.Errorf("%s: %v, want %v", body, got, want)
		}
	}
}

// A body MayHoldSecret passes over is one the Masker leaves as it is.
func TestMayHoldSecretMissesNothingTheMaskerChanges(t *testing.T) {
	m := secret.NewMasker("sk_test_ae_sandbox")
	parts := []string{`https://`, `u:p`, `@`, `host`, `/x`, `?q=`, `#f`, ` `, `"`, `,`, `{`, `}`, `a@b.c`, `://`, `sk_`, `test`, `:`, `\\u0040`, `x`}
	var walk func(prefix string, depth int)
	walk = func(prefix string, depth int) {
		for _, body := range []string{prefix, `{"v":"` + prefix + `"}`} {
			b := []byte(body)
			if !MayHoldSecret(b) && string(m.Bytes(b)) != body {
				t.Errorf("%q: passed over, but the Masker makes it %q", body, m.Bytes(b))
			}
		}
		if depth == 0 {
			return
		}
		for _, p := range parts {
			walk(prefix+p, depth-1)
		}
	}
	walk("", 4)
}

// mayHoldSecretByByte is MayHoldSecret's rule read one byte at a time,
// as it was first written: the reference the searches must agree with.
func mayHoldSecretByByte(b []byte) bool {
	authority := false // after a "://", before the host's end
	for i, c := range b {
		switch c {
		case '\\':
			return true
		case '_':
			if i >= 2 && b[i-2] == 's' && b[i-1] == 'k' {
				return true
			}
		case '@':
			if authority {
				return true
			}
		case '/':
			authority = i >= 2 && b[i-2] == ':' && b[i-1] == '/'
		case '?', '#', ' ', '\t', '\n', '\r', '"', '\'', '`', '<', '>', '(', ')', '[', ']', '{', '}':
			authority = false
		}
	}
	return false
}

// MayHoldSecret agrees with the byte-by-byte rule on every string of up
// to five of the pieces that matter to it, and on long random mixes.
func TestMayHoldSecretIsTheByteRule(t *testing.T) {
	parts := []string{`://`, `:`, `/`, `@`, `sk`, `_`, `\`, `?`, `#`, ` `, `"`, `}`, `a`, "\n", `s`, `k_`}
	check := func(s string) {
		if got, want := MayHoldSecret([]byte(s)), mayHoldSecretByByte([]byte(s)); got != want {
			t.Errorf("%q: %v, the byte rule says %v", s, got, want)
		}
	}
	var walk func(prefix string, depth int)
	walk = func(prefix string, depth int) {
		check(prefix)
		if depth == 0 {
			return
		}
		for _, p := range parts {
			walk(prefix+p, depth-1)
		}
	}
	walk("", 5)
	r := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		var b strings.Builder
		for range r.IntN(400) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		check(b.String())
	}
}
