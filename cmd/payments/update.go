package payments

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/recent"
)

// UpdateOptions are the inputs of `payments update`.
type UpdateOptions struct {
	ID          string
	ReferenceID string

	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
	Seen    func(...recent.Entry)
}

func newUpdateCmd(f *cmdutil.Factory, run func(context.Context, *UpdateOptions) error) *cobra.Command {
	opts := &UpdateOptions{Client: f.Client, Printer: f.Printer, Seen: recent.Recorder(f.Getenv)}
	cmd := &cobra.Command{
		Use:   "update <payment-id> --reference-id R",
		Short: "Change the order reference of a payment",
		Long: `Change the order reference_id of a payment, the one field the service lets a
merchant change. The payment must be AUTHORIZED or CLOSED. Setting the same value
again changes nothing, so the request is retried like a read.`,
		Example: `  bnpl payments update 3fa85f64-5717-4562-b3fc-2c963f66afa6 --reference-id ORDER-1001-B
  bnpl payments update 3fa85f64-5717-4562-b3fc-2c963f66afa6 --reference-id ORDER-1001-B -o json --jq .order.reference_id`,
		Args:              cmdutil.ExactArgs(1, "a payment id"),
		ValidArgsFunction: recent.CompletePaymentIDs(f.Getenv),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if err := cmdutil.CheckUUID("payment", opts.ID); err != nil {
				return err
			}
			if strings.TrimSpace(opts.ReferenceID) == "" {
				return cmdutil.Usagef("give the new order reference with --reference-id")
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return updateRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.ReferenceID, "reference-id", "", "the new order reference_id (required)")
	return cmd
}

func updateRun(ctx context.Context, o *UpdateOptions) error {
	printer, err := o.Printer()
	if err != nil {
		return err
	}
	client, err := o.Client()
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
