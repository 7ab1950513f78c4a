package sandbox

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
	"github.com/bnpl-cli/bnpl/internal/sandbox/reqlog"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

func TestFaultSpecParse(t *testing.T) {
	valid := []struct {
		in   string
		want middleware.FaultSpec
		str  string
	}{
		{"", middleware.FaultSpec{}, ""},
		{"500-before=0.1", middleware.FaultSpec{Rates: map[middleware.FaultKind]float64{middleware.Fault500Before: 0.1}}, "500-before=0.1"},
		{" latency=5ms , 500-AFTER=0.2,drop-after=0.3 ", middleware.FaultSpec{Rates: map[middleware.FaultKind]float64{middleware.Fault500After: 0.2, middleware.FaultDropAfter: 0.3}, Latency: 5 * time.Millisecond},
			"500-after=0.2,drop-after=0.3,latency=5ms"},
		{"lock=1", middleware.FaultSpec{Rates: map[middleware.FaultKind]float64{middleware.FaultLock: 1}}, "lock=1"},
		{"429=0.5,retry-after=3", middleware.FaultSpec{Rates: map[middleware.FaultKind]float64{middleware.Fault429: 0.5}, RetryAfter: 3}, "429=0.5,retry-after=3"},
		{"429=0.5,retry-after=0", middleware.FaultSpec{Rates: map[middleware.FaultKind]float64{middleware.Fault429: 0.5}, RetryAfter: -1}, "429=0.5,retry-after=0"},
		{"500-before=0.2,500-after=0.2,drop-after=0.2,lock=0.2,429=0.2", middleware.FaultSpec{Rates: map[middleware.FaultKind]float64{
			middleware.Fault500Before: 0.2, middleware.Fault500After: 0.2, middleware.FaultDropAfter: 0.2, middleware.FaultLock: 0.2, middleware.Fault429: 0.2}},
			"500-before=0.2,500-after=0.2,drop-after=0.2,lock=0.2,429=0.2"},
	}
	for _, c := range valid {
		got, err := middleware.ParseFaultSpec(c.in)
		if err != nil {
			t.Errorf("ParseFaultSpec(%q): %v", c.in, err)
			continue
		}
		if got.Latency != c.want.Latency || got.RetryAfter != c.want.RetryAfter || len(nonZero(got.Rates)) != len(c.want.Rates) {
			t.Errorf("ParseFaultSpec(%q) = %+v, want %+v", c.in, got, c.want)
		}
		for k, r := range c.want.Rates {
			if got.Rates[k] != r {
				t.Errorf("ParseFaultSpec(%q): %s = %g, want %g", c.in, k, got.Rates[k], r)
			}
		}
		if got.String() != c.str {
			t.Errorf("ParseFaultSpec(%q).String() = %q, want %q", c.in, got.String(), c.str)
		}
		if again, err := middleware.ParseFaultSpec(got.String()); err != nil || again.String() != got.String() {
			t.Errorf("round trip of %q: %q, %v", got.String(), again.String(), err)
		}
	}

	invalid := []struct{ in, want string }{
		{"500=0.1", `unknown fault kind "500"`},
		{"timeout=0.1", `unknown fault kind "timeout"`},
		{"500-before", "has no value"},
		{"500-before=", "has no value"},
		{"500-before=abc", "not a rate from 0 to 1"},
		{"500-before=1.5", "not a rate from 0 to 1"},
		{"500-before=-0.1", "not a rate from 0 to 1"},
		{"500-before=NaN", "not a rate from 0 to 1"},
		{"500-before=0.6,500-after=0.6", "add up to 1.2, more than 1"},
		{"lock=0.1,lock=0.2", "lock is given twice"},
		{"latency=fast", "not a duration"},
		{"latency=-5ms", "not a duration"},
		{"retry-after=x", "not a number of seconds"},
	}
	for _, c := range invalid {
		_, err := middleware.ParseFaultSpec(c.in)
		if err == nil {
			t.Errorf("ParseFaultSpec(%q) accepted it", c.in)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) {
			t.Errorf("ParseFaultSpec(%q) = %q, want it to say %q", c.in, msg, c.want)
		}
		// Every error lists the grammar, so a typo needs no trip to the docs.
		for _, k := range middleware.FaultKinds() {
			if !strings.Contains(msg, string(k)) {
				t.Errorf("ParseFaultSpec(%q) = %q does not list kind %s", c.in, msg, k)
			}
		}
		if !strings.Contains(msg, "latency=DURATION") {
			t.Errorf("ParseFaultSpec(%q) = %q does not mention latency", c.in, msg)
		}
	}
}

