package service

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/wire"
)

// checkoutBody has wire.CheckoutRequest's fields, in its order, with its
// tags and types (the payment's without its methods), so that a field
// added to the request is decoded by the sandbox too.
func TestCheckoutBodyIsTheRequest(t *testing.T) {
	want, got := reflect.TypeFor[wire.CheckoutRequest](), reflect.TypeFor[checkoutBody]()
	if want.NumField() != got.NumField() {
		t.Fatalf("checkoutBody has %d fields, wire.CheckoutRequest %d", got.NumField(), want.NumField())
	}
	for i := range want.NumField() {
		w, g := want.Field(i), got.Field(i)
		sameType := w.Type == g.Type || w.Type == reflect.TypeFor[wire.Payment]() && g.Type == reflect.TypeFor[plainPayment]()
		if w.Name != g.Name || w.Tag != g.Tag || !sameType {
			t.Errorf("field %d: %s %s %q, want %s %s %q", i, g.Name, g.Type, g.Tag, w.Name, w.Type, w.Tag)
		}
	}
}

// A checkout decodes to the same request either way, Raw aside.
func TestCheckoutBodyDecodesAsTheRequest(t *testing.T) {
	body, err := os.ReadFile("../../../testdata/checkout.json")
	if err != nil {
		t.Fatal(err)
	}
	var want wire.CheckoutRequest
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatal(err)
	}
	var b checkoutBody
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	got := b.request()
	if len(want.Payment.Raw()) == 0 {
		t.Fatal("wire.Payment kept no Raw: the comparison below proves nothing of it")
	}
	want.Payment.KeepRaw(nil) // the sandbox never reads it
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded as\n%+v\nwant\n%+v", got, want)
	}
}
