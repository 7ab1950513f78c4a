package reqlog

import (
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
