package api

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// failing answers the first n requests with fail, the rest with a payment.
func failing(t *testing.T, n int, fail func(w http.ResponseWriter, r *http.Request)) *counted {
	var seen atomic.Int64
	return newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		if int(seen.Add(1)) <= n {
			fail(w, r)
			return
		}
		writeJSON(w, 200, map[string]any{"id": testPaymentID, "amount": "10.00", "currency": "AED", "status": "AUTHORIZED", "captures": []any{}, "refunds": []any{}})
	})
}

func answer500(w http.ResponseWriter, _ *http.Request) {
	writeError(w, 500, "internal", "Internal Server Error")
}

func TestRetryAfter500(t *testing.T) {
	srv := failing(t, 2, answer500)
	c, sl := newTestClient(t, srv.URL, nil)
	p, err := c.GetPayment(context.Background(), testPaymentID)
	if err != nil {
		t.Fatalf("GetPayment: %v", err)
	}
	if p.ID != testPaymentID || srv.Hits() != 3 {
		t.Errorf("id %q after %d hits, want 3", p.ID, srv.Hits())
	}
	waits := sl.waits()
	if len(waits) != 2 {
		t.Fatalf("waits = %v", waits)
	}
	// Exponential from 200ms with the upper half jittered.
	if waits[0] < 100*time.Millisecond || waits[0] > 200*time.Millisecond ||
		waits[1] < 200*time.Millisecond || waits[1] > 400*time.Millisecond {
		t.Errorf("waits = %v, want ~200ms then ~400ms", waits)
	}
}

func TestRetriesRunOut(t *testing.T) {
	srv := failing(t, 100, answer500)
	c, _ := newTestClient(t, srv.URL, func(o *Options) { o.Retries = 2 })
	_, err := c.GetPayment(context.Background(), testPaymentID)
	if e, ok := AsAPIError(err); !ok || e.ExitCode() != 9 {
		t.Fatalf("err = %v, want a 500 APIError", err)
	}
	if srv.Hits() != 3 {
		t.Errorf("hits = %d, want 1 + 2 retries", srv.Hits())
	}

	srv0 := failing(t, 100, answer500)
	c0, sl := newTestClient(t, srv0.URL, func(o *Options) { o.Retries = 0 })
	if _, err := c0.GetPayment(context.Background(), testPaymentID); err == nil {
		t.Fatal("want an error")
	}
	if srv0.Hits() != 1 || len(sl.waits()) != 0 {
		t.Errorf("Retries 0: hits %d waits %v", srv0.Hits(), sl.waits())
	}
}

func TestRetry429HonoursRetryAfter(t *testing.T) {
	fixed := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, header string
		want         time.Duration
	}{
		{"seconds", "2", 2 * time.Second},
		{"http date", fixed.Add(5 * time.Second).Format(http.TimeFormat), 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := failing(t, 1, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Retry-After", tc.header)
				w.WriteHeader(429)
			})
			c, sl := newTestClient(t, srv.URL, nil)
			c.now = func() time.Time { return fixed }
			if _, err := c.GetPayment(context.Background(), testPaymentID); err != nil {
				t.Fatalf("GetPayment: %v", err)
			}
			if w := sl.waits(); len(w) != 1 || w[0] != tc.want {
				t.Errorf("waits = %v, want [%v]", w, tc.want)
			}
			if srv.Hits() != 2 {
				t.Errorf("hits = %d", srv.Hits())
			}
		})
	}
}

func TestRetryAfterTooLongIsHandedBack(t *testing.T) {
	srv := failing(t, 1, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "3600")
		writeError(w, 429, "rate_limited", "slow down")
	})
	c, sl := newTestClient(t, srv.URL, nil)
	_, err := c.GetPayment(context.Background(), testPaymentID)
	e, ok := AsAPIError(err)
	if !ok || e.ExitCode() != 8 || e.RetryAfter != time.Hour || !strings.Contains(e.Hint(), "1h0m0s") {
		t.Fatalf("err = %v (hint %q)", err, e.Hint())
	}
	if srv.Hits() != 1 || len(sl.waits()) != 0 {
		t.Errorf("hits %d waits %v", srv.Hits(), sl.waits())
	}
}