// nonZero is m without its zero values.
func nonZero[V int | float64](m map[middleware.FaultKind]V) map[middleware.FaultKind]V {
	out := map[middleware.FaultKind]V{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// faultPair is two sandboxes over one state file: clean sets payments up
// and looks at them, faulty has the faults under test, as a test suite
// would run a faulty `sandbox serve` next to `bnpl sandbox` commands.
type faultPair struct {
	clean, faulty *env
}

func newFaultPair(t *testing.T, spec string) *faultPair {
	t.Helper()
	fs, err := middleware.ParseFaultSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state.db")
	clean := newEnv(t, Options{StatePath: state})
	faulty := newEnv(t, Options{StatePath: state, Clock: clean.clock, Faults: fs, Seed: 1})
	return &faultPair{clean: clean, faulty: faulty}
}

const captureRef = `{"amount": "10.00", "reference_id": "fault-1"}`

func (p *faultPair) captures(id string) []wire.Capture {
	return p.clean.get(id).Captures
}

// capture sends the faulty sandbox a capture of id (captureRef).
func (p *faultPair) capture(id string) resp {
	return p.faulty.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, captureRef)
}

// wantFaults checks how many faults of kind the faulty sandbox injected.
func (p *faultPair) wantFaults(t *testing.T, kind middleware.FaultKind, want int) {
	t.Helper()
	if n := p.faulty.sb.FaultCounts()[kind]; n != want {
		t.Fatalf("FaultCounts %s = %d, want %d", kind, n, want)
	}
}

func TestFault500BeforeChangesNothing(t *testing.T) {
	p := newFaultPair(t, "500-before=1")
	id := p.clean.authorized("100.00")
	r := p.capture(id)
	wantError(t, r, 500, "internal", "Internal Server Error")
	if c := p.captures(id); len(c) != 0 {
		t.Fatalf("500-before committed a capture: %+v", c)
	}
	// Reads are faulted too: a client's reads must survive a 500.
	wantError(t, p.faulty.do("ae", "GET", "/api/v2/payments/"+id, aeTest, nil), 500, "internal", "Internal Server Error")
	p.wantFaults(t, middleware.Fault500Before, 2)
}

func TestFault500AfterCommits(t *testing.T) {
	p := newFaultPair(t, "500-after=1")
	id := p.clean.authorized("100.00")
	r := p.capture(id)
	wantError(t, r, 500, "internal", "Internal Server Error")
	c := p.captures(id)
	if len(c) != 1 || c[0].ReferenceID != "fault-1" || c[0].Amount.StringFixed(2) != "10.00" {
		t.Fatalf("captures after 500-after: %+v, want the one capture", c)
	}
	// The retry a client makes with the same reference_id adds nothing.
	wantError(t, p.capture(id), 500, "internal", "Internal Server Error")
	if c := p.captures(id); len(c) != 1 {
		t.Fatalf("a retry captured again: %+v", c)
	}
}

func TestFaultDropAfterCommits(t *testing.T) {
	p := newFaultPair(t, "drop-after=1")
	id := p.clean.authorized("100.00")

	srv := httptest.NewServer(p.faulty.sb.Handler("ae"))
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/api/v2/payments/"+id+"/captures", strings.NewReader(captureRef))
	req.Header.Set("Authorization", "Bearer "+aeTest)
	res, err := srv.Client().Do(req)
	if err == nil {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		t.Fatalf("drop-after answered %d %s, want a dropped connection", res.StatusCode, b)
	}
	c := p.captures(id)
	if len(c) != 1 || c[0].ReferenceID != "fault-1" {
		t.Fatalf("captures after drop-after: %+v, want the one capture", c)
	}

	// The in-process Transport fails the round trip the way a socket would.
	hc := &http.Client{Transport: p.faulty.sb.Transport("ae")}
	req, _ = http.NewRequest("POST", "http://sandbox.test/api/v2/payments/"+id+"/captures",
		strings.NewReader(`{"amount": "5.00", "reference_id": "fault-2"}`))
	req.Header.Set("Authorization", "Bearer "+aeTest)
	if res, err := hc.Do(req); !errors.Is(err, io.ErrUnexpectedEOF) {
		if err == nil {
			res.Body.Close()
		}
		t.Fatalf("in-process drop: %v, want io.ErrUnexpectedEOF", err)
	}
	if c := p.captures(id); len(c) != 2 || c[1].ReferenceID != "fault-2" {
		t.Fatalf("captures after in-process drop-after: %+v", c)
	}
}

func TestFaultLock(t *testing.T) {
	p := newFaultPair(t, "lock=1")
	id := p.clean.authorized("100.00")
	for _, path := range []string{"/captures", "/close"} {
		r := p.faulty.do("ae", "POST", "/api/v2/payments/"+id+path, aeTest, captureRef)
		wantError(t, r, 409, "conflict", "could not acquire lock: payment is locked")
	}
	got := p.clean.get(id)
	if len(got.Captures) != 0 || got.Status != wire.StatusAuthorized {
		t.Fatalf("lock changed the payment: %s %+v", got.Status, got.Captures)
	}
	// The service locks a payment for writes only; reads and checkouts
	// pass, and their draws are spent without a fault.
	if r := p.faulty.do("ae", "GET", "/api/v2/payments/"+id, aeTest, nil); r.status != 200 {
		t.Fatalf("GET under lock=1: %d %s", r.status, r.body)
	}
	if r := p.faulty.do("ae", "POST", "/api/v2/checkout", aeTest, checkoutBody("ae-sandbox", "AED", "10.00")); r.status != 200 {
		t.Fatalf("checkout under lock=1: %d %s", r.status, r.body)
	}
	p.wantFaults(t, middleware.FaultLock, 2)
}

func TestFault429(t *testing.T) {
	p := newFaultPair(t, "429=1")
	id := p.clean.authorized("100.00")
	r := p.capture(id)
	wantError(t, r, 429, "rate_limited", "too many requests")
	if got := r.header.Get("Retry-After"); got != "1" {
		t.Fatalf("Retry-After %q, want 1", got)
	}
	if c := p.captures(id); len(c) != 0 {
		t.Fatalf("429 committed a capture: %+v", c)
	}

	for _, c := range []struct{ spec, want string }{{"429=1,retry-after=0", ""}, {"429=1,retry-after=7", "7"}} {
		q := newFaultPair(t, c.spec)
		r := q.faulty.do("ae", "GET", "/api/v2/payments/"+id, aeTest, nil)
		if r.status != 429 || r.header.Get("Retry-After") != c.want {
			t.Fatalf("%s: %d Retry-After %q, want 429 %q", c.spec, r.status, r.header.Get("Retry-After"), c.want)
		}
	}
}

func TestFaultLatency(t *testing.T) {
	p := newFaultPair(t, "latency=100ms")
	id := p.clean.authorized("100.00")
	start := time.Now()
	if r := p.faulty.do("ae", "GET", "/api/v2/payments/"+id, aeTest, nil); r.status != 200 {
		t.Fatalf("GET: %d %s", r.status, r.body)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Fatalf("GET took %s, want at least the 100ms latency", d)
	}
	// Control endpoints are not slowed: under a day's latency the clock
	// still answers (were it slowed, this would wait for the test's
	// time-out, however loaded the machine).
	slow := newFaultPair(t, "latency=24h")
	if r := slow.faulty.control("GET", "/_sandbox/clock"); r.status != 200 {
		t.Fatalf("clock: %d %s", r.status, r.body)
	}

	// A client that gives up during the wait gets nothing run.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, "POST", "/api/v2/payments/"+id+"/captures", strings.NewReader(captureRef))
	req.Header.Set("Authorization", "Bearer "+aeTest)
	p.faulty.sb.Handler("ae").ServeHTTP(httptest.NewRecorder(), req)
	if c := p.captures(id); len(c) != 0 {
		t.Fatalf("a request abandoned during the latency was run: %+v", c)
	}
}

func TestFaultControlEndpointsUnaffected(t *testing.T) {
	p := newFaultPair(t, "500-before=0.5,500-after=0.5")
	for i := range 20 {
		s := p.clean.createSession(checkoutBody("ae-sandbox", "AED", "100.00"), aeTest)
		paths := []string{"/_sandbox/hpp/" + s.ID, "/_sandbox/clock"}
		for _, path := range paths {
			if r := p.faulty.control("GET", path); r.status != 200 {
				t.Fatalf("%d: GET %s: %d %s", i, path, r.status, r.body)
			}
		}
		if r := p.faulty.control("POST", "/_sandbox/payments/"+s.Payment.ID+"/approve"); r.status != 200 {
			t.Fatalf("%d: approve: %d %s", i, r.status, r.body)
		}
	}
	if n := len(nonZero(p.faulty.sb.FaultCounts())); n != 0 {
		t.Fatalf("control endpoints drew faults: %v", p.faulty.sb.FaultCounts())
	}
}

// control calls a /_sandbox endpoint as a loopback client, which they
// require.
func (e *env) control(method, path string) resp {
	e.t.Helper()
	req := httptest.NewRequest(method, path, nil)
	req.RemoteAddr = "127.0.0.1:40000"
	w := httptest.NewRecorder()
	e.sb.Handler("ae").ServeHTTP(w, req)
	return resp{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
}

func TestFaultSeedRepeats(t *testing.T) {
	spec, err := middleware.ParseFaultSpec("500-before=0.2,500-after=0.2,lock=0.2,429=0.2")
	if err != nil {
		t.Fatal(err)
	}
	run := func(seed int64) (string, map[middleware.FaultKind]int) {
		e := newEnv(t, Options{Faults: spec, Seed: seed})
		var sb strings.Builder
		for i := range 200 {
			path := "/api/v2/payments/00000000-0000-4000-8000-000000000000"
			method := "GET"
			if i%2 == 1 {
				method, path = "POST", path+"/close"
			}
			r := e.do("ae", method, path, aeTest, nil)
			sb.WriteString(http.StatusText(r.status)[:1])
		}
		if e.sb.FaultSeed() != seed {
			t.Fatalf("FaultSeed %d, want %d", e.sb.FaultSeed(), seed)
		}
		return sb.String(), e.sb.FaultCounts()
	}
	a, ca := run(42)
	b, cb := run(42)
	c, _ := run(43)
	if a != b {
		t.Fatalf("seed 42 twice:\n%s\n%s", a, b)
	}
	if a == c {
		t.Fatalf("seeds 42 and 43 gave the same faults:\n%s", a)
	}
	for _, k := range []middleware.FaultKind{middleware.Fault500Before, middleware.Fault500After, middleware.FaultLock, middleware.Fault429} {
		if ca[k] != cb[k] || ca[k] == 0 {
			t.Fatalf("counts %v and %v, want equal and every kind seen", ca, cb)
		}
	}
	// With no seed one is picked, and reported so a run can be repeated.
	e := newEnv(t, Options{Faults: spec})
	if e.sb.FaultSeed() == 0 {
		t.Fatal("no seed was picked")
	}
	if newEnv(t, Options{}).sb.FaultSeed() != 0 {
		t.Fatal("a sandbox without faults reports a seed")
	}
}

// TestFaultServeBanner checks that serve names the faults and the seed, so a
// run can be repeated.
func TestFaultServeBanner(t *testing.T) {
	spec, _ := middleware.ParseFaultSpec("drop-after=0.1,latency=2ms")
	ctx, cancel := context.WithCancel(context.Background())
	out := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ServeOptions{AEAddr: freeAddr(t), SAAddr: freeAddr(t),
			Options: Options{Faults: spec, Seed: 9, RateLimit: true}}, out)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s := out.String()
		if strings.Contains(s, "MERCHANT") {
			if !strings.Contains(s, "faults            drop-after=0.1,latency=2ms (seed 9)") || !strings.Contains(s, "rate limit") {
				t.Errorf("banner does not name the faults and rate limit:\n%s", s)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no banner:\n%s", s)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// The request log marks each injected fault, so that a 500 that committed
// (500-after) is told from one that did not (500-before), and a dropped
// connection is logged with the status its request committed with.
func TestRequestLogMarksInjectedFaults(t *testing.T) {
	for _, c := range []struct {
		spec      string
		status    int // what the client got
		committed int
	}{
		{"500-before=1", 500, 0},
		{"500-after=1", 500, 200},
		{"drop-after=1", 0, 200},
		{"lock=1", 409, 0},
		{"429=1", 429, 0},
	} {
		p := newFaultPair(t, c.spec)
		id := p.clean.authorized("100.00")
		hc := &http.Client{Transport: p.faulty.sb.Transport("ae")}
		req, _ := http.NewRequest("POST", "http://sandbox.test/api/v2/payments/"+id+"/captures", strings.NewReader(captureRef))
		req.Header.Set("Authorization", "Bearer "+aeTest)
		if res, err := hc.Do(req); err == nil {
			res.Body.Close()
		}
		// The clean sandbox's own requests (the checkout) share the
		// state's log and may land in it at any time: only the capture
		// counts.
		list, err := p.faulty.sb.RequestLog(context.Background(), reqlog.LogFilter{Path: "/api/v2/payments/*/captures"})
		if err != nil || len(list) != 1 {
			t.Fatalf("%s: %d entries, %v", c.spec, len(list), err)
		}
		e := list[0]
		kind, _, _ := strings.Cut(c.spec, "=")
		if e.Fault != kind || e.Status != c.status || e.Committed != c.committed {
			t.Errorf("%s: logged fault %q status %d committed %d, want %q %d %d", c.spec, e.Fault, e.Status, e.Committed, kind, c.status, c.committed)
		}
	}
	// A request no fault touched is not marked.
	p := newFaultPair(t, "500-before=0.000001")
	p.faulty.do("ae", "GET", "/api/v2/payments/"+p.clean.authorized("1.00"), aeTest, nil)
	if list, _ := p.faulty.sb.RequestLog(context.Background(), reqlog.LogFilter{Path: "/api/v2/payments/*", Status: "200"}); len(list) != 1 || list[0].Fault != "" {
		t.Fatalf("an untouched request: %+v", list)
	}
}
