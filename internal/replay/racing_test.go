package replay

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// barrier holds each POST to a path ending in suffix until n of them have
// arrived, so that the recording shows them in flight together whatever
// the machine's speed.
func barrier(n int, suffix string) func(http.Handler) http.Handler {
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, suffix) {
				mu.Lock()
				if arrived++; arrived == n {
					close(all)
				}
				mu.Unlock()
				<-all
			}
			h.ServeHTTP(w, r)
		})
	}
}

// recordRace records a payment of 100.00 captured ten times at once, 30.00
// each (three go through, which three is chance), then read.
func recordRace(t *testing.T) *Recording {
	s := newStudio(t, barrier(10, "/captures"))
	p := tenCapturesAtOnce(s, "100.00", "RACE-1", "30.00", "race")
	s.call("GET", "/api/v2/payments/"+p, testKey, nil)
	return s.recording()
}

// tenCapturesAtOnce records a checkout of total, approved, and ten
// captures of amount sent to it at once (reference ids prefix-0 to
// prefix-9); it answers the payment's id.
func tenCapturesAtOnce(s *studio, total, order, amount, prefix string) string {
	_, c := s.call("POST", "/api/v2/checkout", testKey, checkout(total, "AED", "otp.success@tabby.ai", "+971500000001", order))
	p := str(c, "payment", "id")
	s.customer("/_sandbox/payments/"+p+"/approve", nil)
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.call("POST", "/api/v2/payments/"+p+"/captures", testKey, map[string]any{"amount": amount, "reference_id": fmt.Sprintf("%s-%d", prefix, i)})
		}()
	}
	wg.Wait()
	return p
}

// raceOf is the ten captures in the recording, found in flight together
// (in one run, which may hold the checkout before them too: its entry
// ends once the recorder has written its answer), and how many the
// service took.
func raceOf(t *testing.T, rec *Recording) (captures []*Exchange, ok int) {
	t.Helper()
	for i := 0; i < len(rec.Exchanges); {
		j := overlapEnd(rec.Exchanges, i)
		var run []*Exchange
		for _, x := range rec.Exchanges[i:j] {
			if strings.HasSuffix(x.Path, "/captures") {
				run = append(run, x)
			}
		}
		if len(run) == 10 {
			captures = run
		}
		i = j
	}
	if captures == nil {
		t.Fatal("the ten captures were not found in flight together")
	}
	for _, x := range captures {
		if x.Status == http.StatusOK {
			ok++
		}
	}
	return captures, ok
}

// Ten captures of one payment sent at once: which three the service took
// is chance, on the recording's side as on the replay's. Compared as a
// set (the outcomes, and the payment they left), twenty recordings verify
// clean, whichever captures won on either side.
func TestRacingCapturesVerifyClean(t *testing.T) {
	for run := range 20 {
		rec := recordRace(t)
		if _, ok := raceOf(t, rec); ok != 3 {
			t.Fatalf("run %d: %d captures of 30.00 of 100.00 went through, want 3", run, ok)
		}
		rep := verify(t, rec)
		if rep.Compared != rep.Exchanges || rep.Exchanges != 12 {
			t.Errorf("run %d: compared %d of %d exchanges, want 12 of 12", run, rep.Compared, rep.Exchanges)
		}
		if len(rep.Differences) > 0 {
			t.Errorf("run %d: %d difference(s) where none is:\n%s", run, len(rep.Differences), describe(rep.Differences))
		}
	}
}

