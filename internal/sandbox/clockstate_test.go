package sandbox

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// The clock cannot be pushed out of range: advances that would overflow are
// refused with 400 and leave the state usable, across a restart on the
// same file.
func TestClockOverflowRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	e := newEnv(t, Options{StatePath: path})

	// 106751d is just under int64 nanoseconds: twice would overflow the
	// stored sum. It is over the 100-year cap, so the first is refused.
	for _, by := range []string{"106751d", "106751d", "9999999999d", "99999999999999999999d", "2562047h47m16.854775807s", "9999999999h", "36526d"} {
		r := e.local("POST", "/_sandbox/clock/advance?by="+by, "")
		wantError(t, r, 400, "bad_data", "cannot advance the sandbox clock by "+by+"...")
		if !strings.Contains(string(r.body), "100 years") {
			t.Fatalf("refusal %s does not state the cap", r.body)
		}
	}
	// Up to the cap is fine, in pieces; a step past it is refused.
	r := e.local("POST", "/_sandbox/clock/advance?by=36000d", "")
	if r.status != 200 {
		t.Fatalf("advance 36000d: %d %s", r.status, r.body)
	}
	r = e.local("POST", "/_sandbox/clock/advance?by=526d", "")
	wantError(t, r, 400, "bad_data", "cannot advance the sandbox clock by 526d: it moves at most 100 years...")
	r = e.local("POST", "/_sandbox/clock/advance", `{"by": "525d"}`)
	if r.status != 200 {
		t.Fatalf("advance to the cap: %d %s", r.status, r.body)
	}
	if got := r.json(t)["offset"]; got != store.MaxClockOffset.String() {
		t.Fatalf("offset %v, want %s", got, store.MaxClockOffset)
	}
	r = e.local("POST", "/_sandbox/clock/advance?by=1ns", "")
	wantError(t, r, 400, "bad_data", "cannot advance the sandbox clock by 1ns...")

	// Every path still works: a checkout, a read, a list.
	id := e.authorized("100.00")
	if p := e.get(id); p.Status != "AUTHORIZED" {
		t.Fatalf("status %s", p.Status)
	}
	if r := e.do("ae", "GET", "/api/v2/payments", aeTest, nil); r.status != 200 {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	e.sb.Close()

	// A restart on the same file keeps the offset and answers.
	e2 := newEnv(t, Options{StatePath: path})
	r = e2.local("GET", "/_sandbox/clock", "")
	if r.status != 200 || r.json(t)["offset"] != store.MaxClockOffset.String() {
		t.Fatalf("after restart: %d %s", r.status, r.body)
	}
	if p := e2.get(id); p.Status != "AUTHORIZED" {
		t.Fatalf("after restart: status %s", p.Status)
	}
}

// A state file already damaged by an older sandbox (the overflowing sum
// stored as a REAL) answers a clear error naming the row, and a reset
// repairs it.
func TestClockBadStoredOffset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	e := newEnv(t, Options{StatePath: path})
	id := e.authorized("100.00")
	ctx := context.Background()
	// What `v = v + excluded.v` made of two 106751-day advances.
	if _, err := e.sb.DB.ExecContext(ctx, `INSERT INTO meta (k, v) VALUES ('clock_offset', 1.8446656e19)`); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/_sandbox/clock", "/api/v2/payments/" + id} {
		key := ""
		if strings.HasPrefix(p, "/api") {
			key = aeTest
		}
		var r resp
		if key == "" {
			r = e.local("GET", p, "")
		} else {
			r = e.do("ae", "GET", p, key, nil)
		}
		wantError(t, r, 500, "internal", `sandbox state: meta row "clock_offset" holds 1.8446656e+19, which is not a clock offset...`)
		if !strings.Contains(string(r.body), "bnpl sandbox reset") {
			t.Fatalf("%s: no remedy in %s", p, r.body)
		}
	}
	r := e.local("POST", "/_sandbox/clock/advance?by=1h", "")
	wantError(t, r, 500, "internal", `sandbox state: meta row "clock_offset"...`)
	for _, bad := range []any{int64(-1), int64(store.MaxClockOffset) + 1, "soon"} {
		if _, err := e.sb.DB.ExecContext(ctx, `UPDATE meta SET v = ? WHERE k = 'clock_offset'`, bad); err != nil {
			t.Fatal(err)
		}
		if _, err := e.sb.Now(ctx); err == nil || !strings.Contains(err.Error(), `"clock_offset"`) {
			t.Fatalf("offset %v: err %v", bad, err)
		}
	}
	if r := e.local("POST", "/_sandbox/reset", ""); r.status != 200 {
		t.Fatalf("reset: %d %s", r.status, r.body)
	}
	if r := e.local("GET", "/_sandbox/clock", ""); r.status != 200 {
		t.Fatalf("after reset: %d %s", r.status, r.body)
	}
}

