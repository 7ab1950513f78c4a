package payments

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// statusServer answers the payment with the statuses given, one per read,
// the last one repeated.
func statusServer(t *testing.T, statuses ...string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var reads atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(reads.Add(1)) - 1
		st := statuses[min(n, len(statuses)-1)]
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(api.Payment{ID: movedPaymentID, Status: st, Currency: "AED", Captures: []api.Capture{}, Refunds: []api.Refund{}})
	}))
	t.Cleanup(srv.Close)
	return srv, &reads
}

// waitOptions runs on a fake clock that sleeping moves forward.
func waitOptions(t *testing.T, url string) (*WaitOptions, *[]string) {
	t.Helper()
	h := newHarness(t, url, "sk_test_ae_sandbox")
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	var notices []string
	return &WaitOptions{
		onePayment: onePayment{
			ID:      movedPaymentID,
			Client:  h.f.Client,
			Printer: func() (*output.Printer, error) { return output.NewPrinter(h.f.IO, output.Options{Format: "json"}) },
		},
		Timeout: time.Minute, Interval: 10 * time.Second,
		Now:    func() time.Time { return now },
		Sleep:  func(ctx context.Context, d time.Duration) error { now = now.Add(d); return ctx.Err() },
		Notice: func(format string, args ...any) { notices = append(notices, format) },
	}, &notices
}

func TestWaitReachesTheStatus(t *testing.T) {
	srv, reads := statusServer(t, "CREATED", "CREATED", "AUTHORIZED")
	o, notices := waitOptions(t, srv.URL)
	o.Status = "AUTHORIZED"
	if err := waitRun(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if reads.Load() != 3 {
		t.Errorf("%d reads, want 3", reads.Load())
	}
	if len(*notices) != 1 {
		t.Errorf("want one notice of the change, got %v", *notices)
	}
}

func TestWaitTimesOut(t *testing.T) {
	srv, reads := statusServer(t, "CREATED")
	o, _ := waitOptions(t, srv.URL)
	o.Status = "AUTHORIZED"
	err := waitRun(context.Background(), o)
	var we *WaitError
	if !errors.As(err, &we) || !we.TimedOut || we.Last != "CREATED" {
		t.Fatalf("err = %v", err)
	}
	if cmdutil.ExitCode(err) != 13 {
		t.Errorf("exit %d, want 13", cmdutil.ExitCode(err))
	}
	// A minute at 10s intervals: the first read and one after each wait.
	if reads.Load() != 7 {
		t.Errorf("%d reads, want 7", reads.Load())
	}
	if !strings.Contains(we.Hint(), "sandbox approve") {
		t.Errorf("hint %q", we.Hint())
	}
}

func TestWaitStopsWhenTheStatusCannotCome(t *testing.T) {
	srv, reads := statusServer(t, "CREATED", "REJECTED")
	o, _ := waitOptions(t, srv.URL)
	o.Status = "AUTHORIZED"
	err := waitRun(context.Background(), o)
	var we *WaitError
	if !errors.As(err, &we) || we.TimedOut || we.Last != "REJECTED" {
		t.Fatalf("err = %v", err)
	}
	if cmdutil.ExitCode(err) != 14 {
		t.Errorf("exit %d, want 14", cmdutil.ExitCode(err))
	}
	if reads.Load() != 2 {
		t.Errorf("%d reads", reads.Load())
	}
}

func TestCanBecome(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"CREATED", "AUTHORIZED", true},
		{"CREATED", "CLOSED", true},
		{"AUTHORIZED", "CLOSED", true},
		{"AUTHORIZED", "CREATED", false},
		{"CLOSED", "AUTHORIZED", false},
		{"REJECTED", "AUTHORIZED", false},
		{"EXPIRED", "CLOSED", false},
	} {
		if got := canBecome(c.from, c.to); got != c.ok {
			t.Errorf("%s → %s = %t", c.from, c.to, got)
		}
	}
}
