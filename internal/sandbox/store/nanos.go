package store

import (
	"math"
	"time"
)

// The state keeps times as nanoseconds since 1970 in int64 columns, which
// hold 1677-09-21 to 2262-04-11. Stored times stay inside (the clock moves
// at most 100 years), but a list filter may name any date: nanosBound maps
// it to the column's scale, pinning times beyond either end to the end, so
// that "created up to the year 3000" compares as later than everything
// stored instead of overflowing into the past.
var (
	minNanoTime = time.Unix(0, math.MinInt64)
	MaxNanoTime = time.Unix(0, math.MaxInt64)
)

func NanosBound(t time.Time) int64 {
	switch {
	case t.Before(minNanoTime):
		return math.MinInt64
	case t.After(MaxNanoTime):
		return math.MaxInt64
	}
	return t.UnixNano()
}
