package output

import (
	"testing"
	"time"
)

func TestFormatTime(t *testing.T) {
	now := time.Date(2026, 11, 22, 9, 28, 33, 0, time.UTC)
	zone := time.FixedZone("GST", 4*3600)
	old := time.Local
	time.Local = zone
	defer func() { time.Local = old }()

	for _, tt := range []struct {
		t     time.Time
		style TimeStyle
		want  string
	}{
		{now, TimeUTC, "2026-11-22 09:28:33Z"},
		{now.In(zone), TimeUTC, "2026-11-22 09:28:33Z"},
		{now, TimeLocal, "2026-11-22 13:28:33+04:00"},
		{now.Add(-72 * time.Hour), TimeRelative, "3 days ago"},
		{now.Add(49 * time.Hour), TimeRelative, "in 2 days"},
		{now.Add(13*24*time.Hour + 23*time.Hour), TimeRelative, "in 14 days"},
		{now.Add(-90 * time.Minute), TimeRelative, "1 hour ago"},
		{now.Add(-10 * time.Second), TimeRelative, "just now"},
		{now.Add(-400 * 24 * time.Hour), TimeRelative, "13 months ago"},
		{time.Time{}, TimeUTC, ""},
	} {
		if got := FormatTime(tt.t, tt.style, now); got != tt.want {
			t.Errorf("FormatTime(%v, %s) = %q, want %q", tt.t, tt.style, got, tt.want)
		}
	}
}

func TestParseTimeStyleAndServiceTimes(t *testing.T) {
	if s, err := ParseTimeStyle(""); err != nil || s != TimeUTC {
		t.Errorf("empty: %v %v", s, err)
	}
	if _, err := ParseTimeStyle("gmt"); err == nil {
		t.Error("gmt accepted")
	}
	ios, _, _, _ := Test()
	for in, want := range map[string]string{
		"2026-11-22T09:28:33Z":      "2026-11-22 09:28:33Z",
		"2026-11-22T13:28:33+04:00": "2026-11-22 09:28:33Z",
		"2026-11-22T09:28:33.123":   "2026-11-22 09:28:33Z",
		"soon":                      "soon",
	} {
		if got := ios.FormatTimeString(in); got != want {
			t.Errorf("FormatTimeString(%q) = %q, want %q", in, got, want)
		}
	}
}
