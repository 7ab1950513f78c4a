package listen

import (
	"slices"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/webhook"
)

// paymentEvents are the events of payment notifications listen names.
var paymentEvents = []string{"authorized", "captured", "refunded", "closed", "updated", "rejected", "expired", "auth_expired"}

// knownEvents are what --events takes: a payment event, a dispute status
// (the event of a dispute notification), or a kind, "payment" or
// "dispute", for every notification of that kind.
func knownEvents() []string {
	out := append([]string{webhook.KindPayment, webhook.KindDispute}, paymentEvents...)
	return append(out, api.DisputeStatuses...)
}

// eventFilter is --events: nil lets every notification through.
type eventFilter map[string]bool

// parseEvents checks --events, refusing a name listen never reports.
func parseEvents(list []string) (eventFilter, error) {
	if len(list) == 0 {
		return nil, nil
	}
	known := knownEvents()
	f := eventFilter{}
	for _, e := range list {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" {
			continue
		}
		if !slices.Contains(known, e) {
			return nil, cmdutil.UsageHint("use one or more of "+strings.Join(known, ", "), "unknown event %q in --events", e)
		}
		f[e] = true
	}
	if len(f) == 0 {
		return nil, cmdutil.Usagef("--events needs at least one event")
	}
	return f, nil
}

// skip reports a notification --events does not ask for.
func (f eventFilter) skip(n webhook.Notification) bool {
	if f == nil {
		return false
	}
	event := n.Event
	if event == "" {
		event = n.Status
	}
	return !f[strings.ToLower(event)] && !f[strings.ToLower(n.Kind)]
}

// String is the filter for the start line, in the order given.
func (f eventFilter) String() string {
	var names []string
	for _, e := range knownEvents() {
		if f[e] {
			names = append(names, e)
		}
	}
	return strings.Join(names, ",")
}
