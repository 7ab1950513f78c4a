package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// sandboxCall is how deliveries and logs reach the sandbox they act on:
// one call, so that the choice of sandbox (today Control: --sandbox-url,
// else the embedded state) is made in one place for them.
var sandboxCall = Control

// DeliveriesOptions are the inputs of `bnpl sandbox deliveries`.
type DeliveriesOptions struct {
	listing
	PaymentID string
	DisputeID string
	Status    string
}

func newDeliveriesCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &DeliveriesOptions{}
	cmd := &cobra.Command{
		Use:   "deliveries [--follow] [--limit N | --all] [--payment ID | --dispute ID] [--status failed]",
		Short: "List the sandbox's webhook delivery attempts, and resend a delivery",
		Long: `List every attempt the sandbox made to deliver a webhook notification, newest
first: when, the delivery id, the event, the payment or dispute, the attempt
number, whether it was delivered, the latency, the receiver's HTTP status or the
error, and the URL. The event is authorized, captured, refunded, closed, updated,
rejected, expired (the payment became EXPIRED: cancelled, or not finished in
time), auth_expired (its authorization lapsed: it stays AUTHORIZED and can no
longer be captured), or a dispute's new status. A delivery not answered 200 is
retried after 1, 2, 3 and 4 minutes (see --webhook-retry-scale on serve); each
retry is a line of its own. Times are this machine's clock, when the attempt was
made, not the sandbox clock that bnpl sandbox clock --advance moves.

Deliveries are kept in the state, as an outbox: the command that changed a payment
records them, and the process serving the state delivers them, whichever process
recorded them. --status pending lists those still waiting for an attempt, with
the time it is due. An attempt touched by a delivery fault (serve --faults dup=,
reorder=, fail=, late=) shows it after its number: 1+dup, 1+reorder, 2+fail.

The latest 100 attempts are shown (--limit N for another number, --all for every
one), and stderr says how many there are when that is not all of them. --follow
prints the latest attempts in the order they were made, then each new one as it
happens, until Ctrl-C (which exits 130, as other waits do). Tables are for people; -o json and -o jsonl
keep the sandbox's raw fields (at, delivery_id, attempt, http_status, error,
latency_ms, ...).

Each delivery carries a Bnpl-Sandbox-Event header naming the event and a
Bnpl-Sandbox-Delivery header with its id (the service sends neither).`,
		Example: `  bnpl sandbox deliveries
  bnpl sandbox deliveries --payment 3fa85f64-5717-4562-b3fc-2c963f66afa6
  bnpl sandbox deliveries --status failed -o jsonl
  bnpl sandbox deliveries --follow
  bnpl sandbox deliveries resend 9b2f6c1e-4a47-4a3c-9d1e-5f8e2a7b3c10`,
		// It lists, and holds resend: any argument is a mistyped verb.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.UsageHint("its one command is resend: `bnpl sandbox deliveries resend DELIVERY_ID`",
					"unknown command %q for %q", args[0], cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			q := url.Values{}
			switch {
			case opts.PaymentID != "" && opts.DisputeID != "":
				return cmdutil.Usagef("--payment and --dispute cannot be used together")
			case opts.PaymentID != "":
				if err := cmdutil.CheckPaymentArg(opts.PaymentID); err != nil {
					return err
				}
				id, err := paymentArg(cmd.Context(), f, opts.PaymentID)
				if err != nil {
					return err
				}
				opts.PaymentID = id
				q.Set("payment", opts.PaymentID)
			case opts.DisputeID != "":
				if err := cmdutil.CheckUUID("dispute", opts.DisputeID); err != nil {
					return err
				}
				q.Set("dispute", opts.DisputeID)
			}
			pending := false
			switch strings.ToLower(opts.Status) {
			case "":
			case "failed":
				q.Set("status", "failed")
			case "pending":
				if opts.Follow {
					return cmdutil.Usagef("--status pending lists what waits now; it cannot be used with --follow")
				}
				pending = true
			default:
				return cmdutil.UsageHint("the status filters are failed (every attempt not answered 200) and pending (deliveries waiting for an attempt)", "invalid --status %q", opts.Status)
			}
			spec := tailSpec{path: "/_sandbox/delivery-attempts", field: "attempts", q: q, cols: DeliveryColumns, noun: "deliveries"}
			if pending {
				spec.path = "/_sandbox/pending-deliveries"
				spec.filters = append(spec.filters, "status pending")
			}
			switch {
			case opts.PaymentID != "":
				spec.filters = append(spec.filters, "payment "+opts.PaymentID)
			case opts.DisputeID != "":
				spec.filters = append(spec.filters, "dispute "+opts.DisputeID)
			}
			if st := q.Get("status"); st != "" {
				spec.filters = append(spec.filters, "status "+st)
			}
			return opts.tail(cmd, f, spec)
		},
	}
	fl := cmd.Flags()
	opts.register(f, fl, "attempts")
	fl.StringVar(&opts.PaymentID, "payment", "", "only the deliveries of this payment (its own and its disputes'); an id or order:REF")
	fl.StringVar(&opts.DisputeID, "dispute", "", "only the deliveries of this dispute")
	fl.StringVar(&opts.Status, "status", "", "failed: only attempts not answered 200; pending: the deliveries waiting for an attempt, with when it is due")
	cmd.AddCommand(newResendCmd(f))
	return cmd
}

func newResendCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "resend <delivery-id>",
		Short: "Send a delivery's notification again, now",
		Long: `Send the notification of a delivery again, now, to the webhook it was for (at its
URL and with its header as registered today), and print the attempt. The id is the
first column of ` + "`bnpl sandbox deliveries`" + `. A resend that is not answered 200 is
not retried; its attempt is listed like the others, marked as a resend.`,
		Example: `  bnpl sandbox deliveries resend 9b2f6c1e-4a47-4a3c-9d1e-5f8e2a7b3c10`,
		Args:    cmdutil.ExactArgs(1, "a delivery id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdutil.CheckUUID("delivery", args[0]); err != nil {
				return err
			}
			raw, err := sandboxCall(cmd.Context(), f, http.MethodPost, "/_sandbox/deliveries/"+args[0]+"/resend", nil, nil)
			if err != nil {
				return err
			}
			var a struct {
				Outcome    string `json:"outcome"`
				HTTPStatus int    `json:"http_status"`
				Error      string `json:"error"`
				URL        string `json:"url"`
			}
			if err := json.Unmarshal(raw, &a); err != nil {
				return fmt.Errorf("sandbox answered something that is not a delivery attempt: %w", err)
			}
			printer, err := f.Printer()
			if err != nil {
				return err
			}
			// One attempt: an object for machines, a row of the list's
			// table for people.
			if printer.IsJSON() {
				err = printer.Object(raw, nil)
			} else {
				err = printer.List(DeliveryColumns(f.IO, printer.Format()), []json.RawMessage{raw})
			}
			if err != nil {
				return err
			}
			if a.Outcome != "delivered" {
				return &resendFailed{msg: "the resend failed: " + attemptResult(a.HTTPStatus, a.Error)}
			}
			f.Noticef("resent delivery %s: answered %d", args[0], a.HTTPStatus)
			return nil
		},
	}
}

// resendFailed is a resend the receiver did not take: exit 1, the
// attempt having been printed.
type resendFailed struct{ msg string }

func (e *resendFailed) Error() string { return e.msg }
func (e *resendFailed) ExitCode() int { return cmdutil.ExitError }

func attemptResult(status int, errText string) string {
	switch {
	case errText != "" && status != 0:
		return errText
	case errText != "":
		return errText
	case status != 0:
		return strconv.Itoa(status)
	}
	return ""
}

// DeliveryColumns are the columns of `sandbox deliveries` in format:
// ids whole, the event uncut, the time of day kept (see timeColumns), the
// URL and the result shortened before anything else.
func DeliveryColumns(ios *output.IOStreams, format string) []output.Column {
	cols := timeColumns(ios, format)
	return append(cols,
		output.Column{Header: "ID", Path: "delivery_id", Kind: output.KindID},
		// An event name cut ("auth_expi…") says nothing: it gives way
		// only as statuses do, last.
		output.Column{Header: "EVENT", Path: "event", Kind: output.KindStatus, Style: plainStyle},
		output.Column{Header: "PAYMENT/DISPUTE", Kind: output.KindLinkID, Value: func(rec map[string]any) string {
			if d, _ := rec["dispute_id"].(string); d != "" {
				return d
			}
			p, _ := rec["payment_id"].(string)
			return p
		}},
		// The attempt number and the latency give way with the times,
		// before anything a person reads a row by.
		output.Column{Header: "TRY", Kind: output.KindReference, Value: func(rec map[string]any) string {
			n := output.String(rec["attempt"])
			if rec["resend"] == true {
				n += "+resend"
			}
			if f, _ := rec["fault"].(string); f != "" {
				n += "+" + f // the delivery fault that touched it
			}
			return n
		}},
		output.Column{Header: "STATUS", Path: "outcome", Kind: output.KindStatus},
		output.Column{Header: "LATENCY", Kind: output.KindReference, Value: latencyCell},
		// Why a delivery failed, what the row is read for: never cut nor
		// dropped; it wraps between words and, on a terminal too narrow
		// beside the time, id, event and status, goes under its row.
		output.Column{Header: "RESULT", Kind: output.Below(output.KindText), Value: func(rec map[string]any) string {
			st := number(rec["http_status"])
			e, _ := rec["error"].(string)
			if st == 200 && e == "" {
				return "200"
			}
			return attemptResult(int(st), e)
		}},
		output.Column{Header: "URL", Path: "url", Kind: output.Below(output.KindID)},
	)
}

