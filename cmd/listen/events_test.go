package listen

import (
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/webhook"
)

func TestParseEvents(t *testing.T) {
	f, err := parseEvents([]string{"Captured", " dispute", "new"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		n    webhook.Notification
		skip bool
	}{
		{webhook.Notification{Kind: webhook.KindPayment, Event: "captured"}, false},
		{webhook.Notification{Kind: webhook.KindPayment, Event: "authorized"}, true},
		{webhook.Notification{Kind: webhook.KindPayment, Status: "CAPTURED"}, false},
		{webhook.Notification{Kind: webhook.KindDispute, Event: "declined"}, false},
		{webhook.Notification{Kind: webhook.KindUnknown}, true},
	}
	for _, c := range cases {
		if got := f.skip(c.n); got != c.skip {
			t.Errorf("skip(%+v) = %v, want %v", c.n, got, c.skip)
		}
	}
	if got := f.String(); got != "dispute,captured,new" {
		t.Errorf("String() = %q", got)
	}
	if nilFilter, err := parseEvents(nil); err != nil || nilFilter.skip(webhook.Notification{}) {
		t.Errorf("no --events must pass everything, got %v %v", nilFilter, err)
	}
	for _, bad := range [][]string{{"capture"}, {" ", ""}} {
		if _, err := parseEvents(bad); err == nil {
			t.Errorf("parseEvents(%q) accepted", bad)
		} else if len(bad[0]) > 1 && !strings.Contains(err.Error(), `unknown event "capture"`) {
			t.Errorf("parseEvents(%q): %v", bad, err)
		}
	}
}
