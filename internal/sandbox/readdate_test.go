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
	for _, mode := range []string{"memory", "file"} {
		t.Run(mode, func(t *testing.T) {
			start := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
			path := ""
			if mode == "file" {
				path = filepath.Join(t.TempDir(), "state.db")
			}
			e := fixedEnv(t, path, start)
			s := e.createSession(checkoutBody("ae-sandbox", "AED", "100.00"), aeTest)
			if r := e.local("POST", "/_sandbox/clock/advance?by=49h", ""); r.status != 200 {
				t.Fatalf("advance: %d %s", r.status, r.body)
			}
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
}