func plainStyle(_ *output.ColorScheme, v string) string { return v }

// timeColumns show a record's time ("at"). In a table on a terminal, a
// record of the sandbox is read by its time of day, so it is a column of
// its own that is never cut (TIME, 15:04:05 with a Z in the utc style),
// beside the date (DATE), which goes first when the line is short (a time
// shortened to its date, as other views do, says nothing here); the
// relative style is one column as anywhere. Elsewhere the one TIME column
// of every view: a time in the --time style, the raw value when piped.
func timeColumns(ios *output.IOStreams, format string) []output.Column {
	style := ios.TimeStyle()
	if format != output.FormatTable || !ios.IsStdoutTTY() || style == output.TimeRelative {
		return []output.Column{{Header: "TIME", Path: "at", Kind: output.KindTime}}
	}
	at := func(rec map[string]any) (time.Time, bool) {
		t, ok := output.ParseServiceTime(output.String(rec["at"]))
		if !ok {
			return t, false
		}
		if style == output.TimeLocal {
			return t.Local(), true
		}
		return t.UTC(), true
	}
	return []output.Column{
		{Header: "DATE", Kind: output.KindTime, Value: func(rec map[string]any) string {
			if t, ok := at(rec); ok {
				return t.Format("2006-01-02")
			}
			return ""
		}},
		// Never cut, as an id is not: it is what a person matches rows by.
		{Header: "TIME", Kind: output.KindID, Value: func(rec map[string]any) string {
			t, ok := at(rec)
			switch {
			case !ok:
				return output.String(rec["at"])
			case style == output.TimeLocal:
				return t.Format("15:04:05")
			}
			return t.Format("15:04:05Z")
		}},
	}
}

func latencyCell(rec map[string]any) string {
	ms := number(rec["latency_ms"])
	return (time.Duration(ms * float64(time.Millisecond))).Round(100 * time.Microsecond).String()
}

// number reads a numeric field of a decoded record, however decoded.
func number(v any) float64 {
	n, _ := strconv.ParseFloat(output.String(v), 64)
	return n
}

// listing is --follow, --interval, --limit and --all, shared by the verbs
// that print a record of the sandbox, newest first, and can keep printing it.
type listing struct {
	Follow   bool
	Interval time.Duration
	Limit    int
	All      bool
}

// defaultListLimit is how many records a list shows without --limit.
const defaultListLimit = 100

// pageLimit is the most the sandbox answers in one call.
const pageLimit = 1000

func (o *listing) register(f *cmdutil.Factory, fl *pflag.FlagSet, what string) {
	fl.BoolVarP(&o.Follow, "follow", "f", false, "keep printing new "+what+" until Ctrl-C")
	// One letter, one meaning: -f is --field of bnpl api.
	f.DeprecateShort(fl, "follow", "use --follow (-f is --field of bnpl api)")
	fl.DurationVar(&o.Interval, "interval", time.Second, "time between reads with --follow")
	fl.IntVarP(&o.Limit, "limit", "L", defaultListLimit, "show at most this many of the latest "+what)
	fl.BoolVar(&o.All, "all", false, "show every one of the "+what+" kept")
}

// tailSpec is what a listing prints: the endpoint, the field holding the
// records, the query, the columns, what the records are called (the noun
// of "no requests match") and the filters in words.
type tailSpec struct {
	path, field string
	q           url.Values
	cols        func(ios *output.IOStreams, format string) []output.Column
	noun        string
	filters     []string
}

// tail checks the flags and prints the records (see tail below).
func (o *listing) tail(cmd *cobra.Command, f *cmdutil.Factory, spec tailSpec) error {
	if o.Interval <= 0 {
		return cmdutil.Usagef("--interval must be positive, got %s", o.Interval)
	}
	if o.Limit < 1 {
		return cmdutil.Usagef("--limit must be at least 1, got %d", o.Limit)
	}
	if o.All && o.Follow {
		return cmdutil.UsageHint("--follow starts from the latest --limit N and prints what comes after",
			"--all and --follow cannot be used together")
	}
	if o.All && cmd.Flags().Changed("limit") {
		return cmdutil.Usagef("--all and --limit cannot be used together")
	}
	want := o.Limit
	if o.All {
		want = 0
	}
	return tail(cmd.Context(), f, spec, want, o.Follow, o.Interval)
}

