package disputes

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// ApproveOptions are the inputs of `disputes approve`.
type ApproveOptions struct {
	IDs []string

	Confirm func(what string) error
	// WillAsk reports whether Confirm will ask a person; only then are
	// the disputes read to name the amounts at stake.
	WillAsk func() bool
	Notice  func(format string, args ...any)
	Target  func() (*config.Target, error)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
}

var approveColumns = []output.Column{
	{Header: "ID", Path: "id"},
	{Header: "BATCH", Path: "batch"},
	{Header: "RESULT", Path: "result"},
}

func newApproveCmd(f *cmdutil.Factory, run func(context.Context, *ApproveOptions) error) *cobra.Command {
	opts := &ApproveOptions{
		// A dry run sends nothing, so it asks nothing.
		Confirm: func(what string) error {
			if f.Global.DryRun {
				return nil
			}
			return f.Confirmer(true).Confirm(what)
		},
		WillAsk: func() bool { c := f.Confirmer(true); return c.Terminal && !c.Yes && !f.Global.DryRun },
		Notice:  f.Noticef, Target: LiveTarget(f, "disputes"), Client: LiveClient(f, "disputes"), Printer: f.Printer,
	}
	return &cobra.Command{
		Use:   "approve <dispute-id>...",
		Short: "Accept disputes: the customers are refunded",
		Long: fmt.Sprintf(`Accept disputes: the customers are refunded. The service takes at most %d ids per
request; more are sent in batches of %d, in order. If a batch fails, the batches before
it stay approved and are listed; the ids after it are not sent.

Approving moves live money, so on a terminal it asks for confirmation, naming the
merchant, the number of disputes and the total refunded per currency; scripts pass
--yes. Answering anything but yes exits 2, Ctrl-C exits 130; nothing is sent.
`, api.MaxApproveIDs, api.MaxApproveIDs) + liveOnlyNote,
		Example: `  bnpl disputes approve 9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11
  bnpl disputes list --status new -o json --jq '.[].id' | xargs bnpl disputes approve --yes`,
		Args: cmdutil.MinArgs(1, "dispute id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.IDs = nil
			for _, id := range args {
				if err := cmdutil.CheckUUID("dispute", id); err != nil {
					return err
				}
				if !slices.Contains(opts.IDs, id) {
					opts.IDs = append(opts.IDs, id)
				}
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return approveRun(cmd.Context(), opts)
		},
	}
}

// disputeTotals reads the disputes and sums their amounts per currency,
// for the confirmation: "20.00 AED and 5.000 KWD".
func disputeTotals(ctx context.Context, client *api.Client, ids []string) (string, error) {
	sums := map[string]decimal.Decimal{}
	for _, id := range ids {
		d, err := client.GetDispute(ctx, id)
		if err != nil {
			return "", err
		}
		sums[d.Currency] = sums[d.Currency].Add(d.Amount)
	}
	currencies := make([]string, 0, len(sums))
	for c := range sums {
		currencies = append(currencies, c)
	}
	slices.Sort(currencies)
	parts := make([]string, 0, len(currencies))
	for _, c := range currencies {
		parts = append(parts, money.Display(sums[c], c))
	}
	return strings.Join(parts, " and "), nil
}

// batches splits ids into the service's request size, in order.
func batches(ids []string, size int) [][]string {
	var out [][]string
	for len(ids) > size {
		out = append(out, ids[:size])
		ids = ids[size:]
	}
	if len(ids) > 0 {
		out = append(out, ids)
	}
	return out
}

func approveRun(ctx context.Context, o *ApproveOptions) error {
	if err := RequireLive(o.Target, "disputes"); err != nil {
		return err
	}
	printer, client, err := cmdutil.PrinterAndClient(o.Printer, o.Client)
	if err != nil {
		return err
	}
	target, err := o.Target()
	if err != nil {
		return err
	}
	merchant := target.Merchant()
	what := fmt.Sprintf("approve %d dispute(s) of %s and refund the customers", len(o.IDs), merchant)
	if o.WillAsk != nil && o.WillAsk() {
		total, err := disputeTotals(ctx, client, o.IDs)
		if err != nil {
			return err
		}
		what = fmt.Sprintf("approve %d dispute(s) of %s, refunding %s to the customers", len(o.IDs), merchant, total)
	}
	if err := o.Confirm(what); err != nil {
		return err
	}
	groups := batches(o.IDs, api.MaxApproveIDs)
	stream := printer.Stream(approveColumns)
	approved := 0
	for i, group := range groups {
		if _, err := client.ApproveDisputes(ctx, group); err != nil {
			stream.Close()
			if i == 0 {
				return err
			}
			return &partialApprove{err: err, approved: approved, batch: i + 1, batches: len(groups), remaining: o.IDs[approved:]}
		}
		for _, id := range group {
			rec, _ := json.Marshal(map[string]any{"id": id, "batch": i + 1, "result": "approved"})
			if err := stream.Write(rec); err != nil {
				stream.Close()
				return err
			}
		}
		stream.Flush()
		approved += len(group)
	}
	if err := stream.Close(); err != nil {
		return err
	}
	o.Notice("approved %d dispute(s) in %d request(s)", approved, len(groups))
	return nil
}

// partialApprove is a failed batch after earlier ones were approved.
type partialApprove struct {
	err      error
	approved int
	batch    int
	batches  int
	// remaining are the ids of the failed batch and of those not sent.
	remaining []string
}

func (e *partialApprove) Error() string {
	return fmt.Sprintf("batch %d of %d failed: %v", e.batch, e.batches, e.err)
}
func (e *partialApprove) Unwrap() error { return e.err }
func (e *partialApprove) Hint() string {
	return fmt.Sprintf("%d dispute(s) of the earlier batches were approved (listed on stdout); to go on, approve the rest: %s",
		e.approved, strings.Join(e.remaining, " "))
}
