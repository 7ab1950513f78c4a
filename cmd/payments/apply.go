package payments

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/bulk"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// ApplyOptions are the inputs of `payments apply`.
type ApplyOptions struct {
	Bulk BulkOptions

	MoveDeps
}

func newApplyCmd(f *cmdutil.Factory, run func(context.Context, *ApplyOptions) error) *cobra.Command {
	opts := &ApplyOptions{MoveDeps: newMoveDeps(f)}
	cmd := &cobra.Command{
		Use:   "apply --input FILE",
		Short: "Capture, refund and close payments from one file",
		Long: `Run one file of captures, refunds and closes: each row names its move in an op
column (capture, refund or close), with the columns of that move: capture uses
payment_id, amount, reference_id, tax_amount, shipping_amount, discount_amount
and currency; refund uses payment_id, amount, reference_id, reason and
currency; close uses payment_id and currency. The file is CSV with a header
row, or one JSON object per line; - reads stdin.

The rows of one payment run in file order, one after the other; payments run
in parallel (--concurrency). Each row is checked as its single move would be,
against the payment as the earlier rows of the file leave it, whatever their
op: a capture of the whole remainder closes the payment, so a later refund of
it goes and a later close is refused. A row that would be refused fails with
the reason and nothing sent. An amount of full is resolved when the row is
sent, after the earlier rows of its payment.

--dry-run reads every payment the file names and prints the plan (rows that
would go, rows already made, rows refused, money per currency); it exits 2
when the plan refuses a row. In live mode the confirmation shows the same
plan.

Everything bulk capture, refund and close do holds per row: the ledger
that holds each run and resuming by running it again, --retry-failed, reference_ids derived
for rows without one, the ledger that lets one run at a time work on a
payment (a run of the same moves from any file or command waits, and reports
what it finds made as reconciled), possible repeats of settled moves refused
unless --allow-repeats (then each is named as it goes), and the report
(<file>.report.csv), one line per row with its op. Exit 11 when rows failed,
10 when some row's outcome is unknown.`,
		Example: `  bnpl payments apply --input moves.csv --dry-run
  bnpl payments apply --input moves.csv --report moves-report.csv
  printf 'op,payment_id,amount\ncapture,%s,100.00\n' "$ID" | bnpl payments apply --input -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.bind(f)
			if opts.Bulk.FromFile == "" {
				return cmdutil.UsageHint("the file has an op column (capture, refund or close) and the columns of each move",
					"%s needs --input FILE", cmd.CommandPath())
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return bulkRun(cmd.Context(), bulk.OpApply, &opts.Bulk, &opts.MoveDeps)
		},
	}
	addBulkFlags(cmd, &opts.Bulk)
	cmd.Flags().Lookup("input").Usage = "the CSV or JSON-lines file of moves, with an op column (- for stdin)"
	return cmd
}
