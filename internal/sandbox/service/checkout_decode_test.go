package service

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/jsontree"
)

// decodeCheckout decodes what encoding/json decodes, to the same request,
// and refuses what it refuses: for every body that is JSON (what reaches
// it in the handler), checked against json.Unmarshal.
func FuzzDecodeCheckoutIsEncodingJSON(f *testing.F) {
	for _, name := range []string{"checkout.json", "checkout-kwd.json", "checkout-sar.json", "checkout-invalid.json", "attachment.json"} {
		b, err := os.ReadFile("../../../testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`{"payment": {"amount": "1.00", "AMOUNT": "2.00"}}`, `{"Payment": {"Order": {"Items": [{"Quantity": 2}]}}}`,
		`{"payment": {"created_at": "2026-01-31T12:00:00Z"}}`, `{"payment": {"created_at": "2026-01-31T12:00:00+25:00"}}`,
		`{"payment": {"created_at": "10000-01-01T00:00:00Z"}}`, `{"payment": {"amount": 1}}`, `{"payment": {"amount": "1e3"}}`,
		`{"payment": {"amount": null, "buyer": null}}`, `{"token": 5}`, `{"token": null}`, `{"payment": []}`, `[]`, `null`,
		`{"payment": {"order": {"items": [{"quantity": 1.5}]}}}`, `{"payment": {"meta": {"a": [1, {"b": null}]}}}`,
		`{"merchant_code": "\u00e9\ud83d\ude00"}`, `{"payment": {"buyer": {"name": "x", "name": "y"}}}`,
		`{"payment": {"is_test": "true"}}`, `{"payment": {"order": {"items": [{"is_refundable": 1}]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, err := jsontree.DecodeDoc(body); err != nil {
			return // refused before: the handler decodes only JSON
		}
		var want, got checkoutBody
		wantErr := json.Unmarshal(body, &want)
		gotErr := decodeCheckout(body, &got)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: error %v, encoding/json's %v", body, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: decoded\n%+v\nencoding/json\n%+v", body, got, want)
		}
	})
}

// The README's example decoded into the request, as the handler decodes it
// and as encoding/json does.
func BenchmarkDecodeCheckout(b *testing.B) {
	body, err := os.ReadFile("../../../testdata/checkout.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		decode func([]byte, *checkoutBody) error
	}{
		{"decodeCheckout", decodeCheckout},
		{"encoding-json", func(b []byte, v *checkoutBody) error { return json.Unmarshal(b, v) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var v checkoutBody
				if err := c.decode(body, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
