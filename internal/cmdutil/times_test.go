package cmdutil

import (
	"testing"
	"time"
)

func TestParseTimeFlag(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	cases := map[string]string{
		"2026-11-01":                "2026-11-01T00:00:00Z",
		"2026-11-01T10:00:00+04:00": "2026-11-01T06:00:00Z",
		"24h":                       "2026-11-20T12:00:00Z",
		"7d":                        "2026-11-14T12:00:00Z",
		"90m":                       "2026-11-21T10:30:00Z",
		"2026-11-01T10:00:00":       "2026-11-01T10:00:00Z",
		// Past 2262, where nanoseconds since 1970 overflow int64.
		"2300-01-01":           "2300-01-01T00:00:00Z",
		"9999-12-31T23:59:59Z": "9999-12-31T23:59:59Z",
		"1500-06-01":           "1500-06-01T00:00:00Z",
		// More days back than a Duration holds (106751 days).
		"200000d": "1479-04-23T12:00:00Z",
	}
	for in, want := range cases {
		got, err := ParseTimeFlag("since", in, now)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if FormatTimeFlag(got) != want {
			t.Errorf("%q = %s, want %s", in, FormatTimeFlag(got), want)
		}
	}
	for _, bad := range []string{"", "yesterday", "-5d", "2026-13-01", "7x", "10000-01-01", "99999999999999999999d", "3000000h", "4000000d"} {
		if _, err := ParseTimeFlag("since", bad, now); err == nil || ExitCode(err) != ExitUsage {
			t.Errorf("%q: want usage error, got %v", bad, err)
		}
	}
}
