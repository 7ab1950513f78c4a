package sandbox

import (
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
)

func TestRateLimitSessions(t *testing.T) {
	e := newEnv(t, Options{RateLimit: true})
	body := checkoutBody("ae-sandbox", "AED", "100.00")
	var id string
	for i := range middleware.SessionLimit {
		r := e.do("ae", "POST", "/api/v2/checkout", aeTest, body)
		if r.status != 200 {
			t.Fatalf("checkout %d: %d %s", i+1, r.status, r.body)
		}
		id = r.json(t)["payment"].(map[string]any)["id"].(string)
	}
	r := e.do("ae", "POST", "/api/v2/checkout", aeTest, body)
	wantError(t, r, 429, "rate_limited", "too many requests: a test key may create 10 checkout sessions per 10 seconds")
	if got := r.header.Get("Retry-After"); got != "1" {
		t.Fatalf("Retry-After %q, want 1 (one session's share of the window)", got)
	}
	// The session bucket does not hold back other calls.
	if r := e.do("ae", "GET", "/api/v2/payments/"+id, aeTest, nil); r.status != 200 {
		t.Fatalf("GET after the session limit: %d %s", r.status, r.body)
	}
	// Nor another merchant's key.
	if r := e.do("ae", "POST", "/api/v2/checkout", kwTest, checkoutBody("kw-sandbox", "KWD", "10.000")); r.status != 200 {
		t.Fatalf("kw checkout: %d %s", r.status, r.body)
	}
	// Refusals take no token: after the second the client was told to
	// wait, one more session is allowed, and only one.
	e.do("ae", "POST", "/api/v2/checkout", aeTest, body)
	e.clock.Advance(999 * time.Millisecond)
	if r := e.do("ae", "POST", "/api/v2/checkout", aeTest, body); r.status != 429 {
		t.Fatalf("checkout before the token is back: %d, want 429", r.status)
	}
	e.clock.Advance(time.Millisecond)
	if r := e.do("ae", "POST", "/api/v2/checkout", aeTest, body); r.status != 200 {
		t.Fatalf("checkout after Retry-After: %d %s", r.status, r.body)
	}
	if r := e.do("ae", "POST", "/api/v2/checkout", aeTest, body); r.status != 429 {
		t.Fatalf("second checkout after Retry-After: %d, want 429", r.status)
	}
	// A full window refills the whole allowance.
	e.clock.Advance(10 * time.Second)
	for i := range middleware.SessionLimit {
		if r := e.do("ae", "POST", "/api/v2/checkout", aeTest, body); r.status != 200 {
			t.Fatalf("checkout %d of the next window: %d %s", i+1, r.status, r.body)
		}
	}
}

func TestRateLimitCalls(t *testing.T) {
	e := newEnv(t, Options{RateLimit: true})
	id := e.authorized("100.00") // one checkout; the GET bucket is untouched
	path := "/api/v2/payments/" + id
	for i := range middleware.CallLimit {
		if r := e.do("ae", "GET", path, aeTest, nil); r.status != 200 {
			t.Fatalf("GET %d: %d %s", i+1, r.status, r.body)
		}
	}
	r := e.do("ae", "POST", path+"/captures", aeTest, `{"amount": "1.00"}`)
	wantError(t, r, 429, "rate_limited", "too many requests: a test key may make 50 requests per second")
	if got := r.header.Get("Retry-After"); got != "1" {
		t.Fatalf("Retry-After %q, want 1", got)
	}
	e.clock.Advance(time.Second)
	if p := e.get(id); len(p.Captures) != 0 {
		t.Fatalf("a refused capture was made: %+v", p.Captures)
	}
}

func TestRateLimitRefill(t *testing.T) {
	e := newEnv(t, Options{RateLimit: true})
	id := e.authorized("100.00")
	path := "/api/v2/payments/" + id
	for range middleware.CallLimit {
		e.do("ae", "GET", path, aeTest, nil)
	}
	if r := e.do("ae", "GET", path, aeTest, nil); r.status != 429 {
		t.Fatalf("51st GET: %d, want 429", r.status)
	}
	// 50 per second is one token every 20ms.
	e.clock.Advance(20 * time.Millisecond)
	if r := e.do("ae", "GET", path, aeTest, nil); r.status != 200 {
		t.Fatalf("GET 20ms later: %d %s", r.status, r.body)
	}
	if r := e.do("ae", "GET", path, aeTest, nil); r.status != 429 {
		t.Fatalf("second GET 20ms later: %d, want 429", r.status)
	}
	e.clock.Advance(time.Second)
	for i := range middleware.CallLimit {
		if r := e.do("ae", "GET", path, aeTest, nil); r.status != 200 {
			t.Fatalf("GET %d of the next second: %d %s", i+1, r.status, r.body)
		}
	}
}

func TestRateLimitExemptions(t *testing.T) {
	e := newEnv(t, Options{RateLimit: true})
	id := e.authorized("100.00")
	for i := range 3 * middleware.CallLimit {
		// Live keys have no published limit.
		if r := e.do("ae", "GET", "/api/v2/payments/"+id, aeLive, nil); r.status != 404 {
			t.Fatalf("live GET %d: %d %s", i+1, r.status, r.body)
		}
		// Control endpoints are the test's own tools.
		if r := e.control("GET", "/_sandbox/clock"); r.status != 200 {
			t.Fatalf("clock %d: %d %s", i+1, r.status, r.body)
		}
		// An unknown key gets its 401, not a 429.
		if r := e.do("ae", "GET", "/api/v2/payments/"+id, "sk_test_nobody", nil); r.status != 401 {
			t.Fatalf("unknown key %d: %d %s", i+1, r.status, r.body)
		}
	}
	// Without the option there is no limit.
	off := newEnv(t, Options{})
	id = off.authorized("100.00")
	for i := range 3 * middleware.CallLimit {
		if r := off.do("ae", "GET", "/api/v2/payments/"+id, aeTest, nil); r.status != 200 {
			t.Fatalf("GET %d without --rate-limit: %d %s", i+1, r.status, r.body)
		}
	}
}
