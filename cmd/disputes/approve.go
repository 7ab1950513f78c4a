package disputes

import (
	"context"
	"encoding/json"
	"errors"
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
	// Early refuses, before anything is read, an approval nobody can
	// confirm (no terminal and no --yes); nil never refuses.
	Early   func(what string) error
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
		Early: func(what string) error {
			if c := f.Confirmer(true); !f.Global.DryRun && !c.Yes && !c.Terminal {
				return c.Confirm(what)
			}
			return nil
		},
		Notice: f.Noticef, Target: LiveTarget(f, "disputes"), Client: LiveClient(f, "disputes"), Printer: f.Printer,
	}
	return &cobra.Command{
		Use:   "approve <dispute-id>...",
		Short: "Accept disputes: the customers are refunded",
		Long: fmt.Sprintf(`Accept disputes: the customers are refunded. The service takes at most %d ids per
request; more are sent in batches of %d, in order. If a batch fails, the batches before
it stay approved and are listed; the ids after it are not sent.

Each dispute is read first. One that cannot be approved (declined or cancelled) is
refused here, named with its status (exit 2), before anything is asked or sent; one
already refunded is approved again without a new refund.

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

// approvable reads the disputes and refuses, before anything is asked or
// sent, any that cannot be approved (declined or cancelled: the service
// answers 409), naming each and its status. It sums per currency what
// approving will refund, for the confirmation: "20.00 AED and 5.000 KWD";
// a dispute already refunded is approved again without a new refund, so it
// is not counted.
func approvable(ctx context.Context, client *api.Client, ids []string) (total string, refunded int, err error) {
	sums := map[string]decimal.Decimal{}
	var refused []string
	for _, id := range ids {
		d, err := client.GetDispute(ctx, id)
		if err != nil {
			return "", 0, fmt.Errorf("reading dispute %s: %w", id, err)
		}
		switch st := strings.ToLower(d.Status); {
		case st == "refunded":
			refunded++
		case !d.Active():
			refused = append(refused, fmt.Sprintf("dispute %s is %s", id, st))
		default:
			sums[d.Currency] = sums[d.Currency].Add(d.Amount)
		}
	}
	if len(refused) > 0 {
		return "", 0, cmdutil.Refuse("only an open dispute can be approved; leave it out (bnpl disputes list --status new lists the open ones); nothing was sent",
			"cannot approve: %s", strings.Join(refused, ", "))
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
	return strings.Join(parts, " and "), refunded, nil
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
	if o.Early != nil {
		if err := o.Early(fmt.Sprintf("approve %d dispute(s) of %s", len(o.IDs), target.Merchant())); err != nil {
			return err
		}
	}
	total, refunded, err := approvable(ctx, client, o.IDs)
	if err != nil {
		return err
	}
	if err := o.Confirm(approveQuestion(target.Merchant(), len(o.IDs), total, refunded)); err != nil {
		return err
	}
	return o.send(ctx, client, printer)
}

// approveQuestion is the confirmation: what approving will refund, and the
// disputes already refunded, which it will not refund again.
func approveQuestion(merchant string, n int, total string, refunded int) string {
	what := fmt.Sprintf("approve %d dispute(s) of %s", n, merchant)
	if total != "" {
		what += ", refunding " + total + " to the customers"
	}
	if refunded > 0 {
		what += fmt.Sprintf(" (%d already refunded: no new refund)", refunded)
	}
	return what
}

// send approves the disputes in batches, listing each approved one. Nothing
// is printed on stdout before the first batch is approved: a refused first
// batch leaves stdout empty, in every format.
func (o *ApproveOptions) send(ctx context.Context, client *api.Client, printer *output.Printer) error {
	groups := batches(o.IDs, api.MaxApproveIDs)
	var stream *output.Stream
	approved := 0
	for i, group := range groups {
		if _, err := client.ApproveDisputes(ctx, group); err != nil {
			err = namedRefusal(err, group)
			if stream == nil {
				return err
			}
			stream.Close()
			return &partialApprove{err: err, approved: approved, batch: i + 1, batches: len(groups), remaining: o.IDs[approved:]}
		}
		if stream == nil {
			stream = printer.Stream(approveColumns)
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

// namedRefusal names the disputes of a refused request: the service's
// answer (a bare 409 conflict) does not.
func namedRefusal(err error, group []string) error {
	var apiErr *api.APIError
	if !errors.As(err, &apiErr) {
		return err
	}
	what := "dispute " + group[0]
	if len(group) > 1 {
		what = fmt.Sprintf("disputes %s … %s (%d in the request)", group[0], group[len(group)-1], len(group))
	}
	return cmdutil.WithHint(fmt.Errorf("approving %s: %w", what, err),
		"the dispute may have changed since it was read: bnpl disputes get "+group[0]+" shows its status")
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
