package payments

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// TimelineColumns are the columns of a payment's timeline. The time, the
// amount and the id are never cut nor broken; the event and its detail
// wrap between words (an event name stays whole) and, on a terminal too
// narrow for them beside the rest, go on the lines under their row.
var TimelineColumns = []output.Column{
	{Header: "AT", Path: "at", Kind: output.Whole(output.KindTime)},
	{Header: "EVENT", Path: "event", Kind: output.Below(output.KindID)},
	{Header: "AMOUNT", Path: "amount", Kind: output.KindMoney, CurrencyPath: "currency"},
	{Header: "CURRENCY", Path: "currency", TableHidden: true},
	{Header: "ID", Path: "id", Kind: output.KindID},
	{Header: "DETAIL", Path: "detail", Kind: output.Below(output.KindText)},
}

// Event is one line of a payment's timeline, as -o json prints it. At is
// nil when nobody says when it happened (the service gives no time for an
// authorization or a close); such an event sits where it must have been.
type Event struct {
	At       *time.Time `json:"at"`
	Event    string     `json:"event"`
	Amount   string     `json:"amount,omitempty"`
	Currency string     `json:"currency,omitempty"`
	// ID is the capture's, refund's, dispute's or delivery's id.
	ID     string `json:"id,omitempty"`
	Detail string `json:"detail,omitempty"`

	// after orders an event with no time of its own: it goes after those
	// at this time.
	after time.Time
	seq   int
}

// Delivery is one webhook delivery attempt a sandbox made for a payment
// (GET /_sandbox/delivery-attempts).
type Delivery struct {
	DeliveryID string    `json:"delivery_id"`
	Attempt    int       `json:"attempt"`
	At         time.Time `json:"at"`
	Event      string    `json:"event"`
	URL        string    `json:"url"`
	DisputeID  string    `json:"dispute_id"`
	Outcome    string    `json:"outcome"`
	HTTPStatus int       `json:"http_status"`
	Error      string    `json:"error"`
	Resend     bool      `json:"resend"`
}

// Timeline puts what is known of a payment in time order: its creation,
// authorization, each capture and refund, its close, each dispute and the
// entries of its history, and the webhook deliveries a sandbox made for it.
// The service gives no time for an authorization or a close: a sandbox's
// delivery of that event gives it; otherwise the event is placed where it
// must have been (an authorization after the creation, a close after the
// last capture and before the first refund) with no time.
func Timeline(p *api.Payment, disputes []api.Dispute, deliveries []Delivery) []Event {
	tl := &timeline{p: p, cur: p.Currency, firstOf: firstDeliveries(deliveries)}
	tl.payment()
	tl.moves()
	for i := range disputes {
		tl.dispute(&disputes[i])
	}
	for i := range deliveries {
		tl.delivery(&deliveries[i])
	}
	evs := tl.evs
	sort.SliceStable(evs, func(i, j int) bool {
		ti, tj := evs[i].when(), evs[j].when()
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		// An event placed after a time goes after those at it.
		if (evs[i].At == nil) != (evs[j].At == nil) {
			return evs[i].At != nil
		}
		return evs[i].seq < evs[j].seq
	})
	return evs
}

// timeline is a payment's timeline being put together.
type timeline struct {
	p       *api.Payment
	cur     string
	evs     []Event
	firstOf map[string]*time.Time
	// created and lastCapture are where events with no time of their
	// own are placed after.
	created, lastCapture time.Time
}

func (tl *timeline) add(e Event) { e.seq = len(tl.evs); tl.evs = append(tl.evs, e) }

// firstDeliveries are the times of the first delivery of each payment
// event: when it happened, as near as a sandbox tells.
func firstDeliveries(deliveries []Delivery) map[string]*time.Time {
	firstOf := map[string]*time.Time{}
	for i := range deliveries {
		d := &deliveries[i]
		if d.DisputeID != "" || d.Resend {
			continue
		}
		if t, ok := firstOf[d.Event]; !ok || d.At.Before(*t) {
			firstOf[d.Event] = &d.At
		}
	}
	return firstOf
}

// payment adds the payment's creation and how its checkout ended.
func (tl *timeline) payment() {
	p := tl.p
	if p.CreatedAt != nil {
		tl.created = *p.CreatedAt
		tl.add(Event{At: p.CreatedAt, Event: "created", Amount: money.Format(p.Amount, tl.cur), Currency: tl.cur})
	}
	authorized := p.Status == api.StatusAuthorized || p.Status == api.StatusClosed || len(p.Captures) > 0
	if authorized {
		tl.add(Event{At: tl.firstOf["authorized"], Event: "authorized", after: tl.created})
	}
	for _, st := range []struct{ status, event string }{{api.StatusRejected, "rejected"}, {api.StatusExpired, "expired"}} {
		if p.Status == st.status {
			tl.add(Event{At: tl.firstOf[st.event], Event: st.event, after: tl.created})
		}
	}
}

