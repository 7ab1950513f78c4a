package api

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

func amount(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func moveClient(t *testing.T, f *fakePayments) *Client {
	t.Helper()
	srv := newCounted(t, f.ServeHTTP)
	c, _ := newTestClient(t, srv.URL, nil)
	return c
}

func TestCaptureReconciledAfterUnknownOutcome(t *testing.T) {
	for _, tc := range []struct {
		name, fault, capture, refusal string
	}{
		// A partial capture committed, then its answer lost: the repeat
		// exceeds what is left.
		{"drop then too much", "drop-after", "60", msgCaptureTooMuch},
		{"500 then too much", "500-after", "60", msgCaptureTooMuch},
		// A full capture closes the payment: the repeat finds it closed.
		{"drop then closed", "drop-after", "100", msgAlreadyClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakePayments(t, "100.00", tc.fault)
			c := moveClient(t, f)
			res, err := c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount(tc.capture)})
			if err != nil {
				t.Fatalf("Capture: %v", err)
			}
			if !res.Reconciled || res.Attempts != 2 {
				t.Errorf("reconciled %v after %d attempts, want true after 2", res.Reconciled, res.Attempts)
			}
			if _, err := uuid.Parse(res.ReferenceID); err != nil {
				t.Errorf("generated reference_id %q is not a UUID", res.ReferenceID)
			}
			if res.Payment == nil || res.Payment.CaptureByReference(res.ReferenceID) == nil {
				t.Fatalf("payment does not show the capture: %+v", res.Payment)
			}
			if len(f.captures) != 1 || f.captures[0]["reference_id"] != res.ReferenceID {
				t.Errorf("captures = %v", f.captures)
			}
			moves, gets := f.counts()
			if moves != 2 || gets != 1 {
				t.Errorf("moves %d gets %d", moves, gets)
			}
		})
	}
}

func TestCaptureRefusedWhenTheMoveIsAbsent(t *testing.T) {
	f := newFakePayments(t, "100.00", "500-before")
	// Someone else took half meanwhile.
	f.captures = append(f.captures, map[string]any{"id": "c-0", "amount": "50.00", "reference_id": "other"})
	c := moveClient(t, f)
	res, err := c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("60")})
	e, ok := AsAPIError(err)
	if !ok || e.Status != 400 || exitCodeOf(err) != 3 {
		t.Fatalf("err = %v, want the 400 refusal", err)
	}
	var h interface{ Hint() string }
	if !errors.As(err, &h) || h.Hint() != "50.00 AED is left to capture on this payment" {
		t.Errorf("hint = %q", h.Hint())
	}
	if res == nil || res.Reconciled || res.Attempts != 2 || res.ReferenceID == "" {
		t.Errorf("result = %+v", res)
	}
}

func TestCaptureReconciledAfterRetriesRunOut(t *testing.T) {
	f := newFakePayments(t, "100.00", "drop-after", "drop-before", "drop-before", "drop-before")
	c := moveClient(t, f)
	res, err := c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("40"), ReferenceID: "order-40"})
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	if !res.Reconciled || res.Attempts != 4 || res.ReferenceID != "order-40" {
		t.Errorf("result = %+v", res)
	}
	if _, gets := f.counts(); gets != 1 {
		t.Errorf("gets = %d, want one fresh read", gets)
	}
}

func TestCaptureReconciledWhenLockOutlastsRetries(t *testing.T) {
	f := newFakePayments(t, "100.00", "drop-after", "lock", "lock", "lock")
	c := moveClient(t, f)
	res, err := c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("40")})
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	if !res.Reconciled || res.Attempts != 4 {
		t.Errorf("result = %+v", res)
	}
}

func TestCaptureUnknownAndAbsent(t *testing.T) {
	f := newFakePayments(t, "100.00", "500-before", "500-before", "500-before", "500-before")
	c := moveClient(t, f)
	res, err := c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("40")})
	if StatusOf(err) != 500 || exitCodeOf(err) != 9 {
		t.Fatalf("err = %v", err)
	}
	var h interface{ Hint() string }
	errors.As(err, &h)
	if !strings.Contains(h.Hint(), "re-running it with --reference-id "+res.ReferenceID+" is safe") {
		t.Errorf("hint = %q", h.Hint())
	}
	if res.Attempts != 4 || res.Reconciled {
		t.Errorf("result = %+v", res)
	}
	if moves, gets := f.counts(); moves != 4 || gets != 1 {
		t.Errorf("moves %d gets %d", moves, gets)
	}
}

