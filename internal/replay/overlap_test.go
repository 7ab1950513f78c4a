package replay

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/har"
)

// Captures sent at once are found to have overlapped, and replayed at
// once (each compared with the answer, among those of the run, that
// differs least from it). Which of them the service let through first is
// chance, so what the answers hold is not asserted here.
func TestVerifyReplaysOverlappingRequestsTogether(t *testing.T) {
	s := newStudio(t, nil)
	tenCapturesAtOnce(s, "500.00", "PAR-1", "10.00", "par")
	rec := s.recording()
	groups := 0
	for i := 0; i < len(rec.Exchanges); {
		j := overlapEnd(rec.Exchanges, i)
		if j-i > 1 {
			groups++
		}
		i = j
	}
	if groups == 0 {
		t.Skip("the captures did not overlap on this machine")
	}
	rep := verify(t, rec)
	if rep.Compared != rep.Exchanges || rep.Exchanges != 11 {
		t.Errorf("compared %d of %d exchanges, want 11 of 11", rep.Compared, rep.Exchanges)
	}
	ok := 0
	for _, x := range rec.Exchanges {
		if x.Status == 200 {
			ok++
		}
	}
	t.Logf("%d run(s) of overlapping requests, %d answered 200 when recorded; %d difference(s) on replay", groups, ok, len(rep.Differences))
}

// readAroundCapture serves the capture of a payment numbered which and a read of its payment in flight
// together, in the order asked: with captureFirst, the service takes the
// capture, answers the read (which lists it), and only then answers the
// capture; else it answers the read (which lists nothing) while the
// capture waits, then takes the capture. Either way the recording shows
// the two in flight together, and only the read's answer tells the order.
func readAroundCapture(captureFirst bool, which int32) func(http.Handler) http.Handler {
	arrived, taken, read := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var captures atomic.Int32
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/captures") && captures.Add(1) == which:
				close(arrived)
				if !captureFirst {
					<-read
					h.ServeHTTP(w, r)
					return
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				close(taken)
				<-read
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.WriteHeader(rec.Code)
				_, _ = w.Write(rec.Body.Bytes())
			case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/v2/payments/"):
				<-arrived
				if captureFirst {
					<-taken
				}
				h.ServeHTTP(w, r)
				close(read)
			default:
				h.ServeHTTP(w, r)
			}
		})
	}
}

// A payment read while its capture was in flight is replayed on the side
// of the capture its answer shows it on: after the capture when it lists
// it, before when it lists none. Sent at once on replay, the read would
// list the capture or not by chance, and verify would find a difference
// that is not one about half the time. So too where what the capture
// sent was shown before it: a capture made earlier (its id and texts are
// in every later answer of the payment), or the order's reference sent
// again as the capture's, shown by the checkout.
func TestAReadInFlightWithAWriteIsReplayedWhereItsAnswerShowsIt(t *testing.T) {
	for _, c := range []struct {
		name                 string
		captureFirst, before bool
		ref                  string
	}{
		{"capture first", true, true, "around-1"},
		{"read first", false, true, "around-1"},
		{"read first, the first capture", false, false, "around-1"},
		{"capture first, the first capture", true, false, "around-1"},
		{"read first, the order's reference", false, false, "AROUND-1"},
		{"read first, the order's reference, a capture before", false, true, "AROUND-1"},
		{"capture first, the order's reference", true, false, "AROUND-1"},
	} {
		for run := range 10 {
			which := int32(1)
			if c.before {
				which = 2
			}
			s := newStudio(t, readAroundCapture(c.captureFirst, which))
			_, co := s.call("POST", "/api/v2/checkout", testKey, checkout("100.00", "AED", "otp.success@tabby.ai", "+971500000001", "AROUND-1"))
			p := str(co, "payment", "id")
			s.customer("/_sandbox/payments/"+p+"/approve", nil)
			if c.before {
				s.call("POST", "/api/v2/payments/"+p+"/captures", testKey, map[string]any{"amount": "10.00", "reference_id": "around-0"})
			}
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				s.call("POST", "/api/v2/payments/"+p+"/captures", testKey, map[string]any{"amount": "40.00", "reference_id": c.ref})
			}()
			go func() {
				defer wg.Done()
				s.call("GET", "/api/v2/payments/"+p, testKey, nil)
			}()
			wg.Wait()
			rec := s.recording()
			n := len(rec.Exchanges)
			if overlapEnd(rec.Exchanges, n-2) != n {
				t.Fatalf("%s: the capture and the read were not found in flight together", c.name)
			}
			var read *Exchange
			for _, x := range rec.Exchanges[n-2:] {
				if x.Method == http.MethodGet {
					read = x
				}
			}
			if got := strings.Contains(string(read.answer()), `"amount":"40`); got != c.captureFirst {
				t.Fatalf("%s: the recorded read lists the capture: %v, want %v", c.name, got, c.captureFirst)
			}
			if rep := verify(t, rec); len(rep.Differences) > 0 {
				t.Fatalf("%s, run %d:%s", c.name, run, describe(rep.Differences))
			}
		}
	}
}