// moves adds the captures, the close and the refunds.
func (tl *timeline) moves() {
	p, cur := tl.p, tl.cur
	tl.lastCapture = tl.created
	for _, c := range p.Captures {
		e := Event{At: c.CreatedAt, Event: "captured", Amount: money.Format(c.Amount, cur), Currency: cur, ID: c.ID, after: tl.created}
		if c.ReferenceID != "" {
			e.Detail = "reference " + c.ReferenceID
		}
		if c.CreatedAt != nil && c.CreatedAt.After(tl.lastCapture) {
			tl.lastCapture = *c.CreatedAt
		}
		tl.add(e)
	}
	if p.Status == api.StatusClosed {
		e := Event{At: tl.firstOf["closed"], Event: "closed", after: tl.lastCapture}
		captured := p.Captured()
		switch {
		case captured.Equal(p.Amount):
			e.Detail = "captured in full"
		case captured.IsZero():
			e.Detail = "nothing captured: the customer was refunded"
		default:
			e.Detail = money.Display(p.Amount.Sub(captured), cur) + " not captured"
		}
		tl.add(e)
	}
	for _, r := range p.Refunds {
		e := Event{At: r.CreatedAt, Event: "refunded", Amount: money.Format(r.Amount, cur), Currency: cur, ID: r.ID, after: tl.lastCapture}
		var parts []string
		if r.ReferenceID != "" {
			parts = append(parts, "reference "+r.ReferenceID)
		}
		if r.Reason != "" {
			parts = append(parts, r.Reason)
		}
		e.Detail = strings.Join(parts, "; ")
		tl.add(e)
	}
}

// dispute adds a dispute's opening and the entries of its history.
func (tl *timeline) dispute(d *api.Dispute) {
	tl.add(Event{At: d.CreatedAt, Event: "dispute opened", Amount: money.Format(d.Amount, d.Currency), Currency: d.Currency,
		ID: d.ID, Detail: strings.TrimSpace("reason " + d.Reason + "; now " + d.Status), after: tl.lastCapture})
	for _, h := range d.History {
		if h.EventType == "dispute_created" {
			continue // the line above
		}
		detail := h.Content
		if detail == "" {
			detail = h.Note
		}
		if h.Source != "" {
			detail = strings.TrimSpace(h.Source + ": " + detail)
		}
		tl.add(Event{At: h.CreatedAt, Event: "dispute " + strings.ReplaceAll(h.EventType, "_", " "), ID: d.ID, Detail: detail, after: tl.lastCapture})
	}
}

// delivery adds a webhook delivery a sandbox made.
func (tl *timeline) delivery(d *Delivery) {
	at := d.At
	e := Event{At: &at, Event: "webhook " + d.Event, ID: d.DeliveryID}
	outcome := d.Outcome
	switch {
	case d.Error != "":
		outcome += ": " + d.Error
	case d.HTTPStatus != 0:
		outcome += fmt.Sprintf(" (%d)", d.HTTPStatus)
	}
	e.Detail = fmt.Sprintf("attempt %d %s, %s", d.Attempt, outcome, d.URL)
	if d.Resend {
		e.Detail = "resend " + outcome + ", " + d.URL
	}
	tl.add(e)
}

func (e *Event) when() time.Time {
	if e.At != nil {
		return *e.At
	}
	return e.after
}

// TimelineRecords turns events into the records a printer shows.
func TimelineRecords(evs []Event) []json.RawMessage {
	recs := make([]json.RawMessage, 0, len(evs))
	for i := range evs {
		e := evs[i]
		if e.At != nil {
			u := e.At.UTC()
			e.At = &u
		}
		b, err := json.Marshal(e)
		if err == nil {
			recs = append(recs, b)
		}
	}
	return recs
}

// TimelineOptions are the inputs of `payments timeline`.
type TimelineOptions struct {
	onePayment
	Target func() (*config.Target, error)
	Notice func(format string, args ...any)
}

func newTimelineCmd(f *cmdutil.Factory, run func(context.Context, *TimelineOptions) error) *cobra.Command {
	opts := &TimelineOptions{onePayment: newOnePayment(f, f.PagedPrinter), Target: f.Target, Notice: f.Noticef}
	return opts.command(f, &cobra.Command{
		Use:   "timeline <payment-id | order:REF>",
		Short: "Show what happened to a payment, in time order",
		Long: `Show what happened to a payment, oldest first: its creation, authorization, each
capture and refund, its close, each dispute of a live payment and every change of it,
and, on a sandbox, every webhook delivery attempt made for it, with times.

The service gives no time for an authorization or a close. On a sandbox its own
record gives it (the sandbox's clock, as for captures and refunds); elsewhere the
event is shown where it must have been (an authorization after the creation, a
close after the last capture and before the first refund) without a time. -o json
prints the events as records: at, event, amount, currency, id, detail.`,
		Example: `  bnpl payments timeline 3fa85f64-5717-4562-b3fc-2c963f66afa6
  bnpl payments timeline order:ORDER-1001
  bnpl payments timeline order:ORDER-1001 -o json --jq '.[] | select(.event == "captured") | .at'`,
	}, nil, runWith(run, timelineRun, opts))
}