func TestLockedPaymentIsRetriedOnAnyMethod(t *testing.T) {
	srv := failing(t, 2, func(w http.ResponseWriter, _ *http.Request) { writeError(w, 409, "conflict", msgLocked) })
	c, _ := newTestClient(t, srv.URL, nil)
	// A webhook registration may only be retried when refused, and a lock
	// is a refusal.
	if _, err := c.CreateWebhook(context.Background(), WebhookRequest{URL: "https://shop.example/hook"}); err != nil {
		t.Fatalf("CreateWebhook: %v", err)
	}
	if srv.Hits() != 3 {
		t.Errorf("hits = %d, want 3", srv.Hits())
	}
}

func TestDroppedConnectionIsRetriedForReads(t *testing.T) {
	srv := failing(t, 1, func(w http.ResponseWriter, _ *http.Request) { dropConnection(t, w) })
	c, _ := newTestClient(t, srv.URL, nil)
	if _, err := c.GetPayment(context.Background(), testPaymentID); err != nil {
		t.Fatalf("GetPayment: %v", err)
	}
	if srv.Hits() != 2 {
		t.Errorf("hits = %d, want 2", srv.Hits())
	}
}

func TestUnsafeRequestsAreNotRetriedOnceSent(t *testing.T) {
	ctx := context.Background()
	checkout := []byte(`{"payment":{"amount":"10.00","currency":"AED"},"lang":"en","merchant_code":"ae-test"}`)

	t.Run("checkout after 500", func(t *testing.T) {
		srv := failing(t, 100, answer500)
		c, sl := newTestClient(t, srv.URL, nil)
		_, err := c.CreateCheckout(ctx, checkout)
		if StatusOf(err) != 500 || srv.Hits() != 1 || len(sl.waits()) != 0 {
			t.Errorf("err %v, hits %d, waits %v", err, srv.Hits(), sl.waits())
		}
	})
	t.Run("checkout after a dropped connection", func(t *testing.T) {
		srv := failing(t, 100, func(w http.ResponseWriter, _ *http.Request) { dropConnection(t, w) })
		c, _ := newTestClient(t, srv.URL, nil)
		_, err := c.CreateCheckout(ctx, checkout)
		var ne *NetworkError
		if !errors.As(err, &ne) || ne.ExitCode() != 10 || srv.Hits() != 1 {
			t.Errorf("err %v, hits %d", err, srv.Hits())
		}
	})
	t.Run("delete after a dropped connection", func(t *testing.T) {
		srv := failing(t, 100, func(w http.ResponseWriter, _ *http.Request) { dropConnection(t, w) })
		c, _ := newTestClient(t, srv.URL, nil)
		err := c.DeleteWebhook(ctx, testOtherID)
		if !IsOutcomeUnknown(err) || srv.Hits() != 1 {
			t.Errorf("err %v, hits %d", err, srv.Hits())
		}
	})
	t.Run("checkout after 429", func(t *testing.T) {
		srv := failing(t, 1, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(429) })
		c, _ := newTestClient(t, srv.URL, nil)
		if _, err := c.CreateCheckout(ctx, checkout); err != nil || srv.Hits() != 2 {
			t.Errorf("err %v, hits %d", err, srv.Hits())
		}
	})
}

// refusingDialer fails the first n round trips as a refused connection,
// which proves nothing was sent.
type refusingDialer struct {
	n     int
	calls atomic.Int64
	next  http.RoundTripper
}

