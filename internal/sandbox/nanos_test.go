package sandbox

import (
	"strings"
	"testing"
)

// List filters with dates past 2262 (or before 1677) compare as dates:
// "until 3000" keeps everything, "since 3000" nothing, "since 1000"
// everything.
func TestListTimesPast2262(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	p := e.liveClosed("100.00")
	d := e.openDispute(p, nil).ID
	for _, c := range []struct {
		query string
		want  string
	}{
		{"created_at__lte=3000-01-01T00:00:00Z", p},
		{"created_at__lte=9999-12-31", p},
		{"created_at__gte=1000-01-01", p},
		{"created_at__gte=2300-01-01", ""},
		{"created_at__lte=1600-01-01", ""},
	} {
		r := e.do("ae", "GET", "/api/v2/payments?"+c.query, aeLive, nil)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", c.query, r.status, r.body)
		}
		if got := strings.Join(listedIDs(t, r, "payments"), ","); got != c.want {
			t.Errorf("payments %s: %q, want %q", c.query, got, c.want)
		}
		dq := strings.ReplaceAll(c.query, "__", "_")
		want := ""
		if c.want != "" {
			want = d
		}
		if got := strings.Join(disputeIDs(e.listDisputes("?"+dq)), ","); got != want {
			t.Errorf("disputes %s: %q, want %q", dq, got, want)
		}
	}
}