func timelineRun(ctx context.Context, opts *TimelineOptions) error {
	printer, client, p, err := opts.read(ctx)
	if err != nil {
		return err
	}
	disputes := readDisputes(ctx, client, p, opts.Notice)
	return printer.List(TimelineColumns, TimelineRecords(PaymentTimeline(ctx, client, opts.Target, p, disputes, true)))
}

// PaymentTimeline is the one timeline of a payment that payments get and
// payments timeline both show: Timeline over the payment and its
// disputes, every event with the time a sandbox's record gives the
// authorization and the close. withDeliveries adds a sandbox's webhook
// deliveries (payments timeline); payments get leaves them out, as they
// are attempts to tell of the events, not events of the payment.
func PaymentTimeline(ctx context.Context, client *api.Client, target func() (*config.Target, error), p *api.Payment, disputes []api.Dispute, withDeliveries bool) []Event {
	var deliveries []Delivery
	var times *SandboxTimes
	if target == nil {
		return Timeline(p, disputes, nil)
	}
	if t, err := target(); err == nil && (t.Embedded || cmdutil.LoopbackURL(t.BaseURL)) {
		if withDeliveries {
			deliveries = sandboxDeliveries(ctx, client, p.ID)
		}
		times = sandboxTimes(ctx, client, p.ID)
	}
	return times.redate(Timeline(p, disputes, deliveries))
}

// readDisputes reads a live payment's disputes; a failure is said, and the
// payment shown without them.
func readDisputes(ctx context.Context, client *api.Client, p *api.Payment, notice func(string, ...any)) []api.Dispute {
	if p.IsTest {
		return nil
	}
	disputes, err := client.PaymentDisputes(ctx, p.ID)
	if err != nil {
		if notice != nil {
			notice("warning: could not read the payment's disputes: %v", err)
		}
		return nil
	}
	return disputes
}

// sandboxDeliveries reads the webhook delivery attempts a sandbox made for
// a payment, oldest first. The target is a sandbox only maybe (a loopback
// address may be anything): whatever does not answer as one gives none.
func sandboxDeliveries(ctx context.Context, client *api.Client, id string) []Delivery {
	resp, err := client.Raw(ctx, api.RawRequest{Method: "GET", Path: "/_sandbox/delivery-attempts",
		Query: url.Values{"payment": {id}, "limit": {"1000"}}})
	if err != nil {
		return nil
	}
	var answer struct {
		Attempts []Delivery `json:"attempts"`
	}
	if json.Unmarshal(resp.Body, &answer) != nil {
		return nil
	}
	return answer.Attempts
}

// SandboxTimes are the times a sandbox keeps of a payment's moves that the
// payment does not show (GET /_sandbox/payments/{id}/times, its clock).
type SandboxTimes struct {
	AuthorizedAt *time.Time `json:"authorized_at"`
	ClosedAt     *time.Time `json:"closed_at"`
}

// redate dates a timeline's authorization and close by the sandbox's
// record of them (the sandbox's clock, as its captures and refunds are),
// rather than by a delivery or not at all, and puts the events back in
// time order, an event with no time after those at the time it follows.
func (t *SandboxTimes) redate(evs []Event) []Event {
	if t == nil {
		return evs
	}
	for i := range evs {
		switch {
		case evs[i].Event == "authorized" && t.AuthorizedAt != nil:
			evs[i].At = t.AuthorizedAt
		case evs[i].Event == "closed" && t.ClosedAt != nil:
			evs[i].At = t.ClosedAt
		}
	}
	sort.SliceStable(evs, func(i, j int) bool {
		ti, tj := evs[i].when(), evs[j].when()
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return evs[i].At != nil && evs[j].At == nil
	})
	return evs
}

// sandboxTimes reads when a sandbox authorized and closed a payment; nil
// from whatever does not answer as a sandbox.
func sandboxTimes(ctx context.Context, client *api.Client, id string) *SandboxTimes {
	resp, err := client.Raw(ctx, api.RawRequest{Method: "GET", Path: "/_sandbox/payments/" + url.PathEscape(id) + "/times"})
	if err != nil {
		return nil
	}
	var times SandboxTimes
	if json.Unmarshal(resp.Body, &times) != nil {
		return nil
	}
	return &times
}
