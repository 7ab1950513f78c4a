package sandbox

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

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
	cmd := opts.command(f, &cobra.Command{
		Use:   "deliveries [--follow] [--limit N | --all] [--payment ID | --dispute ID] [--status failed|delivered|pending]",
		Short: "List the sandbox's webhook delivery attempts; resend or drop deliveries",
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
the time it is due; bnpl sandbox deliveries drop ends them unsent (for a host name
a hermetic sandbox never looks up, a receiver that is gone). --status failed and
--status delivered list the attempts not answered 200, and those answered 200. An attempt touched by a delivery fault (serve --faults dup=,
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
  bnpl sandbox deliveries resend 9b2f6c1e-4a47-4a3c-9d1e-5f8e2a7b3c10
  bnpl sandbox deliveries drop`,
		// It lists, and holds resend and drop: any argument is a mistyped verb.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.UsageHint("its commands are resend (`bnpl sandbox deliveries resend DELIVERY_ID`) and drop",
					"unknown command %q for %q", args[0], cmd.CommandPath())
			}
			return nil
		},
	}, "attempts", func(cmd *cobra.Command) (tailSpec, error) { return opts.spec(cmd.Context(), f) })
	fl := cmd.Flags()
	fl.StringVar(&opts.PaymentID, "payment", "", "only the deliveries of this payment (its own and its disputes'); an id or order:REF")
	fl.StringVar(&opts.DisputeID, "dispute", "", "only the deliveries of this dispute")
	fl.StringVar(&opts.Status, "status", "", "failed: only attempts not answered 200; delivered: only those answered 200; pending: the deliveries waiting for an attempt, with when it is due")
	cmd.AddCommand(newResendCmd(f), newDropCmd(f))
	return cmd
}

// spec checks the filters and says what to list: the attempts, or the
// deliveries pending, of a payment or a dispute, with a status.
func (o *DeliveriesOptions) spec(ctx context.Context, f *cmdutil.Factory) (tailSpec, error) {
	spec := tailSpec{path: "/_sandbox/delivery-attempts", field: "attempts", q: url.Values{}, cols: DeliveryColumns, noun: "deliveries", statuses: "status failed/delivered"}
	if err := o.subject(ctx, f, &spec); err != nil {
		return spec, err
	}
	switch status := strings.ToLower(o.Status); status {
	case "":
	case "failed", "delivered":
		spec.q.Set("status", status)
		spec.filters = append(spec.filters, "status "+status)
	case "pending":
		if o.Follow {
			return spec, cmdutil.Usagef("--status pending lists what waits now; it cannot be used with --follow")
		}
		spec.path = "/_sandbox/pending-deliveries"
		spec.filters = append([]string{"status pending"}, spec.filters...)
	default:
		return spec, cmdutil.UsageHint("the status filters are failed (every attempt not answered 200), delivered (those answered 200) and pending (deliveries waiting for an attempt)", "invalid --status %q", o.Status)
	}
	return spec, nil
}

// subject checks --payment and --dispute and adds the one given to spec.
func (o *DeliveriesOptions) subject(ctx context.Context, f *cmdutil.Factory, spec *tailSpec) error {
	switch {
	case o.PaymentID != "" && o.DisputeID != "":
		return cmdutil.Usagef("--payment and --dispute cannot be used together")
	case o.PaymentID != "":
		if err := cmdutil.CheckPaymentArg(o.PaymentID); err != nil {
			return err
		}
		id, err := paymentArg(ctx, f, o.PaymentID)
		if err != nil {
			return err
		}
		o.PaymentID = id
		spec.q.Set("payment", id)
		spec.filters = append(spec.filters, "payment "+id)
	case o.DisputeID != "":
		if err := cmdutil.CheckUUID("dispute", o.DisputeID); err != nil {
			return err
		}
		spec.q.Set("dispute", o.DisputeID)
		spec.filters = append(spec.filters, "dispute "+o.DisputeID)
	}
	return nil
}

// DeliveryColumns are the columns of `sandbox deliveries` in format:
// ids whole, the event uncut, the time of day kept with the date where the
// day changes (see timeColumns), the URL and the result shortened before
// anything else.
func DeliveryColumns(ios *output.IOStreams, format string) []output.Column {
	cols := timeColumns(ios, format)
	return append(cols,
		output.Column{Header: "ID", Path: "delivery_id", Kind: output.KindID},
		// An event name cut ("auth_expi…") says nothing: it is never cut;
		// too narrow a line puts it under its row, whole.
		output.Column{Header: "EVENT", Path: "event", Kind: output.Below(output.KindID), Style: plainStyle},
		// What the delivery was about, read by people matching rows: never
		// dropped; too narrow a line puts it under its row.
		output.Column{Header: "PAYMENT/DISPUTE", Kind: output.Below(output.KindID), Value: func(rec map[string]any) string {
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

// timeColumns are the TIME column of the sandbox's records (deliveries,
// logs). On a terminal every row shows its date and its time of day, as
// one value that is never shortened, dropped or parted (2006-01-02
// 15:04:05Z in the utc style): a row read alone says when. The relative
// style is one column as anywhere; piped, the raw value.
func timeColumns(ios *output.IOStreams, format string) []output.Column {
	if format != output.FormatTable || !ios.IsStdoutTTY() || ios.TimeStyle() == output.TimeRelative {
		return []output.Column{{Header: "TIME", Path: "at", Kind: output.KindTime}}
	}
	return []output.Column{{Header: "TIME", Path: "at", Kind: output.Whole(output.KindTime)}}
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