func (r *refusingDialer) RoundTrip(req *http.Request) (*http.Response, error) {
	if int(r.calls.Add(1)) <= r.n {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	return r.next.RoundTrip(req)
}

func TestCheckoutIsRetriedWhenNeverConnected(t *testing.T) {
	srv := newCounted(t, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, map[string]any{"id": testOtherID, "status": "created", "payment": map[string]any{"id": testPaymentID}})
	})
	rt := &refusingDialer{n: 2, next: http.DefaultTransport}
	c, _ := newTestClient(t, srv.URL, func(o *Options) { o.Transport = rt })
	s, err := c.CreateCheckout(context.Background(), json.RawMessage(`{"payment":{},"lang":"en","merchant_code":"ae-test"}`))
	if err != nil {
		t.Fatalf("CreateCheckout: %v", err)
	}
	if s.ID != testOtherID || rt.calls.Load() != 3 || srv.Hits() != 1 {
		t.Errorf("session %q, round trips %d, hits %d", s.ID, rt.calls.Load(), srv.Hits())
	}

	// With the retries spent, the error says nothing was sent.
	rt = &refusingDialer{n: 100, next: http.DefaultTransport}
	c, _ = newTestClient(t, srv.URL, func(o *Options) { o.Transport = rt; o.Retries = 1 })
	_, err = c.CreateCheckout(context.Background(), json.RawMessage(`{}`))
	var ne *NetworkError
	if !errors.As(err, &ne) || IsOutcomeUnknown(err) || !strings.Contains(ne.Hint(), "nothing was sent") {
		t.Errorf("err = %v", err)
	}
}

func TestTimeoutIsANetworkError(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	c, _ := newTestClient(t, srv.URL, func(o *Options) { o.Timeout = 50 * time.Millisecond; o.Retries = 1 })
	_, err := c.GetPayment(context.Background(), testPaymentID)
	var ne *NetworkError
	if !errors.As(err, &ne) || ne.ExitCode() != 10 || !strings.Contains(ne.Error(), "timed out") {
		t.Fatalf("err = %v", err)
	}
	if srv.Hits() != 2 {
		t.Errorf("hits = %d, want 2", srv.Hits())
	}
}

func TestCancelStopsRetrying(t *testing.T) {
	srv := failing(t, 100, answer500)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, sl := newTestClient(t, srv.URL, nil)
	sl.inside = cancel // Ctrl-C during the first backoff
	_, err := c.GetPayment(ctx, testPaymentID)
	var coded interface{ ExitCode() int }
	if !errors.As(err, &coded) || coded.ExitCode() != 130 || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if srv.Hits() != 1 {
		t.Errorf("hits = %d", srv.Hits())
	}
}

func TestRateLimitPauseIsSharedByTheClient(t *testing.T) {
	fixed := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	var limited atomic.Int64
	srv := newCounted(t, func(w http.ResponseWriter, _ *http.Request) {
		if limited.Add(1) == 1 {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(429)
			return
		}
		writeJSON(w, 200, map[string]any{"id": testPaymentID})
	})
	shared, sl := newTestClient(t, srv.URL, nil)
	shared.now = func() time.Time { return fixed }
	if _, err := shared.GetPayment(context.Background(), testPaymentID); err != nil {
		t.Fatal(err)
	}

	// Every later request of the same client, from any goroutine, waits for
	// the time the 429 asked for before it is sent.
	atOnce(t, 8, func() error {
		_, err := shared.GetPayment(context.Background(), testPaymentID)
		return err
	})
	waits := sl.waits()
	if len(waits) != 9 {
		t.Fatalf("waits = %v, want 9 waits of 3s", waits)
	}
	for _, w := range waits {
		if w != 3*time.Second {
			t.Errorf("wait %v, want 3s", w)
		}
	}
	if srv.Hits() != 10 || limited.Load() != 10 {
		t.Errorf("hits = %d", srv.Hits())
	}

	// Another client is not held back.
	other, osl := newTestClient(t, srv.URL, nil)
	other.now = func() time.Time { return fixed }
	if _, err := other.GetPayment(context.Background(), testPaymentID); err != nil || len(osl.waits()) != 0 {
		t.Errorf("other client: err %v waits %v", err, osl.waits())
	}
}

func TestBackoff(t *testing.T) {
	for n := 1; n <= 40; n++ {
		full := min(backoffBase<<min(n-1, 15), backoffCap)
		for range 50 {
			d := backoff(n)
			if d < full/2 || d > full {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", n, d, full/2, full)
			}
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":            0,
		"0":           0,
		"-3":          0,
		"5":           5 * time.Second,
		" 7 ":         7 * time.Second,
		"99999999999": 24 * time.Hour,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Minute).Format(http.TimeFormat):     0,
		"soon": 0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}
