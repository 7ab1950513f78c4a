// Package ledger is `bnpl ledger`: the runs the ledger of bulk moves
// knows (this machine's, or the PostgreSQL ledger a team shares), their
// rows, and who holds which payment.
package ledger

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// RunColumns are the columns of `bnpl ledger list`.
var RunColumns = []output.Column{
	{Header: "RUN", Path: "run", Kind: output.KindID},
	{Header: "STATE", Path: "state", Kind: output.KindPlain},
	{Header: "OP", Path: "op", Kind: output.KindPlain},
	{Header: "INPUT", Path: "input", Kind: output.KindText},
	{Header: "ROWS", Path: "rows", Kind: output.KindPlain},
	{Header: "CLAIMS", Path: "claims", Kind: output.KindPlain},
	{Header: "PROCESS", Path: "process", Kind: output.KindPlain},
	{Header: "HOST", Path: "host", Kind: output.KindPlain},
	{Header: "STARTED", Path: "started", Kind: output.KindTime},
}

// RowColumns are the columns of `bnpl ledger show`.
var RowColumns = []output.Column{
	{Header: "LINE", Path: "line", Kind: output.KindPlain},
	{Header: "OP", Path: "op", Kind: output.KindPlain},
	{Header: "PAYMENT", Path: "payment_id", Kind: output.KindID},
	{Header: "REFERENCE", Path: "reference_id", Kind: output.KindReference},
	{Header: "AMOUNT", Path: "amount", Kind: output.KindPlain},
	{Header: "OUTCOME", Path: "outcome", Kind: output.KindStatus},
	{Header: "HELD BY", Path: "held_by", Kind: output.KindPlain},
}

// NewCmd is `bnpl ledger`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var url string
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "The runs the ledger of bulk moves knows, their rows, and who holds which payment",
		Long: `Show the ledger of bulk moves: this machine's (in bnpl's state directory), or the
PostgreSQL ledger a team shares, named by --ledger, BNPL_LEDGER or the profile's ledger.
It only reads.`,
	}
	cmd.PersistentFlags().StringVar(&url, "ledger", "", "the ledger a team shares, a postgres:// URL (default: BNPL_LEDGER, the profile's ledger, else this machine's)")
	open := func() (*ledger.Ledger, bool, error) {
		if err := cmdutil.CheckLedgerFlag(url); err != nil {
			return nil, false, err
		}
		u, _ := cmdutil.LedgerOf(f)(url)
		if err := cmdutil.CheckLedgerFlag(u); err != nil {
			return nil, false, err
		}
		dir := config.StateDir(f.Getenv)
		if u == "" && !ledger.Exists(dir) {
			return nil, false, nil
		}
		l, err := ledger.Open(ledger.Options{URL: u, Dir: dir})
		return l, err == nil, err
	}
	cmd.AddCommand(newListCmd(f, open), newShowCmd(f, open))
	return cmd
}

type opener func() (*ledger.Ledger, bool, error)

func newListCmd(f *cmdutil.Factory, open opener) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the ledger's runs, the latest first: state, rows, claims held, process and machine",
		Example: "  bnpl ledger list\n  bnpl ledger list --ledger postgres://clerk@db.example.com/bnpl -o json",
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 1 {
				return cmdutil.Usagef("--limit must be at least 1, got %d", limit)
			}
			l, ok, err := open()
			if err != nil {
				return err
			}
			printer, err := f.Printer()
			if err != nil {
				return err
			}
			var recs []json.RawMessage
			if ok {
				defer l.Close()
				runs, err := l.Runs(limit)
				if err != nil {
					return err
				}
				for _, r := range runs {
					recs = append(recs, runRecord(r))
				}
			}
			if len(recs) == 0 {
				f.Noticef("no bulk runs in the ledger")
			}
			return printer.List(RunColumns, recs)
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "L", 50, "list at most this many runs, the latest first")
	return cmd
}

func runRecord(r ledger.RunView) json.RawMessage {
	rec := map[string]any{
		"run": r.ID, "state": r.State, "op": r.Op, "input": r.Input, "journal": r.Journal, "rows": r.Rows,
		"claims": r.Claims, "process": r.PID, "host": r.Host(), "started": r.Started.UTC().Format(time.RFC3339),
		"summarized": r.Summarized,
	}
	if !r.Ended.IsZero() {
		rec["ended"] = r.Ended.UTC().Format(time.RFC3339)
	}
	b, _ := json.Marshal(rec)
	return b
}

func newShowCmd(f *cmdutil.Factory, open opener) *cobra.Command {
	return &cobra.Command{
		Use:     "show RUN",
		Short:   "Show a run's rows as the ledger holds them, and which run holds each row's payment now",
		Example: "  bnpl ledger show 12\n  bnpl ledger show 12 -o csv",
		Args:    cmdutil.ExactArgs(1, "RUN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(strings.TrimSpace(args[0]), 10, 64)
			if err != nil || id < 1 {
				return cmdutil.UsageHint("bnpl ledger list shows the runs and their numbers", "RUN must be a run's number, got %q", args[0])
			}
			l, ok, err := open()
			if err != nil {
				return err
			}
			if !ok {
				return cmdutil.UsageHint("bnpl ledger list shows the runs", "there is no ledger of bulk moves here, so no run %d", id)
			}
			defer l.Close()
			run := l.RunByID(id)
			if run == nil {
				return cmdutil.UsageHint("bnpl ledger list shows the runs", "the ledger knows no run %d", id)
			}
			claims, err := l.Claims()
			if err != nil {
				return err
			}
			held := map[string]int64{}
			for _, c := range claims {
				held[c.PaymentID] = c.Run
			}
			printer, err := f.Printer()
			if err != nil {
				return err
			}
			f.Noticef("%s", run)
			var recs []json.RawMessage
			err = l.EachRowOf(id, func(r ledger.Row) error {
				rec := map[string]any{"line": r.Line, "op": r.Op, "payment_id": r.PaymentID, "reference_id": r.ReferenceID,
					"amount": r.Amount, "outcome": outcomeOf(r), "moved": r.Moved}
				if h := held[r.PaymentID]; h != 0 {
					rec["held_by"] = "run " + strconv.FormatInt(h, 10)
				}
				b, _ := json.Marshal(rec)
				recs = append(recs, b)
				return nil
			})
			if err != nil {
				return err
			}
			return printer.List(RowColumns, recs)
		},
	}
}

// outcomeOf is a row's outcome as shown: a row sent with no outcome yet
// (its run still waits for the answer, or stopped before recording it)
// is unknown, never not_sent: its move may be made.
func outcomeOf(r ledger.Row) string {
	switch {
	case r.SentUnsettled:
		return "unknown"
	case r.Outcome == "":
		return "not_sent"
	}
	return r.Outcome
}
