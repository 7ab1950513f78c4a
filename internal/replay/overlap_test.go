package replay

import (
	"fmt"
	"sync"
	"testing"
)

// Captures sent at once are found to have overlapped, and replayed at
// once (each compared with the answer, among those of the run, that
// differs least from it). Which of them the service let through first is
// chance, so what the answers hold is not asserted here.
func TestVerifyReplaysOverlappingRequestsTogether(t *testing.T) {
	s := newStudio(t, nil)
	_, c := s.call("POST", "/api/v2/checkout", testKey, checkout("500.00", "AED", "otp.success@tabby.ai", "+971500000001", "PAR-1"))
	p := str(c, "payment", "id")
	s.customer("/_sandbox/payments/"+p+"/approve", nil)
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.call("POST", "/api/v2/payments/"+p+"/captures", testKey, map[string]any{"amount": "10.00", "reference_id": fmt.Sprintf("par-%d", i)})
		}()
	}
	wg.Wait()
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
