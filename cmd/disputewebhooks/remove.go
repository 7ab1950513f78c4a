package disputewebhooks

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/cmd/disputes"
	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
)

// RemoveOptions are the inputs of `dispute-webhooks remove`.
type RemoveOptions struct {
	ID     string
	Notice func(format string, args ...any)
	Target func() (*config.Target, error)
	Client func() (*api.Client, error)
	// Confirm asks before the webhook is removed (on a terminal, without
	// --yes): dispute webhooks exist only in live mode.
	Confirm func(ctx context.Context, question string) error
}

func newRemoveCmd(f *cmdutil.Factory, run func(context.Context, *RemoveOptions) error) *cobra.Command {
	opts := &RemoveOptions{Notice: f.Noticef, Target: disputes.LiveTarget(f, "dispute webhooks"), Client: disputes.LiveClient(f, "dispute webhooks"),
		Confirm: func(ctx context.Context, q string) error { return f.AskFirst(ctx, q, cmdutil.ErrNotConfirmed) }}
	return &cobra.Command{
		Use:     "remove <webhook-id>",
		Short:   "Remove a dispute webhook (asks first on a terminal; --yes skips)",
		Long:    "Remove a dispute webhook.\n" + liveOnlyNote,
		Example: `  bnpl dispute-webhooks remove 5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b`,
		Args:    cmdutil.ExactArgs(1, "a dispute webhook id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if err := cmdutil.CheckUUID("dispute webhook", opts.ID); err != nil {
				return err
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return removeRun(cmd.Context(), opts)
		},
	}
}

func removeRun(ctx context.Context, o *RemoveOptions) error {
	if err := disputes.RequireLive(o.Target, what); err != nil {
		return err
	}
	if o.Confirm != nil {
		if err := o.Confirm(ctx, "LIVE: remove dispute webhook "+o.ID+"?"); err != nil {
			return err
		}
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	if err := client.DeleteDisputeWebhook(ctx, o.ID); err != nil {
		return err
	}
	o.Notice("removed dispute webhook %s", o.ID)
	return nil
}
