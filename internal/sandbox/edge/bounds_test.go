package edge

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// ReadBodyTree refuses exactly what ReadBody refuses, in the same words,
// and answers the tree a decode of the body would.
func TestReadBodyTreeAgreesWithReadBody(t *testing.T) {
	long := strings.Repeat("x", MaxStringLen+1)
	many := "[" + strings.Repeat("1,", MaxArrayLen) + "1]"
	pad := `, "pad": "` + strings.Repeat("p", 600) + `"`
	for _, c := range []struct {
		name, body string
		decoded    bool
	}{
		{"short object", `{"a": 1}`, true},
		{"long object", `{"a": 1.50` + pad + `}`, true},
		{"empty", ``, false},
		{"not JSON", `nope`, false},
		{"two values", `{"a": 1} {"b": 2}`, false},
		{"long, then junk", `{"a": 1` + pad + `} x`, false},
		{"string over the bound", `{"a": "` + long + `"}`, false},
		{"reference over the bound", `{"reference_id": "` + strings.Repeat("r", MaxReferenceIDLen+1) + `"` + pad + `}`, false},
		{"array over the bound", `{"items": ` + many + pad + `}`, false},
		{"bound broken, then junk", `{"a": "` + long + `"} x`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, wantErr := ReadBody(httptest.NewRequest("POST", "/", strings.NewReader(c.body)))
			bt, err := ReadBodyTree(httptest.NewRequest("POST", "/", strings.NewReader(c.body)))
			got, tree, decoded := bt.Bytes, bt.Value, bt.Decoded
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("error %v, want %v", err, wantErr)
			}
			if err != nil {
				return
			}
			if string(got) != string(want) {
				t.Errorf("body %q, want %q", got, want)
			}
			if decoded != c.decoded {
				t.Errorf("decoded = %v, want %v", decoded, c.decoded)
			}
			if !decoded {
				return
			}
			dec := json.NewDecoder(strings.NewReader(c.body))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil || !reflect.DeepEqual(tree, v) {
				t.Errorf("tree %v, want %v (%v)", tree, v, err)
			}
		})
	}
}

// A refusal names where the bound broke, however deep: members by name,
// elements by index; a checkout attachment's body alone may be longer.
func TestABoundNamesWhereItBroke(t *testing.T) {
	long := strings.Repeat("é", MaxStringLen+1)
	ref := strings.Repeat("r", MaxReferenceIDLen+1)
	for _, c := range []struct{ body, path string }{
		{`{"payment": {"order": {"items": [{"reference_id": "a"}, {"name": "b", "reference_id": "` + ref + `"}]}}}`, "$.payment.order.items[1].reference_id"},
		{`[[1], [2, ["` + long + `"]]]`, "$[1][1][0]"},
		{`{"": {"x": "` + long + `"}}`, "$..x"},
		{`{"attachment": {"body": "` + long + `"}}`, ""},
		{`{"attachment": {"note": "` + long + `"}}`, "$.attachment.note"},
	} {
		_, err := ReadBodyTree(httptest.NewRequest("POST", "/", strings.NewReader(c.body)))
		var got string
		if r, ok := err.(*Refusal); ok && len(r.fields) == 1 {
			got = r.fields[0].Field
		} else if err != nil {
			t.Fatalf("%.40s: %v", c.body, err)
		}
		if got != c.path {
			t.Errorf("%.40s: refused at %q, want %q", c.body, got, c.path)
		}
	}
}
