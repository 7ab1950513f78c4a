package payments

import (
	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// reportLedger totals, per period and currency, the captures and refunds
// bnpl's bulk runs moved on the profile's service, as the ledger of bulk
// moves the runs share records them: the ledger a bulk run would use.
func reportLedger(o *ReportOptions) error {
	url, _ := o.LedgerOf(o.Ledger)
	if err := cmdutil.CheckLedgerFlag(url); err != nil {
		return err
	}
	target, err := o.Target()
	if err != nil {
		return err
	}
	printer, err := o.Printer()
	if err != nil {
		return err
	}
	tally := newReportTally(o.since, o.until, o.By)
	if url == "" && !ledger.Exists(o.StateDir) {
		return tally.print(printer, o, "no bulk run has kept a ledger on this machine")
	}
	l, err := ledger.Open(ledger.Options{URL: url, Dir: o.StateDir, Scope: ledgerScope(target)})
	if err != nil {
		return err
	}
	defer l.Close()
	err = l.EachMoved(l.Scope(), o.since, o.until, func(m ledger.MovedMove) error {
		tally.addMove(m.Currency, m.Op, m.Amount, m.At)
		return nil
	})
	if err != nil {
		return err
	}
	return tally.print(printer, o, "moved by bulk runs, as the ledger "+l.Where()+" records them")
}
