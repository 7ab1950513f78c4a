package webhooks

import (
	"context"
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// ListOptions are the inputs of `webhooks list`.
type ListOptions struct {
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
	// Notice writes a line on stderr (quiet under -q).
	Notice func(format string, args ...any)
}

func newListCmd(f *cmdutil.Factory, run func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{Client: f.Client, Printer: f.Printer, Notice: f.Noticef}
	return &cobra.Command{
		Use:   "list",
		Short: "List the payment webhooks, header values masked",
		Example: `  bnpl webhooks list
  bnpl webhooks list --live -o json --jq '.[].url'`,
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
	printer, err := o.Printer()
	if err != nil {
		return err
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	hooks, err := client.ListWebhooks(ctx)
	if err != nil {
		return err
	}
	recs := make([]json.RawMessage, 0, len(hooks))
	for i := range hooks {
		recs = append(recs, hooks[i].Raw())
	}
	if len(recs) == 0 && o.Notice != nil {
		o.Notice("no payment webhooks: add one with `bnpl webhooks add URL`")
	}
	return printer.List(ListColumns, recs)
}
