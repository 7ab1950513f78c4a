package output

import (
	"fmt"
	"strings"
	"time"
)

// TimeStyle is how times are shown to a person (--time, BNPL_TIME).
// Machine formats never use it: they keep the service's values.
type TimeStyle string

// Time styles.
const (
	TimeUTC      TimeStyle = "utc"
	TimeLocal    TimeStyle = "local"
	TimeRelative TimeStyle = "relative"
)

// TimeStyles lists the accepted --time values, for help and completion.
var TimeStyles = []string{string(TimeUTC), string(TimeLocal), string(TimeRelative)}

// ParseTimeStyle reads a --time value; empty means utc.
func ParseTimeStyle(v string) (TimeStyle, error) {
	switch s := TimeStyle(strings.ToLower(strings.TrimSpace(v))); s {
	case "":
		return TimeUTC, nil
	case TimeUTC, TimeLocal, TimeRelative:
		return s, nil
	}
	return "", ParseTimeStyleFrom("--time", v)
}

// ParseTimeStyleFrom is the error of a time style v that is not one,
// naming where it came from: "--time", or "BNPL_TIME" when the variable
// gave it.
func ParseTimeStyleFrom(from, v string) error {
	hint := "use one of: " + strings.Join(TimeStyles, ", ")
	if from != "--time" {
		hint = "set " + from + " to one of: " + strings.Join(TimeStyles, ", ") + " (or unset it)"
	}
	return &Error{Message: fmt.Sprintf("invalid %s %q", from, v), HintText: hint, Code: 2}
}

const (
	utcLayout   = "2006-01-02 15:04:05Z"
	localLayout = "2006-01-02 15:04:05-07:00"
)

// FormatTime is the one way a time is shown to a person, to the second:
// "2026-11-22 09:28:33Z" (utc), "2026-11-22 13:28:33+04:00" (local, the
// machine's zone) or "3 days ago" / "in 2 days" (relative to now).
func FormatTime(t time.Time, style TimeStyle, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	switch style {
	case TimeLocal:
		return t.Local().Format(localLayout)
	case TimeRelative:
		return relative(t, now)
	default:
		return t.UTC().Format(utcLayout)
	}
}

// ParseServiceTime reads a time as the service writes it: RFC 3339, or
// without a zone (then UTC, the service's zone).
func ParseServiceTime(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, true
	}
	if t, err := time.Parse("2006-01-02T15:04:05.999999999", v); err == nil {
		return t, true
	}
	return time.Time{}, false
}

func relative(t, now time.Time) string {
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	var size time.Duration
	var unit string
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		size, unit = time.Minute, "minute"
	case d < 24*time.Hour:
		size, unit = time.Hour, "hour"
	case d < 60*24*time.Hour:
		size, unit = 24*time.Hour, "day"
	case d < 730*24*time.Hour:
		size, unit = 30*24*time.Hour, "month"
	default:
		size, unit = 365*24*time.Hour, "year"
	}
	// What has passed counts whole units ("3 days ago"); what is left is
	// rounded, so a deadline 13 days and 23 hours away reads "in 14 days",
	// as its days left do, and 49 hours away "in 2 days".
	n := int(d / size)
	if future {
		n = int((d + size/2) / size)
	}
	if n != 1 {
		unit += "s"
	}
	if future {
		return fmt.Sprintf("in %d %s", n, unit)
	}
	return fmt.Sprintf("%d %s ago", n, unit)
}

// SetTimeStyle is what --time does.
func (s *IOStreams) SetTimeStyle(style TimeStyle) { s.timeStyle = style }

// TimeStyle is the style --time chose (utc by default).
func (s *IOStreams) TimeStyle() TimeStyle {
	if s.timeStyle == "" {
		return TimeUTC
	}
	return s.timeStyle
}

// SetNow fixes the clock relative times are measured from (tests).
func (s *IOStreams) SetNow(now func() time.Time) { s.now = now }

func (s *IOStreams) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// FormatTime shows t in the chosen style. Every view, prompt, summary and
// event line that a person reads uses it.
func (s *IOStreams) FormatTime(t time.Time) string {
	return FormatTime(t, s.TimeStyle(), s.clock())
}

// FormatTimeString shows a time the service sent; a value that is not a
// time is shown as sent.
func (s *IOStreams) FormatTimeString(v string) string {
	t, ok := ParseServiceTime(v)
	if !ok {
		return v
	}
	return s.FormatTime(t)
}

// FilterTime is a --since or --until value as a notice says it: a whole
// day as the date ("2026-11-16"), another time in the one UTC form
// ("2026-11-16 17:08:23Z"), anything else as given.
func FilterTime(v string) string {
	t, ok := ParseServiceTime(v)
	if !ok {
		return v
	}
	if t.Equal(t.Truncate(24 * time.Hour)) {
		return t.UTC().Format(time.DateOnly)
	}
	return t.UTC().Format(utcLayout)
}
