package disputewebhooks

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/cmd/disputes"
	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// GetOptions are the inputs of `dispute-webhooks get`.
type GetOptions struct {
	ID      string
	Target  func() (*config.Target, error)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
}

func newGetCmd(f *cmdutil.Factory, run func(context.Context, *GetOptions) error) *cobra.Command {
	opts := &GetOptions{Target: disputes.LiveTarget(f, "dispute webhooks"), Client: disputes.LiveClient(f, "dispute webhooks"), Printer: f.Printer}
	return &cobra.Command{
		Use:     "get <webhook-id>",
		Short:   "Show a dispute webhook, its header value masked",
		Long:    "Show a dispute webhook, its header value masked.\n" + liveOnlyNote,
		Example: `  bnpl dispute-webhooks get 5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b`,
		Args:    cmdutil.ExactArgs(1, "a dispute webhook id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if err := cmdutil.CheckUUID("dispute webhook", opts.ID); err != nil {
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
	if err := disputes.RequireLive(o.Target, what); err != nil {
		return err
	}
	printer, err := o.Printer()
	if err != nil {
		return err
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	w, err := client.GetDisputeWebhook(ctx, o.ID)
	if err != nil {
		return err
	}
	return printer.Object(w.Raw(), Detail(w))
}
