package middleware

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// An answer no handler writes (a fault, a 429) carries the sandbox's
// clock as its Date, a fixed one too; a handler's own Date is kept.
func TestDateIsTheSandboxClock(t *testing.T) {
	start := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	st, err := store.OpenState("", store.NewSteppingClock(start), time.Hour, store.BuiltinMerchants(), 7)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.DB.Close() })
	refused := DateMiddleware(st, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	rec := httptest.NewRecorder()
	refused.ServeHTTP(rec, httptest.NewRequest("POST", "/api/v2/payments/x/captures", nil))
	if got, want := rec.Header().Get("Date"), start.Format(http.TimeFormat); got != want {
		t.Fatalf("Date %q, want the sandbox's %q", got, want)
	}
	own := DateMiddleware(st, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Date", "Fri, 01 Jan 2100 00:00:01 GMT")
	}))
	rec = httptest.NewRecorder()
	own.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if got := rec.Header().Get("Date"); got != "Fri, 01 Jan 2100 00:00:01 GMT" {
		t.Fatalf("Date %q: the handler's own was overwritten", got)
	}
}
