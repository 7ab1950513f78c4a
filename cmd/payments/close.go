package payments

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
)

// CloseOptions are the inputs of `payments close`.
type CloseOptions struct {
	ID   string
	Bulk BulkOptions

	MoveDeps
}

func newCloseCmd(f *cmdutil.Factory, run func(context.Context, *CloseOptions) error) *cobra.Command {
	opts := &CloseOptions{MoveDeps: newMoveDeps(f)}
	return newMoveCmd(f, moveCmd{
		use:   "close <payment-id | order:REF>",
		short: "Close an authorized payment, or many from a file",
		long: `Close an AUTHORIZED payment. With no captures the customer gets back everything
paid; after partial captures the uncaptured rest is not charged.

The payment is read first, so that closing a payment that is not AUTHORIZED
(already closed, not yet approved, rejected, expired) is refused locally (exit 2)
with the reason and nothing sent; so is a payment whose authorization expired.
If that read fails (no answer, a 5xx), nothing was closed and the command says so.

--dry-run makes that read too (it changes nothing) and runs the local checks, then
prints the close it would send. It never asks for confirmation and needs no --yes.` + orderDryRunHelp + `

A close whose outcome was unknown is retried; a retry refused as "already closed"
is checked against the payment and reported as a success when it is CLOSED.

In live mode the close is confirmed on the terminal; --yes skips the question,
and without a terminal the close is refused unless --yes is given. Answering
anything but yes exits 2; Ctrl-C at the question exits 130.

With --input the payments of a CSV (header payment_id) or JSON-lines file are
closed; see --journal, --report and --retry-failed.`,
		example: `  bnpl payments close 3fa85f64-5717-4562-b3fc-2c963f66afa6
  bnpl payments close 3fa85f64-5717-4562-b3fc-2c963f66afa6 -o json --jq .status
  bnpl payments close --input testdata/closes.csv --report closes-report.csv`,
		completes: api.StatusAuthorized,
		id:        &opts.ID, bulk: &opts.Bulk, deps: &opts.MoveDeps,
		run: runWith(run, closeRun, opts),
	})
}

func closeRun(ctx context.Context, o *CloseOptions) error {
	return o.runMove(ctx, move{op: bulk.OpClose, bulk: &o.Bulk, id: &o.ID, before: "close", read: "closed", noun: "close",
		prepare: func(_ context.Context, _ *api.Client, p *api.Payment, target *config.Target) (string, bool, error) {
			if err := closable(p); err != nil {
				return "", false, err
			}
			if err := o.expiredRefusal(p, "close"); err != nil {
				return "", false, err
			}
			what := fmt.Sprintf("close payment %s of %s (%s captured; the uncaptured %s will not be charged)",
				o.ID, merchantOf(target), amountText(p.Captured(), p.Currency), amountText(p.Capturable(), p.Currency))
			return what, false, nil
		},
		send: func(ctx context.Context, client *api.Client) (*api.MoveResult, error) { return client.Close(ctx, o.ID) },
	})
}

// closable explains locally why a payment cannot be closed.
func closable(p *api.Payment) error {
	if err := statusRefusal(p, "close"); err != nil {
		return err
	}
	switch p.Status {
	case api.StatusAuthorized:
		return nil
	case api.StatusClosed:
		return cmdutil.Refuse("there is nothing left to do; refunds still work (`bnpl payments refund`)",
			"payment %s is already closed: captured %s of %s", p.ID, amountText(p.Captured(), p.Currency), amountText(p.Amount, p.Currency))
	}
	return cmdutil.Refuse("only AUTHORIZED payments can be closed", "cannot close payment %s: it is %s", p.ID, p.Status)
}
