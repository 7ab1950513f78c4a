package service

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// createdFor makes the record and the answer a checkout of body creates,
// with the view the state stores (json.Marshal's encoding of the payment,
// which the state's encoding is held to); ok false when body is not a
// checkout the sandbox would store.
func createdFor(body []byte) (rec *store.Record, view []byte, want []byte, ok bool) {
	var b checkoutBody
	if decodeCheckout(body, &b) != nil {
		return nil, nil, nil, false
	}
	req := b.request()
	s := &Service{State: &store.State{}}
	now := time.Date(2026, 11, 29, 15, 4, 5, 123456789, time.UTC)
	ctx := store.WithPinnedStep(context.Background(), now,
		"0192f0a1-0000-4000-8000-000000000001", "0192f0a1-0000-4000-8000-000000000002")
	c := caller{merchant: &store.Merchant{Code: "ae-sandbox", Region: "ae", Currency: "AED"}, isTest: true}
	rec = s.newRecord(ctx, &req, c, now)
	view, err := json.Marshal(&rec.Payment)
	if err != nil {
		return nil, nil, nil, false // refused when stored, too
	}
	want, err = json.Marshal(s.sessionView(rec, now, "http://127.0.0.1:8080", false))
	if err != nil {
		return nil, nil, nil, false
	}
	return rec, view, want, true
}

// A checkout's answer made with the stored view is, byte for byte, its
// session encoded whole, whatever the payment holds: a member named
// expires_at in its meta, the words in a description, any token.
func FuzzCreatedAnswerIsTheSessionEncoded(f *testing.F) {
	for _, name := range []string{"checkout.json", "checkout-kwd.json", "checkout-sar.json", "attachment.json"} {
		b, err := os.ReadFile("../../../testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`{"payment": {"amount": "10", "currency": "AED", "meta": {"expires_at": "2026-12-06T15:04:05.123Z"}}}`,
		`{"payment": {"amount": "10", "currency": "AED", "description": ",\"expires_at\":\"2026-12-06T15:04:05.123Z\","}}`,
		`{"payment": {"amount": "10", "currency": "AED"}, "token": "\"payment\":{\"id\":\"\"}"}`,
		`{"payment": {"amount": "10", "currency": "AED", "buyer": {"dob": "2000-01-01"}}, "lang": "ar"}`,
		`{"payment": {"amount": "60000", "currency": "AED"}}`,
		`{"payment": {"amount": "10", "currency": "AED", "buyer": {"phone": "+971500000002"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rec, view, want, ok := createdFor(body)
		if !ok {
			return
		}
		sess := (&Service{}).sessionView(rec, *rec.Payment.CreatedAt, "http://127.0.0.1:8080", false)
		rec.View = view
		got, err := createdAnswer(sess, rec)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("answer\n%s\n%v\nwant\n%s", got, err, want)
		}
	})
}

// The answers of the project's checkouts are made with the view, not
// encoded whole again.
func TestCreatedAnswersAreSpliced(t *testing.T) {
	for _, name := range []string{"checkout.json", "checkout-kwd.json", "checkout-sar.json", "attachment.json"} {
		body, err := os.ReadFile("../../../testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		rec, view, want, ok := createdFor(body)
		if !ok {
			t.Fatalf("%s: not a checkout", name)
		}
		rec.View = view
		sess := (&Service{}).sessionView(rec, *rec.Payment.CreatedAt, "http://127.0.0.1:8080", false)
		got, spliced := spliceCreated(sess, rec)
		if !spliced || !bytes.Equal(got, want) {
			t.Errorf("%s: spliced %v\n%s\nwant\n%s", name, spliced, got, want)
		}
	}
}

// emptyPayment, written out, is what json.Marshal makes of a zero
// payment (a field added to wire.Payment changes it).
func TestEmptyPaymentIsAZeroPaymentEncoded(t *testing.T) {
	b, err := json.Marshal(wire.Payment{})
	if err != nil {
		t.Fatal(err)
	}
	if want := append([]byte(`"payment":`), b...); !bytes.Equal(emptyPayment, want) {
		t.Errorf("emptyPayment is\n%s\nwant\n%s", emptyPayment, want)
	}
}
