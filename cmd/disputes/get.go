package disputes

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// GetOptions are the inputs of `disputes get`.
type GetOptions struct {
	ID      string
	Target  func() (*config.Target, error)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
}

func newGetCmd(f *cmdutil.Factory, run func(context.Context, *GetOptions) error) *cobra.Command {
	opts := &GetOptions{Target: LiveTarget(f, "disputes"), Client: LiveClient(f, "disputes"), Printer: f.PagedPrinter}
	if run == nil {
		run = getRun
	}
	return cmdutil.OneRecord(&cobra.Command{
		Use:   "get <dispute-id>",
		Short: "Show a dispute with its items and history",
		Long: `Show a dispute: its status, reason, amount, the payment it is about, the days left
to answer, its items, and its history of customer and merchant events.
` + liveOnlyNote,
		Example: `  bnpl disputes get 9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11
  bnpl disputes get 9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11 -o json --jq .status`,
	}, "dispute", "a dispute id", &opts.ID, func(ctx context.Context) error { return run(ctx, opts) })
}

func getRun(ctx context.Context, o *GetOptions) error {
	if err := RequireLive(o.Target, "disputes"); err != nil {
		return err
	}
	printer, client, err := cmdutil.PrinterAndClient(o.Printer, o.Client)
	if err != nil {
		return err
	}
	d, err := client.GetDispute(ctx, o.ID)
	if err != nil {
		return err
	}
	return printer.Object(d.Raw(), Detail(d))
}
