package payments

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/recent"
)

// UpdateOptions are the inputs of `payments update`.
type UpdateOptions struct {
	onePayment
	ReferenceID string
	Seen        func(...recent.Entry)
}

func newUpdateCmd(f *cmdutil.Factory, run func(context.Context, *UpdateOptions) error) *cobra.Command {
	opts := &UpdateOptions{onePayment: newOnePayment(f, f.Printer), Seen: recent.Recorder(f.Getenv)}
	cmd := opts.command(f, &cobra.Command{
		Use:   "update <payment-id | order:REF> --order R",
		Short: "Change the order reference of a payment",
		Long: `Change the order number of a payment (its order.reference_id), the one field the
service lets a merchant change. The payment must be AUTHORIZED or CLOSED. Setting the
same value again changes nothing, so the request is retried like a read.

--order was --reference-id, which still works, with a notice, for now.`,
		Example: `  bnpl payments update 3fa85f64-5717-4562-b3fc-2c963f66afa6 --order ORDER-1001-B
  bnpl payments update order:ORDER-1001 --order ORDER-1001-B -o json --jq .order.reference_id`,
	}, func() error {
		if strings.TrimSpace(opts.ReferenceID) == "" {
			return cmdutil.Usagef("give the new order number with --order")
		}
		return nil
	}, runWith(run, updateRun, opts))
	cmd.Flags().StringVar(&opts.ReferenceID, "order", "", "the new order number (required)")
	cmd.Flags().StringVar(&opts.ReferenceID, "reference-id", "", "the new order number")
	f.Deprecate(cmd.Flags(), "reference-id", "use --order (--reference-id is the idempotency key of capture and refund)")
	return cmd
}

func updateRun(ctx context.Context, o *UpdateOptions) error {
	printer, client, err := o.open(ctx)
	if err != nil {
		return err
	}
	p, err := client.UpdatePayment(ctx, o.ID, o.ReferenceID)
	if err != nil {
		if e, ok := api.AsAPIError(err); ok && e.Hint() == "" && strings.Contains(e.Message, "can be updated") {
			return api.WithHint(err, "only AUTHORIZED or CLOSED payments can be updated; a CREATED one is still waiting for the customer (`bnpl payments get "+o.ID+"`)")
		}
		return err
	}
	if err := printer.Object(p.Raw(), Detail(p)); err != nil {
		return err
	}
	if o.Seen != nil {
		o.Seen(recentEntry(p))
	}
	return nil
}
