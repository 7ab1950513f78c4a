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
	if run == nil {
		run = getRun
	}
	return cmdutil.OneRecord(&cobra.Command{
		Use:   "get <session-id>",
		Short: "Show a checkout session: its status, payment and checkout URL",
		Long: `Show a checkout session as the service reads it back: its status (created,
approved, rejected, expired), its payment, the checkout URL, when it expires, and
the rejection reason when pre-scoring refused it.`,
		Example: `  bnpl checkout get 8b1f6a2c-3d4e-4f5a-9b6c-7d8e9f0a1b2c
  bnpl checkout get 8b1f6a2c-3d4e-4f5a-9b6c-7d8e9f0a1b2c -o json --jq .payment.id`,
	}, "session", "a session id", &opts.ID, func(ctx context.Context) error { return run(ctx, opts) })
}

func getRun(ctx context.Context, o *GetOptions) error {
	printer, client, err := cmdutil.PrinterAndClient(o.Printer, o.Client)
	if err != nil {
		return err
	}
	s, err := client.GetCheckout(ctx, o.ID)
	if err != nil {
		return err
	}
	return printer.Object(s.Raw(), SessionDetail(s))
}
