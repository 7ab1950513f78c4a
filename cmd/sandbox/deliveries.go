package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
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
	following
	PaymentID string
	DisputeID string
	Status    string
}

func newDeliveriesCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &DeliveriesOptions{}
	cmd := &cobra.Command{
		Use:   "deliveries [--follow] [--payment ID | --dispute ID] [--status failed]",
		Short: "List the sandbox's webhook delivery attempts, and resend a delivery",
		Long: `List every attempt the sandbox made to deliver a webhook notification, newest
first: the delivery id, when, the event (authorized, captured, refunded, closed,
updated, rejected, expired, or a dispute's new status), the URL, the payment or
dispute, the attempt number, the receiver's HTTP status or the error, and the
latency. A delivery not answered 200 is retried after 1, 2, 3 and 4 minutes (see
--webhook-retry-scale on serve); each retry is a line of its own.

--follow prints the latest attempts, then each new one as it happens, until Ctrl-C
(which exits 130, as other waits do). Tables are for people; -o json and -o jsonl
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
				if err := cmdutil.CheckUUID("payment", opts.PaymentID); err != nil {
					return err
				}
				q.Set("payment", opts.PaymentID)
			case opts.DisputeID != "":
				if err := cmdutil.CheckUUID("dispute", opts.DisputeID); err != nil {
					return err
				}
				q.Set("dispute", opts.DisputeID)
			}
			switch strings.ToLower(opts.Status) {
			case "":
			case "failed":
				q.Set("status", "failed")
			default:
				return cmdutil.UsageHint("the one status filter is failed (every attempt not answered 200)", "invalid --status %q", opts.Status)
			}
			return opts.tail(cmd.Context(), f, "/_sandbox/delivery-attempts", "attempts", q, deliveryColumns)
		},
	}
	fl := cmd.Flags()
	opts.register(fl, "attempts")
	fl.StringVar(&opts.PaymentID, "payment", "", "only the deliveries of this payment (its own and its disputes')")
	fl.StringVar(&opts.DisputeID, "dispute", "", "only the deliveries of this dispute")
	fl.StringVar(&opts.Status, "status", "", "failed: only attempts not answered 200")
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
				err = printer.List(deliveryColumns, []json.RawMessage{raw})
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

var deliveryColumns = []output.Column{
	{Header: "ID", Path: "delivery_id", Kind: output.KindID},
	{Header: "TIME", Path: "at", Kind: output.KindTime},
	{Header: "EVENT", Path: "event", Kind: output.KindPlain},
	{Header: "PAYMENT/DISPUTE", Kind: output.KindReference, Value: func(rec map[string]any) string {
		if d, _ := rec["dispute_id"].(string); d != "" {
			return d
		}
		p, _ := rec["payment_id"].(string)
		return p
	}},
	{Header: "TRY", Kind: output.KindPlain, Value: func(rec map[string]any) string {
		n := output.String(rec["attempt"])
		if rec["resend"] == true {
			n += " resend"
		}
		return n
	}},
	{Header: "STATUS", Path: "outcome", Kind: output.KindStatus},
	{Header: "RESULT", Kind: output.KindText, Value: func(rec map[string]any) string {
		st := number(rec["http_status"])
		e, _ := rec["error"].(string)
		if st == 200 && e == "" {
			return "200"
		}
		return attemptResult(int(st), e)
	}},
	{Header: "LATENCY", Kind: output.KindPlain, Value: latencyCell},
	{Header: "URL", Path: "url", Kind: output.KindReference},
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

// following is --follow and --interval, shared by the verbs that print a
// record of the sandbox and can keep printing it.
type following struct {
	Follow   bool
	Interval time.Duration
}

func (o *following) register(fl *pflag.FlagSet, what string) {
	fl.BoolVarP(&o.Follow, "follow", "f", false, "keep printing new "+what+" until Ctrl-C")
	fl.DurationVar(&o.Interval, "interval", time.Second, "time between reads with --follow")
}

// tail checks the flags and prints the records at path (see tail below).
func (o *following) tail(ctx context.Context, f *cmdutil.Factory, path, field string, q url.Values, cols []output.Column) error {
	if o.Interval <= 0 {
		return cmdutil.Usagef("--interval must be positive, got %s", o.Interval)
	}
	return tail(ctx, f, path, field, q, cols, o.Follow, o.Interval)
}

// tail prints what a list endpoint of the sandbox answers (newest first
// in the answer, shown oldest first so that a followed list reads down),
// then, with follow, polls it with the cursor it answered until ctx ends.
func tail(ctx context.Context, f *cmdutil.Factory, path, field string, q url.Values, cols []output.Column, follow bool, every time.Duration) error {
	printer, err := f.Printer()
	if err != nil {
		return err
	}
	stream := printer.Stream(cols)
	page := func(q url.Values) (int64, int, error) {
		raw, err := sandboxCall(ctx, f, http.MethodGet, path, q, nil)
		if err != nil {
			return 0, 0, err
		}
		var body map[string]json.RawMessage
		if err := json.Unmarshal(raw, &body); err != nil {
			return 0, 0, fmt.Errorf("sandbox answered something unexpected: %w", err)
		}
		var recs []json.RawMessage
		var cursor int64
		if err := json.Unmarshal(body[field], &recs); err != nil {
			return 0, 0, fmt.Errorf("sandbox answered something unexpected: %w", err)
		}
		_ = json.Unmarshal(body["cursor"], &cursor)
		if q.Get("after") == "" {
			for i, j := 0, len(recs)-1; i < j; i, j = i+1, j-1 {
				recs[i], recs[j] = recs[j], recs[i]
			}
		}
		for _, r := range recs {
			if err := stream.Write(r); err != nil {
				return 0, 0, err
			}
		}
		return cursor, len(recs), stream.Flush()
	}
	cursor, n, err := page(q)
	if err != nil {
		stream.Close()
		return err
	}
	if !follow {
		if n == 0 && !printer.IsJSON() {
			f.Noticef("nothing recorded yet")
		}
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
		next := url.Values{}
		for k, v := range q {
			next[k] = v
		}
		next.Set("after", strconv.FormatInt(cursor, 10))
		c, _, err := page(next)
		if err != nil {
			if errors.Is(err, context.Canceled) || ctx.Err() != nil {
				stream.Close()
				return cmdutil.ErrInterrupted
			}
			stream.Close()
			return err
		}
		cursor = max(cursor, c)
	}
}
