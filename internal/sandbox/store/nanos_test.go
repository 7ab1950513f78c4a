package store

import (
	"math"
	"testing"
	"time"
)

func TestNanosBound(t *testing.T) {
	for _, c := range []struct {
		t    time.Time
		want int64
	}{
		{time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), math.MaxInt64},
		{time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), math.MaxInt64},
		{time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), math.MinInt64},
		{testStart, testStart.UnixNano()},
		{MaxNanoTime, math.MaxInt64},
	} {
		if got := NanosBound(c.t); got != c.want {
			t.Errorf("nanosBound(%v) = %d, want %d", c.t, got, c.want)
		}
	}
}

// testStart is the time the tests start from.
var testStart = time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
