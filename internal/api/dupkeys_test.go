package api

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

func TestCheckoutWithADuplicateKeyIsRefused(t *testing.T) {
	body := []byte(`{"payment":{"amount":"1","amount":"2","currency":"AED"}}`)
	v := ValidateCheckout(body, nil)
	if v == nil {
		t.Fatal("accepted")
	}
	for _, p := range v.Problems {
		if p.Path == "$.payment.amount" && p.Message == "appears twice in its object: keep one" {
			return
		}
	}
	t.Fatalf("no duplicate-key problem: %+v", v.Problems)
}
