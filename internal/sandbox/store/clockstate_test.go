package store

import (
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"90s": 90 * time.Second, "7d": 7 * 24 * time.Hour, "36525d": MaxClockOffset, " 1h30m ": 90 * time.Minute} {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "1.5d", "x", "1y"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("parseDuration(%q) accepted", in)
		}
	}
}
