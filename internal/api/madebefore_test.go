package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A capture the service answers with our reference_id and amount is the
// move made, whatever the times: the answer's Date and the capture's
// created_at are never compared (a fixed clock, or one far off, would make
// a guess from them wrong). Whether this call moved the money is for the
// caller to tell from what the payment held before it sent.
func TestCaptureAnswerIsNeverJudgedByClocks(t *testing.T) {
	date := time.Date(2026, 11, 23, 12, 0, 30, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		created time.Time
		date    string // "" sends no Date header
	}{
		{"made well before the Date", date.Add(-10 * time.Hour), date.Format(http.TimeFormat)},
		{"made after the Date", date.Add(10 * time.Hour), date.Format(http.TimeFormat)},
		{"no Date header", date.Add(-time.Hour), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.date == "" {
					w.Header()["Date"] = nil // net/http adds one otherwise
				} else {
					w.Header().Set("Date", tc.date)
				}
				writeJSON(w, http.StatusOK, map[string]any{
					"id": testPaymentID, "status": "AUTHORIZED", "amount": "100.00", "currency": "AED",
					"captures": []map[string]any{{"id": "c-1", "amount": "5.00", "reference_id": "R1", "created_at": tc.created.Format(time.RFC3339Nano)}},
				})
			})
			c, _ := newTestClient(t, srv.URL, nil)
			res, err := c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("5"), ReferenceID: "R1"})
			if err != nil {
				t.Fatal(err)
			}
			if res.MadeBefore || res.Reconciled {
				t.Fatalf("MadeBefore %v Reconciled %v, want neither", res.MadeBefore, res.Reconciled)
			}
		})
	}
}

// A move whose answer is lost names the real path of the payment, never
// the route's {id}.
func TestADroppedMoveNamesTheRealPath(t *testing.T) {
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			dropConnection(t, w)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": testPaymentID, "status": "AUTHORIZED", "amount": "100.00", "currency": "AED"})
	})
	c, _ := newTestClient(t, srv.URL, nil)
	_, err := c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("5"), ReferenceID: "R1"})
	if err == nil || !IsOutcomeUnknown(err) {
		t.Fatalf("err %v, want an unknown outcome", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "{id}") || !strings.Contains(msg, "POST /api/v2/payments/"+testPaymentID+"/captures") {
		t.Fatalf("message %q", msg)
	}
	var ne *NetworkError
	if !errors.As(err, &ne) || ne.ErrorDetails()["route"] != "/api/v2/payments/{id}/captures" {
		t.Fatalf("details of %v", err)
	}
}

// A capture's parts are each at most its amount; the client refuses
// locally what the service would.
func TestCapturePartAboveTheAmountIsRefusedLocally(t *testing.T) {
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) { t.Errorf("sent %s %s", r.Method, r.URL) })
	c, _ := newTestClient(t, srv.URL, nil)
	tax := amount("6")
	_, err := c.Capture(context.Background(), testPaymentID, CaptureRequest{Amount: amount("5"), TaxAmount: &tax})
	var v *ValidationError
	if !errors.As(err, &v) || !strings.Contains(err.Error(), "tax_amount") {
		t.Fatalf("err %v", err)
	}
	if field, _, found := ExcessCapturePart(amount("5"), nil, &tax, nil); !found || field != "shipping_amount" {
		t.Fatalf("ExcessCapturePart: %s %v", field, found)
	}
	if _, _, found := ExcessCapturePart(amount("6"), &tax, &tax, &tax); found {
		t.Fatal("a part equal to the amount is refused")
	}
}
