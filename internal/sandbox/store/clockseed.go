package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// A fixed clock (Options.ClockStart; `sandbox serve --seed N` or
// --clock-start) makes the sandbox's times reproducible the way the seed
// makes its ids: the clock does not follow the machine's, it starts at a
// given instant and moves only by ClockStep before each request that may
// change the state (any method but GET, HEAD and OPTIONS, answered or
// refused) and by /_sandbox/clock/advance. Two runs from an empty state
// that receive the same requests in the same order give the same
// created_at, capture, refund, expiry and dispute times. Timers (a
// checkout's 30 minutes, an authorization's lifetime) fire only when that
// clock passes them: advancing it is how a test expires something.

// SeededClockStart is where a fixed clock starts unless told otherwise:
// far enough ahead that no machine's clock reaches it, so a client that
// judges an expiry by its own clock (the CLI refuses locally to capture
// an authorization that expired by it) never finds sandbox times stale.
var SeededClockStart = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)

// ClockStep is how far a fixed clock moves before each write request.
const ClockStep = time.Second

// A fixed clock starts between these: every time it reaches, with the
// 100 years of advances on top, stays inside what the state's int64
// nanoseconds hold (up to 2262).
var (
	minClockStart = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	maxClockStart = time.Date(2150, 1, 1, 0, 0, 0, 0, time.UTC)
)

// CheckClockStart refuses a start a fixed clock cannot take, saying which
// it can.
func CheckClockStart(t time.Time) error {
	if t.Before(minClockStart) || t.After(maxClockStart) {
		return fmt.Errorf("%s is outside the range a sandbox clock can start in (%s to %s)",
			t.UTC().Format(time.RFC3339), minClockStart.Format(time.RFC3339), maxClockStart.Format(time.RFC3339))
	}
	return nil
}

// SteppingClock is the fixed clock: a time that moves only by Step. It
// keeps its time as a FakeClock does, without a FakeClock's Advance and
// Set.
type SteppingClock struct{ at FakeClock }

// NewSteppingClock is a fixed clock that starts at start.
func NewSteppingClock(start time.Time) *SteppingClock {
	return &SteppingClock{at: FakeClock{now: start.UTC()}}
}

// Now is the clock's time.
func (c *SteppingClock) Now() time.Time { return c.at.Now() }

// Step moves the clock by ClockStep.
func (c *SteppingClock) Step() { c.at.Advance(ClockStep) }

func (c *SteppingClock) set(t time.Time) { c.at.Set(t.UTC()) }

// MachineClock is the clock of what must follow real time whatever the
// sandbox's clock does: the rate limiter's buckets refill by the second,
// not by requests.
func MachineClock(c Clock) Clock {
	if _, fixed := c.(*SteppingClock); fixed {
		return RealClock{}
	}
	return c
}

// FixedClock tells whether the state runs a fixed clock.
func (s *State) FixedClock() bool {
	_, ok := s.Clock.(*SteppingClock)
	return ok
}

// SettleFixedClock starts a fixed clock where a state that already holds
// payments (a state file used before) is: at the later of the state's
// time by the machine's clock (advances included) and the newest
// payment's creation, not at its start, so that nothing the state holds
// looks expired by a jump ahead or dated after the clock. Only an empty
// state starts the clock at its start, which is what makes a run
// repeatable.
func (s *State) SettleFixedClock(ctx context.Context) error {
	c, ok := s.Clock.(*SteppingClock)
	if !ok {
		return nil
	}
	var n int64
	var newest sql.NullInt64
	if err := s.DB.QueryRowContext(ctx, `SELECT COUNT(*), MAX(created_at) FROM payments`).Scan(&n, &newest); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	offset, err := readClockOffset(ctx, s.DB)
	if err != nil {
		return err
	}
	at := time.Now().Add(offset)
	if newest.Valid && time.Unix(0, newest.Int64).After(at) {
		at = time.Unix(0, newest.Int64)
	}
	c.set(at.Add(-offset))
	return nil
}
