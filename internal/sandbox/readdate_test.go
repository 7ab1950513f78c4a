package sandbox

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"
)

// A payment's read takes its Date from the clock it read the payment by,
// advances included, from a state file's readers as in memory; so do its
// refusals (unknown payment, malformed id, wrong key), which read the
// clock apart. Each answer's Date is its own second's, not an earlier
// one's.
func TestPaymentReadDateIsTheSandboxClock(t *testing.T) {
	inEachState(t, func(t *testing.T, e *env) {
		s := e.createSession(checkoutBody("ae-sandbox", "AED", "100.00"), aeTest)
		e.advance49h()
		want := e.clockNow().Format(http.TimeFormat)
		for _, c := range []struct {
			name, path, key string
			status          int
		}{
			{"the payment", "/api/v2/payments/" + s.Payment.ID, aeTest, 200},
			{"an unknown payment", "/api/v2/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6", aeTest, 404},
			{"a malformed id", "/api/v2/payments/not-an-id", aeTest, 400},
			{"a wrong key", "/api/v2/payments/" + s.Payment.ID, "sk_test_nobody", 401},
		} {
			r := e.do("ae", "GET", c.path, c.key, nil)
			if r.status != c.status {
				t.Errorf("%s: %d %s, want %d", c.name, r.status, r.body, c.status)
			}
			if got := r.header.Get("Date"); got != want {
				t.Errorf("%s: Date %q, want the sandbox's clock %q", c.name, got, want)
			}
		}
	})
}

// A checkout and a move take their Date from the one read of the clock
// they make (a move's in its own transaction): the second of the
// created_at they answer, advances included; their refusals, answered
// before that read, are dated by the sandbox's clock too. (The test's
// clock steps on each read: a Date is checked to lie between the clock
// read before its request and the one after.)
func TestMoveAndCheckoutDateIsTheClockTheyRanAt(t *testing.T) {
	inEachState(t, func(t *testing.T, e *env) {
		id := e.authorized("100.00")
		e.advance49h()
		base := "/api/v2/payments/" + id
		createdAt := func(key string) func(map[string]any) string {
			return func(m map[string]any) string { return m[key].([]any)[0].(map[string]any)["created_at"].(string) }
		}
		for _, c := range []struct {
			name, path, key string
			body            any
			status          int
			at              func(map[string]any) string
		}{
			{"a checkout", "/api/v2/checkout", aeTest, checkoutBody("ae-sandbox", "AED", "10.00"), 200,
				func(m map[string]any) string { return m["payment"].(map[string]any)["created_at"].(string) }},
			{"a capture", base + "/captures", aeTest, map[string]any{"amount": "40.00", "reference_id": "d-1"}, 200, createdAt("captures")},
			{"a close", base + "/close", aeTest, nil, 200, nil},
			{"a refund", base + "/refunds", aeTest, map[string]any{"amount": "10.00", "reference_id": "d-2"}, 200, createdAt("refunds")},
			{"a capture of an unknown payment", "/api/v2/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6/captures", aeTest,
				map[string]any{"amount": "1.00"}, 404, nil},
			{"a capture refused by the payment", base + "/captures", aeTest, map[string]any{"amount": "1.00"}, 400, nil},
			{"a capture of a malformed body", base + "/captures", aeTest, "{", 400, nil},
			{"a capture with a wrong key", base + "/captures", "sk_test_nobody", map[string]any{"amount": "1.00"}, 401, nil},
			{"a checkout of a malformed body", "/api/v2/checkout", aeTest, "{", 400, nil},
		} {
			before := e.clockNow().Truncate(time.Second)
			r := e.do("ae", "POST", c.path, c.key, c.body)
			after := e.clockNow()
			if r.status != c.status {
				t.Errorf("%s: %d %s, want %d", c.name, r.status, r.body, c.status)
				continue
			}
			date, err := http.ParseTime(r.header.Get("Date"))
			if err != nil || date.Before(before) || date.After(after) {
				t.Errorf("%s: Date %q (%v), want the sandbox's clock between %s and %s", c.name, r.header.Get("Date"), err, before, after)
			}
			if c.at == nil {
				continue
			}
			at, err := time.Parse(time.RFC3339Nano, c.at(r.json(t)))
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if !at.Truncate(time.Second).Equal(date) {
				t.Errorf("%s: created_at %s is not of the second of its Date %s", c.name, at, date)
			}
		}
	})
}

// inEachState runs fn with a sandbox whose clock starts at a fixed time,
// its state in memory and in a file.
func inEachState(t *testing.T, fn func(t *testing.T, e *env)) {
	for _, mode := range []string{"memory", "file"} {
		t.Run(mode, func(t *testing.T) {
			path := ""
			if mode == "file" {
				path = filepath.Join(t.TempDir(), "state.db")
			}
			fn(t, fixedEnv(t, path, time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)))
		})
	}
}

// advance49h moves the sandbox's clock 49 hours on.
func (e *env) advance49h() {
	e.t.Helper()
	if r := e.local("POST", "/_sandbox/clock/advance?by=49h", ""); r.status != 200 {
		e.t.Fatalf("advance: %d %s", r.status, r.body)
	}
}
