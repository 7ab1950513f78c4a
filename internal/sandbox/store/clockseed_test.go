package store

import (
	"testing"
	"time"
)

func TestCheckClockStart(t *testing.T) {
	for _, ok := range []time.Time{minClockStart, SeededClockStart, maxClockStart} {
		if err := CheckClockStart(ok); err != nil {
			t.Errorf("CheckClockStart(%s): %v", ok, err)
		}
	}
	for _, bad := range []time.Time{minClockStart.Add(-time.Second), maxClockStart.Add(time.Second)} {
		if err := CheckClockStart(bad); err == nil {
			t.Errorf("CheckClockStart(%s) accepted", bad)
		}
	}
}
