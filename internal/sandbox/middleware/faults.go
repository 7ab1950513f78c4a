package middleware

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
)

// Faults let a client's retry and reconciliation code be tested against the
// failures a real service has: refusals that changed nothing, and worse,
// answers lost after the change was committed. They apply to the service's
// paths (/api/...) only: the /_sandbox control endpoints and the hosted page
// are how a test sets things up and looks at them, and must stay reliable.
//
// One uniform draw per request picks at most one kind, so rates add up: a
// spec of five kinds at 0.06 faults 30% of requests. A kind that does not
// apply to a request (lock on a read) leaves that draw unfaulted rather
// than drawing again, so the sequence of draws depends only on the sequence
// of requests, which is what makes a seed repeatable.

// FaultKind names one kind of injected failure.
type FaultKind string

// The kinds, in the order a draw walks them.
const (
	Fault500Before FaultKind = "500-before" // 500 Internal Server Error; the request is not run
	Fault500After  FaultKind = "500-after"  // the request runs and commits, then 500 replaces its answer
	FaultDropAfter FaultKind = "drop-after" // the request runs and commits, then the connection is dropped
	FaultLock      FaultKind = "lock"       // 409 payment is locked; writes on a payment only
	Fault429       FaultKind = "429"        // 429 with Retry-After; the request is not run
)

// FaultKinds lists every kind, in draw order.
func FaultKinds() []FaultKind {
	return []FaultKind{Fault500Before, Fault500After, FaultDropAfter, FaultLock, Fault429}
}

// FaultSpec is what `bnpl sandbox serve --faults` asks for. The zero value
// injects nothing.
type FaultSpec struct {
	// Rates are probabilities per request, 0 to 1, summing to at most 1.
	Rates map[FaultKind]float64
	// Latency is added before every request on the service's paths,
	// faulted or not.
	Latency time.Duration
	// RetryAfter is the 429 fault's Retry-After in seconds: 0 means 1,
	// a negative value sends no Retry-After at all (a client then falls
	// back on its own backoff).
	RetryAfter int
	// Deliveries are the faults of webhook deliveries (deliveryfaults.go).
	Deliveries outbox.DeliveryFaults
}

// Enabled reports whether the spec changes anything.
func (f FaultSpec) Enabled() bool {
	if f.Latency > 0 {
		return true
	}
	for _, r := range f.Rates {
		if r > 0 {
			return true
		}
	}
	return false
}

// String is the spec in the --faults syntax, kinds in draw order.
func (f FaultSpec) String() string {
	var parts []string
	for _, k := range FaultKinds() {
		if r := f.Rates[k]; r > 0 {
			parts = append(parts, string(k)+"="+strconv.FormatFloat(r, 'g', -1, 64))
		}
	}
	if f.Latency > 0 {
		parts = append(parts, "latency="+f.Latency.String())
	}
	parts = append(parts, f.Deliveries.Parts()...)
	switch {
	case f.RetryAfter < 0:
		parts = append(parts, "retry-after=0")
	case f.RetryAfter > 1:
		parts = append(parts, "retry-after="+strconv.Itoa(f.RetryAfter))
	}
	return strings.Join(parts, ",")
}

// faultSpecHelp is appended to every parse error, so that a typo is
// answered with the whole grammar.
const faultSpecHelp = "the spec is comma-separated kind=rate pairs with kinds 500-before, 500-after, drop-after, lock, 429 " +
	"(rates from 0 to 1, summing to at most 1), plus latency=DURATION and retry-after=SECONDS, " +
	"and for webhook deliveries dup, reorder, fail (rates summing to at most 1) and late=DURATION, " +
	"e.g. 500-after=0.1,drop-after=0.1,latency=5ms or dup=0.2,late=2s"

// ParseFaultSpec reads the --faults syntax: comma-separated kind=rate
// pairs, plus latency=DURATION (Go syntax, e.g. 5ms) and retry-after=N
// (seconds, for the 429 kind; 0 leaves the header out). An empty spec
// injects nothing.
func ParseFaultSpec(spec string) (FaultSpec, error) {
	out := FaultSpec{Rates: map[FaultKind]float64{}}
	if strings.TrimSpace(spec) == "" {
		return out, nil
	}
	known := map[FaultKind]bool{}
	for _, k := range FaultKinds() {
		known[k] = true
	}
	seen := map[string]bool{}
	sum := 0.0
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, value, ok := strings.Cut(part, "=")
		name, value = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(value)
		if !ok || value == "" {
			return FaultSpec{}, fmt.Errorf("%q has no value: %s", part, faultSpecHelp)
		}
		if seen[name] {
			return FaultSpec{}, fmt.Errorf("%s is given twice: %s", name, faultSpecHelp)
		}
		seen[name] = true
		switch {
		case name == "latency":
			d, err := time.ParseDuration(value)
			if err != nil || d < 0 {
				return FaultSpec{}, fmt.Errorf("latency=%s is not a duration such as 5ms: %s", value, faultSpecHelp)
			}
			out.Latency = d
		case name == "retry-after":
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 || n > 3600 {
				return FaultSpec{}, fmt.Errorf("retry-after=%s is not a number of seconds from 0 to 3600: %s", value, faultSpecHelp)
			}
			if n == 0 {
				n = -1
			}
			out.RetryAfter = n
		case outbox.IsDeliveryFault(name):
			if err := out.Deliveries.Set(name, value); err != nil {
				return FaultSpec{}, fmt.Errorf("%v: %s", err, faultSpecHelp)
			}
		case known[FaultKind(name)]:
			r, err := strconv.ParseFloat(value, 64)
			if err != nil || math.IsNaN(r) || r < 0 || r > 1 {
				return FaultSpec{}, fmt.Errorf("%s=%s is not a rate from 0 to 1: %s", name, value, faultSpecHelp)
			}
			out.Rates[FaultKind(name)] = r
			sum += r
		default:
			return FaultSpec{}, fmt.Errorf("unknown fault kind %q: %s", name, faultSpecHelp)
		}
	}
	// One draw picks one kind, so the rates share the unit interval; a
	// small tolerance forgives decimal rates whose float sum is 1.0000001.
	if sum > 1+1e-9 {
		return FaultSpec{}, fmt.Errorf("the rates add up to %g, more than 1: %s", sum, faultSpecHelp)
	}
	if sum := out.Deliveries.RateSum(); sum > 1+1e-9 {
		return FaultSpec{}, fmt.Errorf("the delivery rates (dup, reorder, fail) add up to %g, more than 1: %s", sum, faultSpecHelp)
	}
	return out, nil
}

