package cmdutil

import (
	"strconv"
	"strings"
	"time"
)

// ParseTimeFlag reads --since/--until values: a date (midnight UTC), an RFC
// 3339 time, or a duration back from now ("24h", "90m", "7d"). It returns the
// instant in UTC.
func ParseTimeFlag(flag, v string, now time.Time) (time.Time, error) {
	v = strings.TrimSpace(v)
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC(), nil
	}
	// ISO 8601 allows a time without a zone; the service's times are UTC.
	if t, err := time.Parse("2006-01-02T15:04:05", v); err == nil {
		return t, nil
	}
	if days, ok := strings.CutSuffix(v, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return now.Add(-time.Duration(n) * 24 * time.Hour).UTC(), nil
		}
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d).UTC(), nil
	}
	return time.Time{}, UsageHint("use a date (2026-01-31), an RFC 3339 time (2026-01-31T12:00:00Z) or a duration back from now (24h, 7d)",
		"invalid --%s %q", flag, v)
}

// FormatTimeFlag writes t as the service's query parameters expect.
func FormatTimeFlag(t time.Time) string { return t.UTC().Format(time.RFC3339) }