func TestCaptureAfterNetworkDropsWithNoCommit(t *testing.T) {
	f := newFakePayments(t, "100.00", "drop-before", "drop-before", "drop-before", "drop-before")
	c := moveClient(t, f)
	_, err := c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("40")})
	var ne *NetworkError
	if !errors.As(err, &ne) || exitCodeOf(err) != 10 || !IsOutcomeUnknown(err) {
		t.Fatalf("err = %v, want a NetworkError", err)
	}
}

func TestResumedCaptureIsReconciledOnFirstRefusal(t *testing.T) {
	// An earlier run captured 60 with reference order-9 and lost the answer;
	// the person re-runs with --reference-id order-9, as the hint said.
	f := newFakePayments(t, "100.00")
	f.captures = append(f.captures, map[string]any{"id": "c-1", "amount": "60.00", "reference_id": "order-9"})
	c := moveClient(t, f)
	res, err := c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("60.00"), ReferenceID: "order-9"})
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	if !res.Reconciled || res.Attempts != 1 {
		t.Errorf("result = %+v", res)
	}

	// A different amount under the same reference is another capture: not
	// ours, and ours can never be made under that reference: a conflict.
	_, err = c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("70"), ReferenceID: "order-9"})
	var conflict *MoveUnknownError
	if !errors.As(err, &conflict) || exitCodeOf(err) != 10 || conflict.Held != "60.00 AED" {
		t.Errorf("err = %v, want a conflict naming what the payment holds", err)
	}
}

func TestLockedMoveIsRetried(t *testing.T) {
	f := newFakePayments(t, "100.00", "lock", "lock")
	c := moveClient(t, f)
	res, err := c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("10")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reconciled || res.Attempts != 3 || len(res.Payment.Captures) != 1 {
		t.Errorf("result = %+v", res)
	}
}

func TestRefundReconciled(t *testing.T) {
	f := newFakePayments(t, "100.00", "drop-after")
	f.status = StatusClosed
	f.captures = append(f.captures, map[string]any{"id": "c-1", "amount": "100.00", "reference_id": "cap"})
	c := moveClient(t, f)
	res, err := c.Refund(context.Background(), testPaymentID, RefundRequest{Amount: amount("100"), Reason: "returned"})
	if err != nil {
		t.Fatalf("Refund: %v", err)
	}
	if !res.Reconciled || res.Attempts != 2 || res.Payment.RefundByReference(res.ReferenceID) == nil {
		t.Errorf("result = %+v", res)
	}
	if len(f.refunds) != 1 {
		t.Errorf("refunds = %v", f.refunds)
	}
}

func TestRefundRefusalNamesTheRefundable(t *testing.T) {
	f := newFakePayments(t, "100.00")
	f.status = StatusClosed
	f.captures = append(f.captures, map[string]any{"id": "c-1", "amount": "100.00", "reference_id": "cap"})
	f.refunds = append(f.refunds, map[string]any{"id": "r-1", "amount": "75.00", "reference_id": "earlier"})
	c := moveClient(t, f)
	_, err := c.Refund(context.Background(), testPaymentID, RefundRequest{Amount: amount("30")})
	var h interface{ Hint() string }
	if StatusOf(err) != 400 || !errors.As(err, &h) || h.Hint() != "25.00 AED is left to refund on this payment (status CLOSED)" {
		t.Errorf("err = %v", err)
	}
}

func TestCloseReconciled(t *testing.T) {
	f := newFakePayments(t, "100.00", "drop-after")
	c := moveClient(t, f)
	res, err := c.Close(context.Background(), testPaymentID)
	if err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !res.Reconciled || res.Attempts != 2 || res.Payment.Status != StatusClosed {
		t.Errorf("result = %+v", res)
	}

	// Without an unknown attempt, closing a closed payment is an error.
	_, err = c.Close(context.Background(), testPaymentID)
	if !IsAlreadyClosed(err) || exitCodeOf(err) != 3 {
		t.Errorf("err = %v", err)
	}
}

func TestMoveSucceedsPlainly(t *testing.T) {
	f := newFakePayments(t, "100.00")
	c := moveClient(t, f)
	res, err := c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("25.50"), ReferenceID: "r-1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reconciled || res.Attempts != 1 || !res.Payment.Captured().Equal(amount("25.5")) {
		t.Errorf("result = %+v", res)
	}
	if _, gets := f.counts(); gets != 0 {
		t.Errorf("a plain success read the payment %d times", gets)
	}
}
