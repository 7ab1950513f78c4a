package checkout

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// GetOptions are the inputs of `checkout get`.
type GetOptions struct {
	ID      string
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
}

func newGetCmd(f *cmdutil.Factory, run func(context.Context, *GetOptions) error) *cobra.Command {
	opts := &GetOptions{Client: f.Client, Printer: f.Printer}
	return &cobra.Command{
		Use:   "get <session-id>",
		Short: "Show a checkout session: its status, payment and checkout URL",
		Long: `Show a checkout session as the service reads it back: its status (created,
approved, rejected, expired), its payment, the checkout URL, when it expires, and
the rejection reason when pre-scoring refused it.`,
		Example: `  bnpl checkout get 8b1f6a2c-3d4e-4f5a-9b6c-7d8e9f0a1b2c
  bnpl checkout get 8b1f6a2c-3d4e-4f5a-9b6c-7d8e9f0a1b2c -o json --jq .payment.id`,
		Args: cmdutil.ExactArgs(1, "a session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if err := cmdutil.CheckUUID("session", opts.ID); err != nil {
				return err
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return getRun(cmd.Context(), opts)
		},
	}
}

func getRun(ctx context.Context, o *GetOptions) error {
	printer, err := o.Printer()
	if err != nil {
		return err
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	s, err := client.GetCheckout(ctx, o.ID)
	if err != nil {
		return err
	}
	return printer.Object(s.Raw(), SessionDetail(s))
}
