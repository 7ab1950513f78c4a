package api

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func decPtr(s string) *decimal.Decimal {
	d := decimal.RequireFromString(s)
	return &d
}

func TestCheckCaptureReference(t *testing.T) {
	p := &Payment{ID: testPaymentID, Currency: "AED", Status: StatusAuthorized, Captures: []Capture{
		{ID: "c1", Amount: amount("7"), ReferenceID: "R1", TaxAmount: decPtr("1")},
	}}
	cases := []struct {
		name string
		req  CaptureRequest
		made bool
		err  bool
	}{
		{"no reference", CaptureRequest{Amount: amount("8")}, false, false},
		{"new reference", CaptureRequest{Amount: amount("8"), ReferenceID: "R2"}, false, false},
		{"same again", CaptureRequest{Amount: amount("7.00"), ReferenceID: "R1", TaxAmount: decPtr("1.00")}, true, false},
		{"other amount", CaptureRequest{Amount: amount("8"), ReferenceID: "R1", TaxAmount: decPtr("1")}, false, true},
		{"other tax", CaptureRequest{Amount: amount("7"), ReferenceID: "R1", TaxAmount: decPtr("2")}, false, true},
		{"tax left out", CaptureRequest{Amount: amount("7"), ReferenceID: "R1"}, false, true},
		{"shipping added", CaptureRequest{Amount: amount("7"), ReferenceID: "R1", TaxAmount: decPtr("1"), ShippingAmount: decPtr("2")}, false, true},
		{"zero discount is no discount", CaptureRequest{Amount: amount("7"), ReferenceID: "R1", TaxAmount: decPtr("1"), DiscountAmount: decPtr("0")}, true, false},
	}
	for _, c := range cases {
		made, err := CheckCaptureReference(p, c.req)
		if made != c.made || (err != nil) != c.err {
			t.Errorf("%s: made=%v err=%v", c.name, made, err)
			continue
		}
		if err == nil {
			continue
		}
		var re *ReferenceReusedError
		if !errors.As(err, &re) || exitCodeOf(err) != 2 {
			t.Errorf("%s: err %T exit %d", c.name, err, exitCodeOf(err))
		}
		for _, want := range []string{"reference_id R1", "capture of 7.00 AED with tax 1.00 AED", "nothing was moved"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q lacks %q", c.name, err.Error(), want)
			}
		}
		if strings.Contains(re.Hint(), "--yes") || !strings.Contains(re.Hint(), "if it is not the one you mean") {
			t.Errorf("%s: hint %q", c.name, re.Hint())
		}
	}
}

func TestCheckRefundReference(t *testing.T) {
	p := &Payment{ID: testPaymentID, Currency: "KWD", Status: StatusClosed, Refunds: []Refund{{ID: "r1", Amount: amount("5"), ReferenceID: "RET"}}}
	if made, err := CheckRefundReference(p, RefundRequest{Amount: amount("5.000"), ReferenceID: "RET"}); !made || err != nil {
		t.Errorf("same again: made=%v err=%v", made, err)
	}
	_, err := CheckRefundReference(p, RefundRequest{Amount: amount("6"), ReferenceID: "RET"})
	if err == nil || !strings.Contains(err.Error(), "refund of 5.000 KWD") || exitCodeOf(err) != 2 {
		t.Errorf("other amount: %v", err)
	}
}

// The service answers a capture under a taken reference_id with success
// and the payment as it is: the client must not report that as done.
func TestCaptureUnderTakenReferenceIsUnknown(t *testing.T) {
	f := newFakePayments(t, "100.00")
	f.dedupe = true
	f.captures = append(f.captures, map[string]any{"id": "c-1", "amount": "7.00", "reference_id": "R1"})
	c := moveClient(t, f)
	res, err := c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("8"), ReferenceID: "R1"})
	var conflict *MoveUnknownError
	if !errors.As(err, &conflict) || exitCodeOf(err) != 10 {
		t.Fatalf("err = %v, want a MoveUnknownError", err)
	}
	// Never "nothing was moved", and never the advice of a new id: the
	// payment cannot tell whether this capture moved money.
	if conflict.Held != "7.00 AED" || conflict.Asked != "8.00 AED" || conflict.Captured != "7.00 AED" ||
		!strings.Contains(err.Error(), "outcome unknown") || strings.Contains(err.Error(), "nothing") ||
		strings.Contains(conflict.Hint(), "new reference") || !strings.Contains(conflict.Hint(), "--reference-id R1") {
		t.Errorf("conflict = %+v: %v", conflict, err)
	}
	if res == nil || res.Payment == nil || !res.Payment.Captured().Equal(amount("7")) {
		t.Errorf("result = %+v", res)
	}

	// The same amount again is the capture already made: a success.
	if _, err := c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("7"), ReferenceID: "R1"}); err != nil {
		t.Errorf("same amount again: %v", err)
	}
}

