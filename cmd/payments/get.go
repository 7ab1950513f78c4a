package payments

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/recent"
)

// GetOptions are the inputs of `payments get`.
type GetOptions struct {
	onePayment
	Target func() (*config.Target, error)
	// Seen remembers the printed payment for shell completion; nil skips.
	Seen func(...recent.Entry)
	// Notice writes a line on stderr; nil drops it.
	Notice func(format string, args ...any)
}

func newGetCmd(f *cmdutil.Factory, run func(context.Context, *GetOptions) error) *cobra.Command {
	opts := &GetOptions{onePayment: newOnePayment(f, f.PagedPrinter), Target: f.Target, Seen: recent.Recorder(f.Getenv), Notice: f.Noticef}
	return opts.command(f, &cobra.Command{
		Use:   "get <payment-id | order:REF>",
		Short: "Show a payment with its captures, refunds and totals",
		Long: `Show a payment with its captures and refunds, and the totals a merchant acts on:
captured, refunded, capturable (what a capture may still take) and refundable.

An authorization that has expired is marked "(expired)", with nothing capturable.
A live payment's disputes are listed (id, status, reason, amount, days left); while
one is open, refunds are blocked and Refundable says so. A timeline closes the view:
what happened to the payment, oldest first, the same events with the same times as
bnpl payments timeline shows (which adds a sandbox's webhook deliveries).

order:REF names the payment of the merchant's order number REF, found in every
status (one walk of the payments list); when two payments carry it, both are
listed and nothing is shown.`,
		Example: `  bnpl payments get 3fa85f64-5717-4562-b3fc-2c963f66afa6
  bnpl payments get order:ORDER-1001
  bnpl payments get 3fa85f64-5717-4562-b3fc-2c963f66afa6 -o json --jq .status`,
	}, nil, runWith(run, getRun, opts))
}

func getRun(ctx context.Context, opts *GetOptions) error {
	printer, client, p, err := opts.read(ctx)
	if err != nil {
		return err
	}
	// A live payment may be disputed: its disputes are shown with it.
	// They are read with the same (live) key; a failure to read them is
	// said, and the payment shown all the same.
	disputes := readDisputes(ctx, client, p, opts.Notice)
	events := PaymentTimeline(ctx, client, opts.Target, p, disputes, false)
	if err := printer.Object(p.Raw(), GetDetail(p, disputes, events)); err != nil {
		return err
	}
	if opts.Seen != nil {
		opts.Seen(recentEntry(p))
	}
	return nil
}

// GetDetail is the view of `payments get`: the payment with its disputes
// and its timeline, the events `payments timeline` shows (PaymentTimeline).
func GetDetail(p *api.Payment, disputes []api.Dispute, events []Event) *output.Detail {
	d := DetailWithDisputes(p, disputes)
	d.Sections = append(d.Sections, output.Section{Title: "Timeline", Columns: TimelineColumns, Records: TimelineRecords(events)})
	return d
}

// recentEntry is how a payment is remembered for completion: its id, with
// what tells it apart at a glance.
func recentEntry(p *api.Payment) recent.Entry {
	e := recent.Entry{ID: p.ID, Status: p.Status, Note: strings.TrimSpace(p.Status + " " + money.Display(p.Amount, p.Currency))}
	if p.Order != nil {
		e.Order = p.Order.ReferenceID
	}
	return e
}