// tail prints what a list endpoint of the sandbox answers, newest first:
// the latest want records (every one when want is 0), a page of at most
// pageLimit at a time, saying on stderr when they are not all there are.
// With follow it prints the latest want in arrival order (oldest first,
// so that the list reads down), then polls the endpoint with the cursor
// it answered until ctx ends.
func tail(ctx context.Context, f *cmdutil.Factory, spec tailSpec, want int, follow bool, every time.Duration) error {
	// A list ends and may be paged; a followed one never ends.
	newPrinter := f.PagedPrinter
	if follow {
		newPrinter = f.Printer
	}
	printer, err := newPrinter()
	if err != nil {
		return err
	}
	stream := printer.Stream(spec.cols(f.IO, printer.Format()))
	type page struct {
		recs   []json.RawMessage
		cursor int64
		total  int
		oldest int64
	}
	get := func(q url.Values) (page, error) {
		var pg page
		raw, err := sandboxCall(ctx, f, http.MethodGet, spec.path, q, nil)
		if err != nil {
			return pg, err
		}
		var body map[string]json.RawMessage
		if err := json.Unmarshal(raw, &body); err != nil {
			return pg, fmt.Errorf("sandbox answered something unexpected: %w", err)
		}
		if err := json.Unmarshal(body[spec.field], &pg.recs); err != nil {
			return pg, fmt.Errorf("sandbox answered something unexpected: %w", err)
		}
		_ = json.Unmarshal(body["cursor"], &pg.cursor)
		pg.total = -1
		if t, ok := body["total"]; ok {
			_ = json.Unmarshal(t, &pg.total)
		}
		for _, r := range pg.recs {
			var k struct {
				Seq int64 `json:"seq"`
			}
			if json.Unmarshal(r, &k) == nil && (pg.oldest == 0 || k.Seq < pg.oldest) {
				pg.oldest = k.Seq
			}
		}
		return pg, nil
	}
	write := func(recs []json.RawMessage) error {
		for _, r := range recs {
			if err := stream.Write(r); err != nil {
				return err
			}
		}
		return stream.Flush()
	}
	query := func() url.Values {
		q := url.Values{}
		for k, v := range spec.q {
			q[k] = v
		}
		return q
	}
	// The latest records, newest first, page by page.
	shown, total := 0, -1
	var cursor int64
	var held []json.RawMessage // with follow: the first pages, printed oldest first
	for q := query(); ; {
		n := pageLimit
		if want > 0 {
			n = min(n, want-shown)
		}
		q.Set("limit", strconv.Itoa(n))
		pg, err := get(q)
		if err != nil {
			stream.Close()
			return err
		}
		if total < 0 {
			total, cursor = pg.total, pg.cursor
		}
		shown += len(pg.recs)
		if follow {
			held = append(held, pg.recs...)
		} else if err := write(pg.recs); err != nil {
			stream.Close()
			return err
		}
		if len(pg.recs) < n || (want > 0 && shown >= want) || pg.oldest <= 0 {
			break
		}
		q.Set("before", strconv.FormatInt(pg.oldest, 10))
	}
	if follow {
		slices.Reverse(held)
		if err := write(held); err != nil {
			stream.Close()
			return err
		}
	}
	{
		switch {
		case shown == 0 && len(spec.filters) > 0:
			f.Noticef("no %s match (%s)", spec.noun, strings.Join(spec.filters, ", "))
		case shown == 0:
			f.Noticef("no %s recorded yet", spec.noun)
		case total > shown:
			f.Noticef("showing %d of %d; --all for every one, or --limit %d", shown, total, total)
		}
	}
	if !follow {
		return stream.Close()
	}
	f.Noticef("following; Ctrl-C to stop")
	for {
		select {
		case <-ctx.Done():
			stream.Close()
			return cmdutil.ErrInterrupted
		case <-time.After(every):
		}
		next := query()
		next.Set("after", strconv.FormatInt(cursor, 10))
		pg, err := get(next)
		if err != nil {
			if errors.Is(err, context.Canceled) || ctx.Err() != nil {
				stream.Close()
				return cmdutil.ErrInterrupted
			}
			stream.Close()
			return err
		}
		if err := write(pg.recs); err != nil {
			stream.Close()
			return err
		}
		cursor = max(cursor, pg.cursor)
	}
}
