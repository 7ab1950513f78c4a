package webhooks

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
)

// RemoveOptions are the inputs of `webhooks remove`.
type RemoveOptions struct {
	ID     string
	Notice func(format string, args ...any)
	Target func() (*config.Target, error)
	Client func() (*api.Client, error)
	// Confirm asks before a live webhook is removed (on a terminal,
	// without --yes).
	Confirm func(ctx context.Context, question string) error
}

func newRemoveCmd(f *cmdutil.Factory, run func(context.Context, *RemoveOptions) error) *cobra.Command {
	opts := &RemoveOptions{Notice: f.Noticef, Target: f.Target, Client: f.Client,
		Confirm: func(ctx context.Context, q string) error { return f.AskFirst(ctx, q, cmdutil.ErrNotConfirmed) }}
	return &cobra.Command{
		Use:     "remove <webhook-id>",
		Short:   "Remove a payment webhook (a live one asks first on a terminal; --yes skips)",
		Example: `  bnpl webhooks remove 5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b`,
		Args:    cmdutil.ExactArgs(1, "a webhook id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if err := cmdutil.CheckUUID("webhook", opts.ID); err != nil {
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
	if o.Target != nil && o.Confirm != nil {
		t, err := o.Target()
		if err != nil {
			return err
		}
		if t.Live {
			if err := o.Confirm(ctx, "LIVE: remove payment webhook "+o.ID+"?"); err != nil {
				return err
			}
		}
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	if err := client.DeleteWebhook(ctx, o.ID); err != nil {
		return err
	}
	o.Notice("removed payment webhook %s", o.ID)
	return nil
}