// A real difference in such a set is still reported, at its exchange: an
// outcome the sandbox did not have as often (a refusal the service
// answered 409 conflict, the sandbox 400), a capture's own reference_id
// echoed otherwise, and the payment the race left with another amount.
func TestRacingCapturesRealDifferences(t *testing.T) {
	rec := recordRace(t)
	captures, _ := raceOf(t, rec)
	var refused, took *Exchange
	for _, x := range captures {
		switch {
		case x.Status == http.StatusOK && took == nil:
			took = x
		case x.Status != http.StatusOK && refused == nil:
			refused = x
		}
	}
	read := rec.Exchanges[len(rec.Exchanges)-1]
	ref := fmt.Sprintf("%v", mustJSON(t, took.body())["reference_id"])
	list, _ := mustJSON(t, read.answer())["captures"].([]any)
	if len(list) != 3 {
		t.Fatalf("the payment read after the race lists %d captures, want 3", len(list))
	}
	last := fmt.Sprintf("%v", list[2].(map[string]any)["reference_id"])
	for _, plant := range []struct {
		name  string
		at    *Exchange
		field string
		edit  func(x *Exchange)
	}{
		{"outcome", refused, "status", func(x *Exchange) {
			x.Status = http.StatusConflict
			x.Answer = []byte(`{"status":"error","errorType":"conflict","error":"could not acquire lock: payment is locked"}`)
		}},
		{"echo", took, "reference_id", func(x *Exchange) {
			x.Answer = []byte(strings.Replace(string(x.answer()), `"reference_id":"`+ref+`"`, `"reference_id":"`+ref+`-x"`, 1))
		}},
		{"state", read, "$.captures[2].amount", func(x *Exchange) {
			x.Answer = []byte(strings.Replace(string(x.answer()), `"amount":"30","reference_id":"`+last+`"`, `"amount":"20","reference_id":"`+last+`"`, 1))
		}},
	} {
		t.Run(plant.name, func(t *testing.T) {
			planted := copyRecording(rec)
			for _, x := range planted.Exchanges {
				if x.N == plant.at.N {
					before := string(x.answer())
					plant.edit(x)
					if plant.name != "outcome" && string(x.answer()) == before {
						t.Fatalf("nothing to plant in #%d: %s", x.N, before)
					}
				}
			}
			rep := verify(t, planted)
			// An outcome is said with its errorType and message, at the
			// same exchange.
			elsewhere := len(rep.Differences) == 0 || (plant.name != "outcome" && len(rep.Differences) != 1)
			for _, d := range rep.Differences {
				elsewhere = elsewhere || d.N != plant.at.N
			}
			if elsewhere || !strings.Contains(rep.Differences[0].Field, plant.field) {
				t.Fatalf("differences:\n%s\nwant the one planted at #%d %s", describe(rep.Differences), plant.at.N, plant.field)
			}
		})
	}
}

func mustJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return m
}

// lastFirst holds each checkout until n have arrived, then lets them
// through one at a time, the last arrived first: the service makes them
// in the reverse of the order they were sent, all in flight together.
func lastFirst(n int) func(http.Handler) http.Handler {
	var mu sync.Mutex
	turn := make([]chan struct{}, n)
	for i := range turn {
		turn[i] = make(chan struct{})
	}
	arrived := 0
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/checkout") {
				h.ServeHTTP(w, r)
				return
			}
			mu.Lock()
			i := arrived
			if arrived++; arrived == n {
				close(turn[n-1])
			}
			mu.Unlock()
			<-turn[i]
			h.ServeHTTP(w, r)
			// The next is made in a later millisecond (created_at's
			// precision), so that the order is the service's to keep.
			made := time.Now().Truncate(time.Millisecond)
			for !time.Now().Truncate(time.Millisecond).After(made) {
				runtime.Gosched()
			}
			if i > 0 {
				close(turn[i-1])
			}
		})
	}
}

// Checkouts sent at once are made in an order the service chose, which a
// list by created_at keeps: the sandbox is asked in that order, so the
// list's order, compared, agrees.
func TestCheckoutsAtOnceListInTheServicesOrder(t *testing.T) {
	for run := range 5 {
		s := newStudio(t, lastFirst(4))
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.call("POST", "/api/v2/checkout", testKey, checkout("100.00", "AED", "otp.success@tabby.ai", "+971500000001", fmt.Sprintf("AT-ONCE-%d", i)))
			}()
		}
		wg.Wait()
		s.call("GET", "/api/v2/payments?limit=10&status=new", testKey, nil)
		rec := s.recording()
		if list := rec.Exchanges[len(rec.Exchanges)-1].answer(); strings.Count(string(list), "AT-ONCE-") != 4 {
			t.Fatalf("the list does not hold the four checkouts: %s", list)
		}
		rep := verify(t, rec)
		if len(rep.Differences) > 0 {
			t.Fatalf("run %d:%s", run, describe(rep.Differences))
		}
	}
}
