package replay

import (
	"testing"
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