// The race: the payment read before the move shows no capture with the
// reference_id (so the pre-check passes), and another process uses it
// for another amount before our move arrives.
func TestReferenceTakenBetweenReadAndMove(t *testing.T) {
	for _, kind := range []string{"capture", "refund"} {
		f := newFakePayments(t, "100.00")
		f.dedupe = true
		if kind == "refund" {
			f.status = StatusClosed
			f.captures = append(f.captures, map[string]any{"id": "c-0", "amount": "100.00", "reference_id": "C0"})
		}
		c := moveClient(t, f)
		p, err := c.GetPayment(context.Background(), testPaymentID)
		if err != nil {
			t.Fatal(err)
		}
		var made bool
		if kind == "capture" {
			made, err = CheckCaptureReference(p, CaptureRequest{Amount: amount("8"), ReferenceID: "R1"})
		} else {
			made, err = CheckRefundReference(p, RefundRequest{Amount: amount("8"), ReferenceID: "R1"})
		}
		if made || err != nil {
			t.Fatalf("%s: pre-check made=%v err=%v", kind, made, err)
		}
		f.beforeMove = func(f *fakePayments) {
			other := map[string]any{"id": "x-1", "amount": "3.00", "reference_id": "R1"}
			if kind == "capture" {
				f.captures = append(f.captures, other)
			} else {
				f.refunds = append(f.refunds, other)
			}
			f.beforeMove = nil
		}
		if kind == "capture" {
			_, err = c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("8"), ReferenceID: "R1"})
		} else {
			_, err = c.Refund(context.Background(), testPaymentID, RefundRequest{Amount: amount("8"), ReferenceID: "R1"})
		}
		var conflict *MoveUnknownError
		if !errors.As(err, &conflict) || exitCodeOf(err) != 10 || conflict.Held != "3.00 AED" {
			t.Errorf("%s: err = %v, want a conflict holding 3.00 AED", kind, err)
		}
	}
}

// A move answered with success whose payment does not hold it at all is
// not reported done either.
func TestSuccessWithoutTheMoveIsUnknown(t *testing.T) {
	p := &Payment{ID: testPaymentID, Currency: "AED"}
	m := &move{kind: moveRefund, paymentID: testPaymentID, reference: "R9", amount: amount("4")}
	err := m.verifyMade(p)
	var conflict *MoveUnknownError
	if !errors.As(err, &conflict) || conflict.Held != "" || !strings.Contains(err.Error(), "holds no refund under that reference_id") {
		t.Errorf("err = %v", err)
	}
	if err := (&move{kind: moveClose}).verifyMade(p); err != nil {
		t.Errorf("close: %v", err)
	}
}

// Text that is not UTF-8 or too long is refused before anything is sent:
// the service would store another value than the one sent.
func TestMoveTextIsChecked(t *testing.T) {
	f := newFakePayments(t, "100.00")
	c := moveClient(t, f)
	_, err := c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("5"), ReferenceID: "x\xff"})
	var ve *ValidationError
	if !errors.As(err, &ve) || exitCodeOf(err) != 2 || !strings.Contains(err.Error(), "$.reference_id: byte 1 (0xFF) is not UTF-8") {
		t.Errorf("capture: err = %v", err)
	}
	_, err = c.Refund(context.Background(), testPaymentID, RefundRequest{Amount: amount("5"), ReferenceID: strings.Repeat("é", MaxReferenceIDLen+1)})
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "has 256 characters, at most 255") {
		t.Errorf("refund: err = %v", err)
	}
	_, err = c.Refund(context.Background(), testPaymentID, RefundRequest{Amount: amount("5"), Reason: "caf\xe9"})
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "$.reason: byte 3 (0xE9)") {
		t.Errorf("reason: err = %v", err)
	}
	if f.moves+f.gets != 0 {
		t.Errorf("%d requests sent", f.moves+f.gets)
	}
	if CheckText("Café-1", MaxReferenceIDLen) != "" || InvalidUTF8("ok\xc3") != 2 {
		t.Error("CheckText")
	}
}
