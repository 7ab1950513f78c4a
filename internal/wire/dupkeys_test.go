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
	} {
		if got := duplicateKeys([]byte(tt.in)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.in, got, tt.want)
		}
	}
}
