package sandbox

import (
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// fixedClockStart is where serve's fixed clock starts: --clock-start, else
// the documented instant when --seed N (not 0) asks for a repeatable run;
// the zero time (the machine's clock) without either.
func fixedClockStart(opts *ServeOptions) (time.Time, error) {
	raw := strings.TrimSpace(opts.ClockStart)
	if raw == "" {
		if opts.Seed != 0 {
			return sandbox.SeededClockStart, nil
		}
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, raw)
	if err != nil {
		return time.Time{}, cmdutil.Usagef("--clock-start %q is not an RFC 3339 time; give one such as %s", opts.ClockStart, sandbox.SeededClockStart.Format(time.RFC3339))
	}
	if err := sandbox.CheckClockStart(t); err != nil {
		return time.Time{}, cmdutil.Usagef("--clock-start: %v", err)
	}
	return t.UTC(), nil
}
