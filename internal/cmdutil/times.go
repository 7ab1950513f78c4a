package cmdutil

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// maxDaysBack bounds a "Nd" value: 10,000 years, beyond which no date can
// be written in RFC 3339.
const maxDaysBack = 3_652_500

// ParseTimeFlag reads --since/--until values: a date (midnight UTC), an RFC
// 3339 time, or a duration back from now ("24h", "90m", "7d"). It returns the
// instant in UTC. Any date from year 1 to 9999 works, including those past
// 2262 that nanosecond counts cannot hold: times are compared as times.
func ParseTimeFlag(flag, v string, now time.Time) (time.Time, error) {
	v = strings.TrimSpace(v)
	t, ok := parseTimeFlag(v, now)
	if !ok {
		return time.Time{}, UsageHint("use a date (2026-01-31), an RFC 3339 time (2026-01-31T12:00:00Z) or a duration back from now (24h, 7d)",
			"invalid --%s %q", flag, v)
	}
	if t.Year() < 1 || t.Year() > 9999 {
		return time.Time{}, UsageHint("use a time between the years 1 and 9999", "--%s %q is out of range", flag, v)
	}
	return t, nil
}

func parseTimeFlag(v string, now time.Time) (time.Time, bool) {
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t.UTC(), true
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC(), true
	}
	// ISO 8601 allows a time without a zone; the service's times are UTC.
	if t, err := time.Parse("2006-01-02T15:04:05", v); err == nil {
		return t, true
	}
	if days, ok := strings.CutSuffix(v, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			if n > maxDaysBack {
				return time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), true // out of range, said by the caller
			}
			// Calendar days, not n×24h: a Duration holds only 292 years.
			return now.UTC().AddDate(0, 0, -n), true
		}
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d).UTC(), true
	}
	return time.Time{}, false
}

// NormalizeTimeRange reads --since and --until (either may be empty) as
// ParseTimeFlag does, writes each back as the service's query expects, and
// refuses a window that holds nothing: --until at or before --since. A
// date means its midnight, as the service reads it, so the hint says how
// to take in a whole day.
func NormalizeTimeRange(since, until *string, now time.Time) error {
	var from, to time.Time
	sinceArg := *since
	for _, tf := range []struct {
		name string
		val  *string
		t    *time.Time
	}{{"since", since, &from}, {"until", until, &to}} {
		if *tf.val == "" {
			continue
		}
		t, err := ParseTimeFlag(tf.name, *tf.val, now)
		if err != nil {
			return err
		}
		*tf.t = t
		*tf.val = FormatTimeFlag(t)
	}
	if *since != "" && *until != "" {
		return CheckTimeWindow(sinceArg, from, to)
	}
	return nil
}

// CheckTimeWindow refuses a window from..to that holds no time: to at or
// before from. sinceArg is --since as given, so that a date (which means
// its midnight, as the service reads it) gets a hint on taking in the
// whole day.
func CheckTimeWindow(sinceArg string, from, to time.Time) error {
	if to.After(from) {
		return nil
	}
	hint := "--since is where the window starts and --until where it ends; a duration counts back from now (--since 30d --until 7d)"
	if _, err := time.Parse("2006-01-02", strings.TrimSpace(sinceArg)); err == nil {
		hint = fmt.Sprintf("a date means its start, 00:00Z: --until %s takes in the whole of %s", from.AddDate(0, 0, 1).Format("2006-01-02"), from.Format("2006-01-02"))
	}
	return UsageHint(hint, "--until %s is not after --since %s: no time lies between them", FormatTimeFlag(to), FormatTimeFlag(from))
}

// FormatTimeFlag writes t as the service's query parameters expect.
func FormatTimeFlag(t time.Time) string { return t.UTC().Format(time.RFC3339) }
