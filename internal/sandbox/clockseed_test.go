package sandbox

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// fixedEnv is a sandbox on a fixed clock from start (Options.ClockStart),
// ids seeded by 7.
func fixedEnv(t *testing.T, path string, start time.Time) *env {
	t.Helper()
	sb, err := New(Options{StatePath: path, ClockStart: start, Seed: 7, NoRequestLog: true,
		PublicURLs: map[string]string{"ae": "http://ae.sandbox.test", "sa": "http://sa.sandbox.test"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return &env{t: t, sb: sb}
}

func (e *env) clockNow() time.Time {
	e.t.Helper()
	r := e.local("GET", "/_sandbox/clock", "")
	if r.status != 200 {
		e.t.Fatalf("clock: %d %s", r.status, r.body)
	}
	at, err := time.Parse(time.RFC3339Nano, r.json(e.t)["now"].(string))
	if err != nil {
		e.t.Fatal(err)
	}
	return at
}

// A fixed clock starts where told, stays put on reads, moves ClockStep
// before every write (refused ones too) and by advances; timers fire only
// when it passes them.
func TestFixedClockSteps(t *testing.T) {
	start := time.Date(2030, 6, 1, 9, 0, 0, 0, time.UTC)
	e := fixedEnv(t, "", start)
	if !e.sb.FixedClock() {
		t.Fatal("FixedClock() = false with ClockStart set")
	}
	if got := e.clockNow(); !got.Equal(start) {
		t.Fatalf("clock starts at %s, want %s", got, start)
	}
	e.clockNow() // a read does not move it
	s := e.createSession(checkoutBody("ae-sandbox", "AED", "100.00"), aeTest)
	if want := start.Add(ClockStep); !s.Payment.CreatedAt.Equal(want) {
		t.Fatalf("created_at %s, want %s", s.Payment.CreatedAt, want)
	}
	if r := e.do("ae", "GET", "/api/v2/payments/"+s.Payment.ID, aeTest, nil); r.header.Get("Date") != start.Add(ClockStep).Format("Mon, 02 Jan 2006 15:04:05 GMT") {
		t.Fatalf("Date %q is not the sandbox's clock", r.header.Get("Date"))
	}
	// A refused write moves it too: the requests, not their outcomes,
	// set the times.
	if r := e.do("ae", "POST", "/api/v2/payments/"+s.Payment.ID+"/captures", aeTest, map[string]any{"amount": "1.00"}); r.status != 400 {
		t.Fatalf("capture of a CREATED payment: %d %s", r.status, r.body)
	}
	if got, want := e.clockNow(), start.Add(2*ClockStep); !got.Equal(want) {
		t.Fatalf("after a refused write the clock is %s, want %s", got, want)
	}
	// 30 minutes pass only by an advance.
	for range 5 {
		e.createSession(checkoutBody("ae-sandbox", "AED", "1.00"), aeTest)
	}
	if p := e.get(s.Payment.ID); p.Status != "CREATED" {
		t.Fatalf("status %s before any advance", p.Status)
	}
	if r := e.local("POST", "/_sandbox/clock/advance?by=29m", ""); r.status != 200 {
		t.Fatalf("advance: %d %s", r.status, r.body)
	}
	if p := e.get(s.Payment.ID); p.Status != "CREATED" {
		t.Fatalf("status %s 29 minutes on", p.Status)
	}
	e.local("POST", "/_sandbox/clock/advance?by=1m", "")
	if p := e.get(s.Payment.ID); p.Status != "EXPIRED" {
		t.Fatalf("status %s 30 minutes on", p.Status)
	}
	// The rate limiter keeps real time: its buckets refill by the second.
	if _, ok := store.MachineClock(e.sb.Clock).(store.RealClock); !ok {
		t.Fatal("the rate limiter would run on the fixed clock")
	}
}

// Two sandboxes on a fixed clock and the same seed that get the same
// requests answer the same bytes.
func TestFixedClockRepeats(t *testing.T) {
	run := func() []byte {
		e := fixedEnv(t, "", SeededClockStart)
		var out bytes.Buffer
		s := e.createSession(checkoutBody("ae-sandbox", "AED", "100.00"), aeTest)
		for _, step := range []struct{ method, path string }{
			{"POST", "/_sandbox/payments/" + s.Payment.ID + "/approve"},
			{"POST", "/_sandbox/clock/advance?by=2h"},
		} {
			out.Write(e.local(step.method, step.path, "").body)
		}
		for _, step := range []struct {
			path string
			body map[string]any
		}{
			{"/captures", map[string]any{"amount": "60.00", "reference_id": "c1"}},
			{"/close", nil},
			{"/refunds", map[string]any{"amount": "10.00", "reference_id": "r1"}},
		} {
			out.Write(e.do("ae", "POST", "/api/v2/payments/"+s.Payment.ID+step.path, aeTest, step.body).body)
		}
		out.Write(e.do("ae", "GET", "/api/v2/payments/"+s.Payment.ID, aeTest, nil).body)
		return out.Bytes()
	}
	a, b := run(), run()
	if !bytes.Equal(a, b) {
		t.Fatalf("two runs differ:\n%s\n%s", a, b)
	}
	if !bytes.Contains(a, []byte(`"created_at":"2100-01-01T02:00:04Z"`)) {
		t.Fatalf("no capture at start + 2h + 4 writes in %s", a)
	}
}

// On a state that already holds payments the fixed clock starts where the
// state is, not at its start: a jump years ahead would expire what it
// holds.
func TestFixedClockOnUsedState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	e := newEnv(t, Options{StatePath: path, Clock: store.RealClock{}})
	id := e.authorized("100.00")
	e.sb.Close()
	before := time.Now()
	e2 := fixedEnv(t, path, SeededClockStart)
	if now := e2.clockNow(); now.Before(before) || now.After(time.Now()) {
		t.Fatalf("clock at %s, want the machine's time (about %s)", now, before)
	}
	if r := e2.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, map[string]any{"amount": "10.00"}); r.status != 200 {
		t.Fatalf("capture on a used state: %d %s", r.status, r.body)
	}
}
