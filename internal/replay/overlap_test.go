package replay

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

// readAroundCapture serves the second capture of a payment and a read of its payment in flight
// together, in the order asked: with captureFirst, the service takes the
// capture, answers the read (which lists it), and only then answers the
// capture; else it answers the read (which lists nothing) while the
// capture waits, then takes the capture. Either way the recording shows
// the two in flight together, and only the read's answer tells the order.
func readAroundCapture(captureFirst bool) func(http.Handler) http.Handler {
	arrived, taken, read := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var captures atomic.Int32
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/captures") && captures.Add(1) == 2:
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
// that is not one about half the time.
func TestAReadInFlightWithAWriteIsReplayedWhereItsAnswerShowsIt(t *testing.T) {
	for _, captureFirst := range []bool{true, false} {
		for run := range 20 {
			s := newStudio(t, readAroundCapture(captureFirst))
			_, c := s.call("POST", "/api/v2/checkout", testKey, checkout("100.00", "AED", "otp.success@tabby.ai", "+971500000001", "AROUND-1"))
			p := str(c, "payment", "id")
			s.customer("/_sandbox/payments/"+p+"/approve", nil)
			// A capture before: its id and its texts are in every later
			// answer of the payment, whichever side of the race it is on.
			s.call("POST", "/api/v2/payments/"+p+"/captures", testKey, map[string]any{"amount": "10.00", "reference_id": "around-0"})
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				s.call("POST", "/api/v2/payments/"+p+"/captures", testKey, map[string]any{"amount": "40.00", "reference_id": "around-1"})
			}()
			go func() {
				defer wg.Done()
				s.call("GET", "/api/v2/payments/"+p, testKey, nil)
			}()
			wg.Wait()
			rec := s.recording()
			last := rec.Exchanges[len(rec.Exchanges)-2:]
			if j := overlapEnd(rec.Exchanges, len(rec.Exchanges)-2); j != len(rec.Exchanges) {
				t.Fatalf("the capture and the read were not found in flight together")
			}
			var read *Exchange
			for _, x := range last {
				if x.Method == http.MethodGet {
					read = x
				}
			}
			if got := strings.Contains(string(read.answer()), "around-1"); got != captureFirst {
				t.Fatalf("the recorded read lists the capture: %v, want %v", got, captureFirst)
			}
			if rep := verify(t, rec); len(rep.Differences) > 0 {
				t.Fatalf("capture first %v, run %d:%s", captureFirst, run, describe(rep.Differences))
			}
		}
	}
}

// Where a recording's answers would order requests against its times (a
// cycle), only the times are kept: a replay never waits on itself.
func TestPrecedenceDropsAnOrderThatWouldWaitOnItself(t *testing.T) {
	t0 := time.Now()
	read := &Exchange{Method: http.MethodGet, Path: "/api/v2/payments/4f68664e-b31b-406a-8b00-2c5653541e5a", Status: 200,
		started: t0, ended: t0.Add(time.Millisecond)}
	read.Answer = []byte(`{"captures":[{"reference_id":"ref-1"}]}`)
	write := &Exchange{Method: http.MethodPost, Path: "/api/v2/payments/4f68664e-b31b-406a-8b00-2c5653541e5a/captures", Status: 200,
		started: t0.Add(2 * time.Millisecond), ended: t0.Add(3 * time.Millisecond)}
	write.Body = []byte(`{"amount":"1.00","reference_id":"ref-1"}`)
	first := precedence(nil, []*Exchange{read, write})
	if !first[0][1] || first[1][0] {
		t.Fatalf("want the read first, as its times say; got %v", first)
	}
}
