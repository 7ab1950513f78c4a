package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
)

// MaxClockOffset caps how far the sandbox clock may be moved forward in
// total: 100 years of 365.25 days. The offset is stored in nanoseconds in
// an SQLite integer; the cap keeps it, and every time computed from it,
// far from int64's ends (about 292 years), so no sum in Go or in SQL can
// overflow and no stored time can pass what UnixNano represents.
const MaxClockOffset = 36525 * 24 * time.Hour

// maxClockDays is maxClockOffset in whole days, the largest "Nd" accepted.
const maxClockDays = int64(MaxClockOffset / (24 * time.Hour))

// errClockRange refuses an advance beyond the cap, given the offset the
// clock already has.
func errClockRange(by string, offset time.Duration) *edge.Refusal {
	left := MaxClockOffset - offset
	if left < 0 {
		left = 0
	}
	return edge.BadData(fmt.Sprintf("cannot advance the sandbox clock by %s: it moves at most 100 years (%dd) in total and is already %s ahead, so at most %s more; reset the sandbox to start over",
		by, maxClockDays, Span(offset), Span(left)))
}

// Span words a clock offset in days, as advances are usually given: 36500d,
// 25d, 2d3h0m0s, 90s.
func Span(d time.Duration) string {
	const day = 24 * time.Hour
	days, rest := d/day, d%day
	switch {
	case days == 0:
		return rest.String()
	case rest == 0:
		return fmt.Sprintf("%dd", days)
	}
	return fmt.Sprintf("%dd%s", days, rest)
}

// tooFarError is an advance that passes the cap by itself. parseDuration
// cannot word it (how much is left depends on the stored offset);
// State.Refusal does.
type tooFarError struct{ by string }

func (e *tooFarError) Error() string {
	return fmt.Sprintf("cannot advance the sandbox clock by %s: it moves at most 100 years (%dd) in total", e.by, maxClockDays)
}

// Refusal is the answer to an advance that parseDuration refused: a
// tooFarError worded with the offset now stored, an apiError as it is,
// else nil (a malformed value, which the caller words).
func (s *State) Refusal(ctx context.Context, err error) error {
	var far *tooFarError
	if errors.As(err, &far) {
		offset, oerr := s.ClockOffset(ctx)
		if oerr != nil {
			return oerr
		}
		return errClockRange(far.by, offset)
	}
	var ae *edge.Refusal
	if errors.As(err, &ae) {
		return ae
	}
	return nil
}

// goDuration is the syntax of time.ParseDuration's positive values.
var goDuration = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\+?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+$`) })

// ParseDuration reads a clock advance: Go's durations (90s, 1h30m) or
// whole days (7d). A value beyond the 100-year cap is refused here, before
// any arithmetic can overflow.
func ParseDuration(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil {
			var ne *strconv.NumError
			if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
				return 0, &tooFarError{by: v}
			}
			return 0, err
		}
		if n > maxClockDays || n < -maxClockDays {
			return 0, &tooFarError{by: v}
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		// ParseDuration says "invalid" for a well-formed value too large
		// for a Duration; tell it apart from a malformed one.
		if goDuration().MatchString(v) {
			return 0, &tooFarError{by: v}
		}
		return 0, err
	}
	if d > MaxClockOffset {
		return 0, &tooFarError{by: v}
	}
	return d, nil
}

// badStoredValue reports a value in the state that this sandbox cannot
// use, naming the table, row and value, and what to do. It answers 500 in
// the service's error form: the request was fine, the state is not.
func badStoredValue(table, row string, value any, want string) *edge.Refusal {
	return &edge.Refusal{Status: 500, ErrorType: "internal", Message: fmt.Sprintf(
		"sandbox state: %s row %q holds %v, which is not %s; the state file was damaged or written by a faulty sandbox: run `bnpl sandbox reset` (or POST /_sandbox/reset) to start it over",
		table, row, value, want)}
}

// ClockOffsetFrom checks a stored clock offset, as scanned into an any: an
// integer from 0 to maxClockOffset. Anything else (a REAL that an
// overflowing sum left, text, a negative or huge integer) is a clear error
// naming the row instead of a bare scan failure.
func ClockOffsetFrom(v any) (time.Duration, error) {
	switch n := v.(type) {
	case nil:
		return 0, nil
	case int64:
		if n >= 0 && n <= int64(MaxClockOffset) {
			return time.Duration(n), nil
		}
	case float64:
		// SQLite keeps an integer column's value as REAL when it does not
		// fit; a whole number within range is still usable.
		if n >= 0 && n <= float64(MaxClockOffset) && n == math.Trunc(n) {
			return time.Duration(int64(n)), nil
		}
	}
	return 0, badStoredValue("meta", "clock_offset", v, "a clock offset of 0 to 100 years in nanoseconds")
}

// readClockOffset reads and checks the stored clock offset (0 when none).
func readClockOffset(ctx context.Context, q Querier) (time.Duration, error) {
	return offsetFromRow(q.QueryRowContext(ctx, clockQuery))
}

// offsetFromRow reads the clock offset from clockQuery's row.
func offsetFromRow(row *sql.Row) (time.Duration, error) {
	var v any
	err := row.Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return ClockOffsetFrom(v)
}

// CurrentTime is the sandbox's time: the clock plus the offset kept in the state.
func (s *State) CurrentTime(ctx context.Context) (time.Time, error) {
	if at, ok := pinnedNow(ctx); ok {
		return at, nil // a fixture step, at its file's date
	}
	offset, err := s.ClockOffset(ctx)
	if err != nil {
		return time.Time{}, err
	}
	return s.Clock.Now().Add(offset).UTC(), nil
}

// ClockOffset is the stored clock offset, read through the prepared
// statement of the read pool (every request reads it for its Date).
func (s *State) ClockOffset(ctx context.Context) (time.Duration, error) {
	r := s.reads
	mark, watched := r.watch.mark()
	if watched {
		if v, ok := r.cache.clockOffset(mark); ok {
			return ClockOffsetFrom(v)
		}
	}
	var v [1]any
	err := r.do(ctx, func(ctx context.Context, rd *reader) error {
		return rd.row(ctx, clockStmt, v[:])
	})
	if errors.Is(err, sql.ErrNoRows) {
		err = nil // no offset stored: v[0] is nil, an offset of 0
	}
	if err != nil {
		return 0, err
	}
	if watched {
		r.cache.putClockOffset(mark, v[0])
	}
	return ClockOffsetFrom(v[0])
}

// AdvanceClockBy moves the sandbox's time forward for every process sharing
// the state. The sum is checked in Go, inside one IMMEDIATE transaction so
// that two processes advancing at once cannot both pass the check, and the
// new offset is written whole: SQL never adds to it.
func (s *State) AdvanceClockBy(ctx context.Context, by string, d time.Duration) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	offset, err := readClockOffset(ctx, tx)
	if err != nil {
		return err
	}
	if d > MaxClockOffset-offset {
		return errClockRange(by, offset)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (k, v) VALUES ('clock_offset', ?)
		ON CONFLICT (k) DO UPDATE SET v = excluded.v`, int64(offset+d)); err != nil {
		return err
	}
	return tx.Commit()
}

// CorruptRow reports a stored row that cannot be decoded, naming it.
func CorruptRow(table, column, value string, err error) *edge.Refusal {
	return &edge.Refusal{Status: 500, ErrorType: "internal", Message: fmt.Sprintf(
		"sandbox state: %s row with %s %s cannot be read (%v); the state file was damaged or written by a faulty sandbox: run `bnpl sandbox reset` (or POST /_sandbox/reset) to start it over",
		table, column, value, err)}
}
