package terminal

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The values a person reads and acts on, seen at 80 and 150 columns on a
// terminal: an enum value (a dispute's reason) is never cut, a webhook's
// URL is whole on one line, every delivery shows its date with its time,
// and payments get shows the buyer's phone and the order's items.

// seedEveryState seeds the fixture of every state a payment can reach
// into the embedded sandbox of env.
func seedEveryState(t *testing.T, env []string) {
	t.Helper()
	file, err := filepath.Abs("../../testdata/fixtures/every-state.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bnplOut(t, env, "sandbox", "seed", "--file", file, "-q")
}

// onPTYAtOK runs bnpl on a terminal cols wide and fails the test unless it
// exits 0.
func onPTYAtOK(t *testing.T, env []string, cols uint16, args ...string) string {
	t.Helper()
	got, code := onPTYAt(t, env, cols, nil, args...)
	if code != 0 {
		t.Fatalf("bnpl %s at %d columns: exit %d\n%s", strings.Join(args, " "), cols, code, got)
	}
	return got
}

// wideExcept is wideLines without the lines that are one of whole (a URL
// longer than the terminal stands whole on a line of its own).
func wideExcept(s string, cols int, whole ...string) []string {
	var wide []string
	for _, line := range wideLines(s, cols) {
		if !contains(whole, strings.TrimSpace(line)) {
			wide = append(wide, line)
		}
	}
	return wide
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// A dispute's reason, wherever a view shows it, is whole at 80 columns as
// at 150: unreceived_refund and product_issue, never "unreceived_refu…".
func TestDisputeReasonsNeverCutOnPTY(t *testing.T) {
	env := ptyEnv(t)
	seedEveryState(t, env)
	const (
		productIssue     = "f1a7e000-0000-4000-8000-0000000d0001"
		unreceivedRefund = "f1a7e000-0000-4000-8000-0000000d0005"
		refundedPayment  = "f1a7e000-0000-4000-8000-000000000019"
	)
	for _, cols := range []uint16{80, 150} {
		for _, tc := range []struct {
			args []string
			want []string
		}{
			{[]string{"--live", "disputes", "get", unreceivedRefund}, []string{"unreceived_refund"}},
			{[]string{"--live", "disputes", "get", productIssue}, []string{"product_issue"}},
			{[]string{"--live", "payments", "timeline", refundedPayment}, []string{"reason unreceived_refund"}},
			{[]string{"--live", "payments", "get", refundedPayment}, []string{"reason unreceived_refund"}},
			{[]string{"--live", "disputes", "list", "--all"}, nil},
		} {
			got := onPTYAtOK(t, env, cols, tc.args...)
			name := "bnpl " + strings.Join(tc.args, " ")
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s at %d columns lacks %q:\n%s", name, cols, w, got)
				}
			}
			for _, reason := range []string{"unreceived_refund", "product_issue", "identity_theft", "not_delivered"} {
				if cut := reason[:len(reason)-2]; strings.Count(got, cut) != strings.Count(got, reason) {
					t.Errorf("%s at %d columns cuts %s:\n%s", name, cols, reason, got)
				}
			}
			if strings.Contains(got, "…") {
				t.Errorf("%s at %d columns cuts a value:\n%s", name, cols, got)
			}
			if wide := wideLines(got, int(cols)); len(wide) > 0 {
				t.Errorf("%s at %d columns, lines wider:\n%s", name, cols, strings.Join(wide, "\n"))
			}
		}
	}
	// At 150 columns the list has the room for every reason.
	got := onPTYAtOK(t, env, 150, "--live", "disputes", "list", "--all")
	for _, reason := range []string{"unreceived_refund", "product_issue", "identity_theft", "not_delivered"} {
		if !strings.Contains(got, "  "+reason+"  ") {
			t.Errorf("at 150 columns the list lacks the reason %s:\n%s", reason, got)
		}
	}
}

