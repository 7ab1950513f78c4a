package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

const (
	testKey       = "sk_test_0123456789abcdefWXYZ"
	testPaymentID = "3f0c8a4e-5d2b-4c1a-9e7f-2b6d8c0a1e3f"
	testOtherID   = "7d9e2c1b-0a4f-4e8d-b6c3-5f1a2e3d4c5b"
)

// sleepLog records the waits a client asked for, without waiting.
type sleepLog struct {
	mu     sync.Mutex
	asked  []time.Duration
	inside func() // runs during each sleep, for tests that act meanwhile
}

func (s *sleepLog) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.asked = append(s.asked, d)
	f := s.inside
	s.mu.Unlock()
	if f != nil {
		f()
	}
	return ctx.Err()
}

func (s *sleepLog) waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.asked...)
}

// counted is an httptest server that counts the requests it gets.
type counted struct {
	*httptest.Server
	hits atomic.Int64
}

func newCounted(t *testing.T, h http.HandlerFunc) *counted {
	t.Helper()
	c := &counted{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *counted) Hits() int { return int(c.hits.Load()) }

// newTestClient builds a client on base with a recording sleep and the
// test key; edit adjusts the options first.
func newTestClient(t *testing.T, base string, edit func(*Options)) (*Client, *sleepLog) {
	t.Helper()
	sl := &sleepLog{}
	o := Options{
		BaseURL:      base,
		SecretKey:    testKey,
		MerchantCode: "ae-test",
		Version:      "1.2.3",
		Retries:      3,
		Timeout:      5 * time.Second,
		Sleep:        sl.sleep,
	}
	if edit != nil {
		edit(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, sl
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, errorType, msg string) {
	writeJSON(w, status, map[string]string{"status": "error", "errorType": errorType, "error": msg})
}

// dropConnection closes the connection without an answer, after the
// handler has done whatever it was going to do.
func dropConnection(t *testing.T, w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		t.Error("response writer cannot hijack")
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	conn.Close()
}

// fakePayments is a small stand-in for the service's payment moves, with a
// queue of faults applied to the moves in order: "" (none), "500-before",
// "500-after", "drop-after", "drop-before", "lock".
type fakePayments struct {
	t        *testing.T
	mu       sync.Mutex
	amount   decimal.Decimal
	status   string
	captures []map[string]any
	refunds  []map[string]any
	faults   []string
	moves    int // move requests received
	gets     int
	// dedupe answers a capture or refund whose reference_id is taken with
	// the payment as it is, as the service does.
	dedupe bool
	// beforeMove, when set, runs before a move is applied (another
	// process acting between the read and the move).
	beforeMove func(f *fakePayments)
}

func newFakePayments(t *testing.T, amount string, faults ...string) *fakePayments {
	return &fakePayments{t: t, amount: decimal.RequireFromString(amount), status: StatusAuthorized, faults: faults}
}

func (f *fakePayments) paymentJSON() map[string]any {
	caps := append([]map[string]any{}, f.captures...)
	refs := append([]map[string]any{}, f.refunds...)
	return map[string]any{
		"id":       testPaymentID,
		"amount":   f.amount.StringFixed(2),
		"currency": "AED",
		"status":   f.status,
		"is_test":  true,
		"captures": caps,
		"refunds":  refs,
		"order":    map[string]any{"reference_id": "order-1"},
		// Not modelled by the client: must survive in Raw().
		"extra_field": map[string]any{"kept": true},
	}
}

func (f *fakePayments) captured() decimal.Decimal {
	sum := decimal.Zero
	for _, c := range f.captures {
		sum = sum.Add(decimal.RequireFromString(c["amount"].(string)))
	}
	return sum
}

func (f *fakePayments) refunded() decimal.Decimal {
	sum := decimal.Zero
	for _, r := range f.refunds {
		sum = sum.Add(decimal.RequireFromString(r["amount"].(string)))
	}
	return sum
}

func (f *fakePayments) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	base := "/api/v2/payments/" + testPaymentID
	if r.Method == http.MethodGet && r.URL.Path == base {
		f.gets++
		writeJSON(w, 200, f.paymentJSON())
		return
	}
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, base+"/") {
		http.NotFound(w, r)
		return
	}
	f.moves++
	var body struct {
		Amount      decimal.Decimal `json:"amount"`
		ReferenceID string          `json:"reference_id"`
	}
	raw, _ := io.ReadAll(r.Body)
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &body); err != nil {
			writeError(w, 400, "bad_data", "could not decode request")
			return
		}
	}
	fault := ""
	if len(f.faults) > 0 {
		fault, f.faults = f.faults[0], f.faults[1:]
	}
	switch fault {
	case "500-before":
		writeError(w, 500, "internal", "Internal Server Error")
		return
	case "drop-before":
		dropConnection(f.t, w)
		return
	case "lock":
		writeError(w, 409, "conflict", msgLocked)
		return
	}
	if f.beforeMove != nil {
		f.beforeMove(f)
	}
	status, msg := f.apply(strings.TrimPrefix(r.URL.Path, base+"/"), body.Amount, body.ReferenceID)
	switch {
	case fault == "500-after":
		writeError(w, 500, "internal", "Internal Server Error")
	case fault == "drop-after":
		dropConnection(f.t, w)
	case status != 200:
		writeError(w, status, "bad_data", msg)
	default:
		writeJSON(w, 200, f.paymentJSON())
	}
}

// apply is the state machine of the moves, with the service's messages.
func (f *fakePayments) apply(verb string, amount decimal.Decimal, ref string) (int, string) {
	if f.dedupe {
		held := f.captures
		if verb == "refunds" {
			held = f.refunds
		}
		for _, m := range held {
			if verb != "close" && m["reference_id"] == ref {
				return 200, ""
			}
		}
	}
	switch verb {
	case "captures":
		if f.status == StatusClosed {
			return 400, msgAlreadyClosed
		}
		if f.status != StatusAuthorized {
			return 400, msgCaptureNotAuth
		}
		rest := f.amount.Sub(f.captured())
		if amount.GreaterThan(rest) {
			return 400, fmt.Sprintf("could not capture: %s: %s > %s", msgCaptureTooMuch, amount, rest)
		}
		f.captures = append(f.captures, map[string]any{
			"id": fmt.Sprintf("00000000-0000-4000-8000-%012d", len(f.captures)+1), "amount": amount.StringFixed(2), "reference_id": ref,
		})
		if f.captured().Equal(f.amount) {
			f.status = StatusClosed
		}
	case "refunds":
		if f.status != StatusClosed || len(f.captures) == 0 {
			return 400, msgRefundNoCaptures
		}
		if amount.GreaterThan(f.captured().Sub(f.refunded())) {
			return 400, msgRefundTooMuch
		}
		f.refunds = append(f.refunds, map[string]any{
			"id": fmt.Sprintf("00000000-0000-4000-9000-%012d", len(f.refunds)+1), "amount": amount.StringFixed(2), "reference_id": ref,
		})
	case "close":
		if f.status == StatusClosed {
			return 400, msgAlreadyClosed
		}
		if f.status != StatusAuthorized {
			return 400, msgCloseNotAuth
		}
		f.status = StatusClosed
	default:
		return 404, "not found"
	}
	return 200, ""
}

func (f *fakePayments) counts() (moves, gets int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.moves, f.gets
}

// atOnce calls call from n goroutines at once, as a bulk run's workers
// do, and reports each error it returns.
func atOnce(t *testing.T, n int, call func() error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() { errs <- call() })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
