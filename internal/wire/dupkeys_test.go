package wire

import (
	"reflect"
	"testing"
)

func TestDuplicateKeys(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{`{"a":1,"b":2}`, nil},
		{`{"a":1,"a":2}`, []string{"$.a"}},
		{`{"p":{"items":[{"q":"0","q":1},{"q":2}]}}`, []string{"$.p.items[0].q"}},
		{`[{"x":1},{"x":1,"y":{"z":1,"z":2}}]`, []string{"$[1].y.z"}},
		{`{"a":{"b":1},"a":{"b":1}}`, []string{"$.a"}},
		{`{"a":`, nil}, // does not parse: its own error says so
		{`{"a\u0062":1,"ab":2}`, []string{"$.ab"}},
		{"{\"\xff\":1,\"\xfe\":2}", []string{"$.\ufffd"}},
		{`{"a":"x\"","b":["a","a"],"c":{"a":1}}`, nil},
	} {
		if got := duplicateKeys([]byte(tt.in)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.in, got, tt.want)
		}
	}
}

// The one-pass scan never clears a document the walk finds a duplicate
// in: every document of a few parts is tried.
func TestNoDuplicateKeysAgreesWithTheWalk(t *testing.T) {
	parts := []string{`{`, `}`, `[`, `]`, `,`, `"a":1`, `"b":1`, `"\u0061":1`, `"a\"":1`, `"a":`, `"x"`}
	var walk func(doc string, depth int)
	walk = func(doc string, depth int) {
		if noDuplicateKeys([]byte(doc)) {
			if dups := walkDuplicateKeys([]byte(doc)); dups != nil {
				t.Errorf("%s: scan says no duplicate, the walk finds %v", doc, dups)
			}
		}
		if depth == 0 {
			return
		}
		for _, p := range parts {
			walk(doc+p, depth-1)
		}
	}
	walk("", 5)
}