// A webhook's URL is whole on one line in webhooks list and get, at 80
// and 150 columns: one that fits beside or under its row, and one longer
// than the terminal on a line of its own, never broken after a "/".
func TestWebhookURLsWholeOnPTY(t *testing.T) {
	env := ptyEnv(t)
	urls := []string{
		"https://hooks.shop.example.com/bnpl/payments/notifications/from-the-service",
		"https://notifications.very-long-merchant-domain-name.example.com/integrations/bnpl/v2/payment-events/receiver?tenant=acme",
	}
	var ids []string
	for _, u := range urls {
		ids = append(ids, bnplOut(t, env, "webhooks", "add", u, "-o", "json", "--jq", ".id"))
	}
	bnplOut(t, env, "--live", "dispute-webhooks", "add", urls[1], "-q")
	views := []struct {
		args []string
		want []string
	}{
		{[]string{"webhooks", "list"}, urls},
		{[]string{"--live", "dispute-webhooks", "list"}, urls[1:]},
		{[]string{"webhooks", "get", ids[0]}, urls[:1]},
		{[]string{"webhooks", "get", ids[1]}, urls[1:]},
	}
	for _, cols := range []uint16{80, 150} {
		for _, v := range views {
			got := onPTYAtOK(t, env, cols, v.args...)
			name := "bnpl " + strings.Join(v.args, " ")
			for _, u := range v.want {
				if !strings.Contains(got, u) {
					t.Errorf("%s at %d columns: %s is not whole on one line:\n%s", name, cols, u, got)
				}
			}
			if wide := wideExcept(got, int(cols), urls...); len(wide) > 0 {
				t.Errorf("%s at %d columns, lines wider:\n%s", name, cols, strings.Join(wide, "\n"))
			}
		}
	}
}

// Every row of sandbox deliveries starts with the attempt's date and time
// of day together, at 80 and 150 columns: no row shows a time without its
// date, none parts the two.
func TestDeliveriesDatedOnEveryRowOnPTY(t *testing.T) {
	env := ptyEnv(t)
	long := "https://notifications.very-long-merchant-domain-name.example.com/integrations/bnpl/v2/payment-events/receiver?tenant=acme"
	bnplOut(t, env, "webhooks", "add", "https://hooks.example.com/bnpl", "-q")
	bnplOut(t, env, "webhooks", "add", long, "-q")
	id := authorizedPayment(t, env)
	bnplOut(t, env, "payments", "capture", id, "--amount", "100.00", "-q")
	n, err := strconv.Atoi(bnplOut(t, env, "sandbox", "deliveries", "-o", "json", "--jq", "length"))
	if err != nil || n < 4 {
		t.Fatalf("%d deliveries (%v), want 4 or more", n, err)
	}
	row := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ  [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}  `)
	id36 := regexp.MustCompile(`^\S*\s*[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}  `)
	for _, cols := range []uint16{80, 150} {
		got := onPTYAtOK(t, env, cols, "sandbox", "deliveries", "-q")
		rows := 0
		for _, line := range strings.Split(got, "\n") {
			switch {
			case row.MatchString(line):
				rows++
			case id36.MatchString(line) && !strings.HasPrefix(line, " "):
				t.Errorf("at %d columns a row without its whole date and time: %q", cols, line)
			}
		}
		if rows != n {
			t.Errorf("at %d columns %d rows start with their date and time, want %d:\n%s", cols, rows, n, got)
		}
		if !strings.Contains(got, long) {
			t.Errorf("at %d columns the long URL is not whole:\n%s", cols, got)
		}
		if wide := wideExcept(got, int(cols), long); len(wide) > 0 {
			t.Errorf("at %d columns, lines wider:\n%s", cols, strings.Join(wide, "\n"))
		}
	}
}

// payments get shows the buyer's phone, so that a search by phone can be
// confirmed on the detail view, and the order's items, at 80 and 150
// columns.
func TestPaymentsGetShowsPhoneAndItemsOnPTY(t *testing.T) {
	env := ptyEnv(t)
	seedEveryState(t, env)
	phone := regexp.MustCompile(`(?m)^Phone: +\+971500000011$`)
	item := regexp.MustCompile(`(?m)^SKU-LAMP +Desk lamp +1 +250\.00 AED$`)
	for _, cols := range []uint16{80, 150} {
		got := onPTYAtOK(t, env, cols, "payments", "get", "f1a7e000-0000-4000-8000-000000000001")
		if !phone.MatchString(got) {
			t.Errorf("at %d columns no buyer phone:\n%s", cols, got)
		}
		if !strings.Contains(got, "\nItems\n") || !item.MatchString(got) {
			t.Errorf("at %d columns the items are not shown whole:\n%s", cols, got)
		}
		if wide := wideLines(got, int(cols)); len(wide) > 0 {
			t.Errorf("at %d columns, lines wider:\n%s", cols, strings.Join(wide, "\n"))
		}
	}
}