// FaultInjector draws the faults of one sandbox, shared by its regions.
type FaultInjector struct {
	Spec FaultSpec
	Seed int64

	mu     sync.Mutex
	rng    *rand.Rand
	counts map[FaultKind]int
}

func NewFaultInjector(spec FaultSpec, seed int64) *FaultInjector {
	if seed == 0 {
		seed = rand.Int64()
	}
	return &FaultInjector{
		Spec:   spec,
		Seed:   seed,
		rng:    rand.New(rand.NewPCG(uint64(seed), 0x62_6e_70_6c)),
		counts: map[FaultKind]int{},
	}
}

// draw picks the fault for one request, "" for none.
func (f *FaultInjector) draw(r *http.Request) FaultKind {
	f.mu.Lock()
	defer f.mu.Unlock()
	u := f.rng.Float64()
	acc := 0.0
	for _, k := range FaultKinds() {
		acc += f.Spec.Rates[k]
		if u >= acc {
			continue
		}
		if k == FaultLock && !locksPayment(r) {
			return ""
		}
		f.counts[k]++
		return k
	}
	return ""
}

// locksPayment reports whether the service would take the payment's lock
// for r: the writes on one payment (update, capture, refund, close).
// DrawSeed is the seed the draws started from.
func (f *FaultInjector) DrawSeed() int64 { return f.Seed }

// Drawn counts the faults of each kind injected so far.
func (f *FaultInjector) Drawn() map[FaultKind]int {
	out := map[FaultKind]int{}
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, n := range f.counts {
		out[k] = n
	}
	return out
}

func locksPayment(r *http.Request) bool {
	if r.Method != http.MethodPost && r.Method != http.MethodPut {
		return false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/api/v2/payments/")
	return ok && rest != ""
}

var errInternal = &edge.Refusal{Status: 500, ErrorType: "internal", Message: "Internal Server Error"}

// errorTypeRateLimited is our choice: the interface document shows no body
// for 429, and this names the cause the way its other errorTypes do.
const errorTypeRateLimited = "rate_limited"

func FaultMiddleware(f *FaultInjector, h http.Handler) http.Handler {
	if f == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			h.ServeHTTP(w, r)
			return
		}
		if d := f.Spec.Latency; d > 0 && !waitLatency(r, d) {
			return // the client gave up during the wait: nothing runs
		}
		kind := f.draw(r)
		if kind != "" && kind != Fault500After && kind != FaultDropAfter {
			edge.NoteFault(r.Context(), string(kind), 0)
		}
		switch kind {
		case "":
			h.ServeHTTP(w, r)
		case Fault500Before:
			edge.WriteError(w, errInternal)
		case FaultLock:
			edge.WriteError(w, edge.ErrLocked)
		case Fault429:
			secs := f.Spec.RetryAfter
			if secs == 0 {
				secs = 1
			}
			if secs > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(secs))
			}
			edge.WriteError(w, &edge.Refusal{Status: http.StatusTooManyRequests, ErrorType: errorTypeRateLimited, Message: "too many requests"})
		case Fault500After:
			// The handler commits into a buffer nobody reads; the client
			// gets the 500 a crash between commit and answer would give.
			ran := edge.NewRecorder()
			h.ServeHTTP(ran, r)
			edge.NoteFault(r.Context(), string(kind), ran.Status)
			edge.WriteError(w, errInternal)
		case FaultDropAfter:
			ran := edge.NewRecorder()
			h.ServeHTTP(ran, r)
			edge.NoteFault(r.Context(), string(kind), ran.Status)
			dropConnection(w)
		}
	})
}

// dropConnection ends the exchange with no answer at all. A hijacked
// connection is closed outright; where there is none to hijack (HTTP/2,
// the in-process Transport), ErrAbortHandler makes net/http reset the
// stream and makes the Transport fail the round trip.
func dropConnection(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		conn.Close()
		return
	}
	panic(http.ErrAbortHandler)
}