// Answers that contradict each other into a cycle (the read shows the
// first write and not the second, the first write's answer shows the
// second) order nothing: the requests go at once rather than wait on
// each other forever. So do entries whose times make a cycle (of no
// duration, within a longer one): the order they started in is kept.
func TestPrecedenceNeverWaitsOnItself(t *testing.T) {
	t0 := time.Now()
	const path = "/api/v2/payments/4f68664e-b31b-406a-8b00-2c5653541e5a"
	ex := func(method, path, body, answer string, from, to time.Duration) *Exchange {
		x := &Exchange{Method: method, Path: path, Status: 200, started: t0.Add(from), ended: t0.Add(to)}
		x.Kind = har.KindExchange
		x.Body, x.Answer = []byte(body), []byte(answer)
		return x
	}
	w1 := ex("POST", path+"/captures", `{"amount":"1.00","reference_id":"r1"}`, `{"captures":[{"reference_id":"r2"},{"reference_id":"r1"}]}`, 0, 10*time.Millisecond)
	w2 := ex("POST", path+"/captures", `{"amount":"1.00","reference_id":"r2","note":"n2"}`, `{"captures":[{"reference_id":"r2"}]}`, time.Millisecond, 10*time.Millisecond)
	read := ex("GET", path, "", `{"captures":[{"reference_id":"r1"}]}`, 2*time.Millisecond, 10*time.Millisecond)
	o := &orderer{group: []*Exchange{w1, w2, read}, base: map[*Exchange][][]byte{}}
	if after, ok := o.readOrder(read, w1); !after || !ok {
		t.Fatalf("the read shows the first write: after %v, ok %v", after, ok)
	}
	if after, ok := o.readOrder(read, w2); after || !ok {
		t.Fatalf("the read shows none of the second write: after %v, ok %v", after, ok)
	}
	if !o.writeShown(w2, w1) || o.writeShown(w1, w2) {
		t.Fatal("the first write's answer shows the second")
	}
	first := precedence(nil, []*Exchange{w1, w2, read})
	if !acyclic(first) {
		t.Fatalf("a cycle: %v", first)
	}
	for m := range first {
		for k := range first[m] {
			if first[m][k] {
				t.Errorf("%d before %d, from answers that contradict each other", m, k)
			}
		}
	}

	a := ex("GET", path, "", `{}`, 0, 0)
	b := ex("GET", path, "", `{}`, 0, 0)
	c := ex("GET", path, "", `{}`, -5*time.Millisecond, 5*time.Millisecond)
	c.started = t0.Add(-5 * time.Millisecond)
	first = precedence(nil, []*Exchange{c, a, b})
	if !acyclic(first) {
		t.Fatalf("a cycle of times: %v", first)
	}
}
