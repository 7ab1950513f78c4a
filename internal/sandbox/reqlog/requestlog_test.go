package reqlog

import "testing"

func TestMayHoldSecret(t *testing.T) {
	for body, want := range map[string]bool{
		`{"id":"x","email":"a@b.c"}`:               false,
		`{"note":"sk_test_abcdefgh"}`:              true,
		`{"note":"sk\u005ftest"}`:                  true,
		`{"url":"https://u:p@host/x"}`:             true,
		`{"url":"https://host/x","email":"a@b.c"}`: true, // both: let the Masker judge
		`{"url":"https://host/x"}`:                 false,
		`{"id":"lamp"}`:                            false,
	} {
		if got := MayHoldSecret([]byte(body)); got != want {
			t.Errorf("%s: %v, want %v", body, got, want)
		}
	}
}
