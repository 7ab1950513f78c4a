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

// ListOptions are the inputs of `dispute-webhooks list`.
type ListOptions struct {
	Target  func() (*config.Target, error)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
	// Notice writes a line on stderr (quiet under -q).
	Notice func(format string, args ...any)
}

func newListCmd(f *cmdutil.Factory, run func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{Target: disputes.LiveTarget(f, "dispute webhooks"), Client: disputes.LiveClient(f, "dispute webhooks"), Printer: f.Printer, Notice: f.Noticef}
	return &cobra.Command{
		Use:   "list",
		Short: "List the dispute webhooks, header values masked",
		Long:  "List the merchant's dispute webhooks (at most 4), header values masked.\n" + liveOnlyNote,
		Example: `  bnpl dispute-webhooks list
  bnpl dispute-webhooks list -o json --jq '.[].url'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return listRun(cmd.Context(), opts)
		},
	}
}

func listRun(ctx context.Context, o *ListOptions) error {
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
	hooks, err := client.ListDisputeWebhooks(ctx)
	if err != nil {
		return err
	}
	if len(hooks) == 0 && o.Notice != nil {
		o.Notice("no dispute webhooks: add one with `bnpl dispute-webhooks add URL`")
	}
	return printer.List(ListColumns, hookRecords(hooks))
}
