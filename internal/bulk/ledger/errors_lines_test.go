package ledger

import "testing"

// An error the driver joined from two attempts that failed alike is said
// once, on one line.
func TestDistinctLines(t *testing.T) {
	for in, want := range map[string]string{
		"a: refused\na: refused":   "a: refused",
		"a: refused\nb: timeout\n": "a: refused; b: timeout",
		"one line":                 "one line",
		"a\n\n a \nb\na":           "a; b",
	} {
		if got := distinctLines(in); got != want {
			t.Errorf("distinctLines(%q) = %q, want %q", in, got, want)
		}
	}
}