// local sends a request to the ae handler from a loopback address, as the
// control endpoints require.
func (e *env) local(method, path, body string) resp {
	e.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.RemoteAddr = "127.0.0.1:40000"
	w := httptest.NewRecorder()
	e.sb.Handler("ae").ServeHTTP(w, req)
	return resp{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
}

// A stored payment that cannot be decoded is a clear error naming its row,
// on that payment only; the others keep working.
func TestCorruptPaymentNamesTheRow(t *testing.T) {
	e := newEnv(t, Options{})
	bad := e.authorized("100.00")
	good := e.authorized("100.00")
	if _, err := e.sb.DB.ExecContext(context.Background(), `UPDATE payments SET view = 'not json' WHERE id = ?`, bad); err != nil {
		t.Fatal(err)
	}
	r := e.do("ae", "POST", "/api/v2/payments/"+bad+"/captures", aeTest, map[string]any{"amount": "1.00"})
	wantError(t, r, 500, "internal", "sandbox state: payments row with id "+bad+" cannot be read...")
	if r := e.do("ae", "POST", "/api/v2/payments/"+good+"/captures", aeTest, map[string]any{"amount": "1.00"}); r.status != 200 {
		t.Fatalf("another payment: %d %s", r.status, r.body)
	}
}

// With a damaged clock offset, no path answers the bare "Internal Server
// Error": each one that needs the time names the row and the remedy, and
// those that do not need it keep working.
func TestClockBadStoredOffsetEveryPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	e := newEnv(t, Options{StatePath: path})
	id := e.authorized("100.00")
	sess := e.createSession(checkoutBody("ae-sandbox", "AED", "50.00"), aeTest)
	if _, err := e.sb.DB.ExecContext(context.Background(), `INSERT INTO meta (k, v) VALUES ('clock_offset', 1e300)
		ON CONFLICT (k) DO UPDATE SET v = excluded.v`); err != nil {
		t.Fatal(err)
	}
	check := func(what string, r resp) {
		t.Helper()
		if r.status < 500 {
			return
		}
		body := strings.ReplaceAll(string(r.body), `\"`, `"`)
		if !strings.Contains(body, `meta row "clock_offset" holds 1e+300`) || !strings.Contains(string(r.body), "bnpl sandbox reset") {
			t.Errorf("%s: %d %s", what, r.status, r.body)
		}
	}
	for _, p := range []string{
		"/api/v2/payments", "/api/v2/payments?status=authorized&limit=5", "/api/v2/payments/" + id,
		"/api/v2/checkout/" + sess.ID, "/api/v1/webhooks",
	} {
		check("GET "+p, e.do("ae", "GET", p, aeTest, nil))
	}
	check("capture", e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, map[string]any{"amount": "1.00"}))
	check("refund", e.do("ae", "POST", "/api/v2/payments/"+id+"/refunds", aeTest, map[string]any{"amount": "1.00"}))
	check("close", e.do("ae", "POST", "/api/v2/payments/"+id+"/close", aeTest, nil))
	check("checkout", e.do("ae", "POST", "/api/v2/checkout", aeTest, checkoutBody("ae-sandbox", "AED", "10.00")))
	for _, p := range []string{"/_sandbox/clock", "/_sandbox/", "/_sandbox/deliveries", "/_sandbox/logs"} {
		check("GET "+p, e.local("GET", p, ""))
	}
	check("advance", e.local("POST", "/_sandbox/clock/advance?by=1h", ""))
	check("approve", e.local("POST", "/_sandbox/payments/"+id+"/approve", ""))
}

// A refusal states the offset the clock really has and what is left, in
// days, whether the step passes the cap by itself or only with what is
// already stored.
func TestClockRefusalFigures(t *testing.T) {
	e := newEnv(t, Options{StatePath: filepath.Join(t.TempDir(), "state.db")})
	if r := e.local("POST", "/_sandbox/clock/advance?by=36500d", ""); r.status != 200 {
		t.Fatalf("advance: %d %s", r.status, r.body)
	}
	for _, by := range []string{"36600d", "26d", "99999999999999999999d", "9999999999h"} {
		r := e.local("POST", "/_sandbox/clock/advance?by="+by, "")
		wantError(t, r, 400, "bad_data", "cannot advance the sandbox clock by "+by+": it moves at most 100 years (36525d) in total and is already 36500d ahead, so at most 25d more...")
	}
	if r := e.local("POST", "/_sandbox/clock/advance?by=1h30m", ""); r.status != 200 {
		t.Fatalf("advance: %d %s", r.status, r.body)
	}
	wantError(t, e.local("POST", "/_sandbox/clock/advance?by=36600d", ""), 400, "bad_data",
		"cannot advance the sandbox clock by 36600d: it moves at most 100 years (36525d) in total and is already 36500d1h30m0s ahead, so at most 24d22h30m0s more...")
	for d, want := range map[time.Duration]string{0: "0s", 90 * time.Second: "1m30s", 24 * time.Hour: "1d", store.MaxClockOffset: "36525d"} {
		if got := store.Span(d); got != want {
			t.Errorf("span(%s) = %q, want %q", d, got, want)
		}
	}
}
