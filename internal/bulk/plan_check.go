package bulk

import (
	"fmt"
	"hash/maphash"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
	"github.com/bnpl-cli/bnpl/internal/money"
)

// repeatCandidate is a row that would go although its payment holds a
// settled move of the same op and amount under a reference_id no row
// seen so far sends.
type repeatCandidate struct {
	refusal  RowError
	op       Op
	amount   decimal.Decimal
	currency string
	ref      string
	payment  *api.Payment
}

// AllowRepeats lets rows that repeat a settled move go, counted in the
// plan's Repeats and listed in its RepeatRows, instead of refusing them.
func (pl *Planner) AllowRepeats(allow bool) { pl.allowRepeats = allow }

// Check judges one row, after the rows checked before it.
func (pl *Planner) Check(row Row) {
	res := &pl.res
	res.Total++
	ref := pl.referenceOf(row)
	p := pl.payments[row.PaymentID]
	if p == nil {
		pl.refuse(row, colPaymentID, fmt.Sprintf("cannot be read: %v", pl.readErrs[row.PaymentID]))
		return
	}
	st := pl.states[p.ID]
	if st == nil {
		st = newPayState(p, pl.open[p.ID])
		pl.states[p.ID] = st
	}
	pl.account(p, row.Op, ref)
	if row.Currency != "" && row.Currency != p.Currency {
		pl.refuse(row, colCurrency, currencyMismatch(row, p))
		return
	}
	amount, ok := pl.amountOf(row, p, st)
	if !ok || pl.made(row, p, ref, amount) {
		return
	}
	if field, msg := checkMove(row.Op, p, st, amount, pl.now); msg != "" {
		pl.refuse(row, field, msg)
		return
	}
	if row.Op != OpClose {
		if pl.mayRepeat(p, row.Op, amount, ref) {
			pl.candidates = append(pl.candidates, repeatCandidate{refusal: pl.refusal(row, "", ""), op: row.Op,
				amount: amount, currency: p.Currency, ref: ref, payment: p})
		}
	}
	st.apply(row.Op, amount)
	res.Go++
	if row.Op != OpClose {
		res.Money[p.Currency] = res.Money[p.Currency].Add(amount)
		addTo(res.ByOp, row.Op, p.Currency, amount)
	}
}

// Settled passes over a row an earlier run settled, which the plan does
// not judge: it still counts among identical rows (for the reference_id
// a later one derives), and its reference_id still accounts for the move
// its payment holds.
func (pl *Planner) Settled(row Row) {
	ref := pl.referenceOf(row)
	if p := pl.payments[row.PaymentID]; p != nil {
		pl.account(p, row.Op, ref)
	}
}

// referenceOf is the reference_id the row is sent with: its own, or the
// one a run derives for it.
func (pl *Planner) referenceOf(row Row) string {
	if row.ReferenceID != "" || row.Op == OpClose {
		return row.ReferenceID
	}
	content := rowContent(row)
	h := maphash.String(pl.seed, content)
	count, _ := pl.seen.get(h)
	pl.seen.put(h, count+1)
	return derivedReference(pl.prefix, content, int(count)+1)
}

// account notes that the file sends ref on p, for the repeat check, when
// p holds moves of op (the only payments a repeat can be of).
func (pl *Planner) account(p *api.Payment, op Op, ref string) {
	if ref == "" || (op == OpCapture && len(p.Captures) == 0) || (op == OpRefund && len(p.Refunds) == 0) {
		return
	}
	byOp := pl.accounted[p.ID]
	if byOp == nil {
		byOp = map[Op]map[string]bool{}
		pl.accounted[p.ID] = byOp
	}
	if byOp[op] == nil {
		byOp[op] = map[string]bool{}
	}
	byOp[op][ref] = true
}

// amountOf is what the row would move: what is left for a "full" row,
// zero for a close. ok is false when the row was refused.
func (pl *Planner) amountOf(row Row, p *api.Payment, st *payState) (decimal.Decimal, bool) {
	switch {
	case row.Op == OpClose:
		return decimal.Zero, true
	case row.Full():
		return st.remaining(row.Op), true
	}
	amount, err := money.Parse(row.Amount, p.Currency)
	if err != nil {
		pl.refuse(row, colAmount, err.Error())
		return amount, false
	}
	return amount, true
}

// made reports whether the payment already holds the row's move (counted
// as made), or holds its reference_id for another move (refused). A close
// is made when the payment was CLOSED before the file's rows.
func (pl *Planner) made(row Row, p *api.Payment, ref string, amount decimal.Decimal) bool {
	if row.Op == OpClose {
		if p.Status == api.StatusClosed {
			pl.res.Made++
			return true
		}
		return false
	}
	var want *decimal.Decimal
	if !row.Full() {
		want = &amount
	}
	// The parts were checked when the rows were read; "1" stands for a
	// full row's amount, which the check then ignores.
	a, _ := parseAmounts(row, "1")
	found, held := ReferenceConflict(row.Op, p, ref, want, a.tax, a.shipping, a.discount)
	switch {
	case found && held != "":
		pl.refuse(row, colReferenceID, held)
	case found:
		pl.res.Made++
	}
	return found
}

func (pl *Planner) refusal(row Row, field, msg string) RowError {
	return RowError{Line: row.Line, Op: row.Op, PaymentID: row.PaymentID, Amount: row.Amount,
		ReferenceID: row.ReferenceID, Field: field, Message: msg}
}

func (pl *Planner) refuse(row Row, field, msg string) {
	pl.addRefused(pl.refusal(row, field, msg))
}

func (pl *Planner) addRefused(e RowError) {
	if pl.res.RefusedCount++; len(pl.res.Refused) < MaxPlanRefusals {
		pl.res.Refused = append(pl.res.Refused, e)
	}
}

// Result is the plan of the rows checked so far: once every row is
// checked, the candidates for a repeat are judged against every
// reference_id the file sends.
func (pl *Planner) Result() PlanResult {
	if pl.final {
		return pl.res
	}
	pl.final = true
	res := &pl.res
	repeats := false
	for _, c := range pl.candidates {
		rep, found := pl.repeatOf(c)
		if !found {
			continue
		}
		if pl.allowRepeats {
			if res.Repeats++; len(res.RepeatRows) < MaxPlanRefusals {
				c.refusal.Message = "would go " + rep.allowed()
				res.RepeatRows = append(res.RepeatRows, c.refusal)
			}
			continue
		}
		repeats = true
		res.RepeatsRefused++
		res.Go--
		res.Money[c.currency] = res.Money[c.currency].Sub(c.amount)
		res.ByOp[c.op][c.currency] = res.ByOp[c.op][c.currency].Sub(c.amount)
		c.refusal.Message = rep.refusal()
		pl.addRefused(c.refusal)
	}
	if repeats {
		dropZero(res.Money)
		for _, m := range res.ByOp {
			dropZero(m)
		}
		sort.SliceStable(res.Refused, func(i, j int) bool { return res.Refused[i].Line < res.Refused[j].Line })
	}
	return pl.res
}

// mayRepeat reports whether a row of op and amount, sent under ref, may
// repeat a move p holds that no row seen so far accounts for: one of the
// same amount, or, when the ledger can say which input made it, one of
// any amount (a row whose amount was edited since it ran). It is judged
// once every row is seen (see repeatOf).
func (pl *Planner) mayRepeat(p *api.Payment, op Op, amount decimal.Decimal, ref string) bool {
	accounted := pl.accounted[p.ID][op]
	if _, found := unaccounted(p, op, amount, ref, accounted); found {
		return true
	}
	if pl.edited == nil {
		return false
	}
	for _, h := range heldMoves(p, op) {
		if h.ref != ref && !accounted[h.ref] {
			return true
		}
	}
	return false
}

// repeatOf is the settled move candidate c repeats, once every row is
// seen: one of the same amount no row accounts for, else one of another
// amount an earlier run of this input made.
func (pl *Planner) repeatOf(c repeatCandidate) (settledRepeat, bool) {
	accounted := pl.accounted[c.payment.ID][c.op]
	heldRef, found := unaccounted(c.payment, c.op, c.amount, c.ref, accounted)
	if !found {
		return editedRepeat(c.payment, c.op, c.amount, c.ref, accounted, pl.edited)
	}
	rep := settledRepeat{op: c.op, amount: money.Display(c.amount, c.currency), heldRef: heldRef}
	if pl.madeBy != nil {
		rep.who, _ = pl.madeBy(c.payment.ID, c.op, heldRef)
	}
	return rep, true
}

// OfInput names the input the plan checks, so that a row whose payment
// holds a move an earlier run of this input made, of another amount, under
// a reference_id no row accounts for (its amount edited since it ran), is
// a possible repeat; it takes effect once the plan can read the ledger
// (NameMovesFrom).
func (pl *Planner) OfInput(name string) { pl.input = name }

// OfInputIdentity gives the plan the identity of its input (see
// InputIdentity), read whole before the plan's pass: a move an earlier run
// of the same input made, whatever its path, is then known as one of its
// rows edited since it ran.
func (pl *Planner) OfInputIdentity(in *InputIdentity) { pl.sketch = in.min }

// dropZero drops the currencies whose total came to zero.
func dropZero(m map[string]decimal.Decimal) {
	for cur, d := range m {
		if d.IsZero() {
			delete(m, cur)
		}
	}
}

// NameMovesFrom lets the plan name, in a refusal of a possible repeat, the
// run, file and row that made the move held, from the machine's ledger in
// dir (bnpl's state directory) for scope (see Options.Scope). The plan
// only reads it; close releases it. Without a ledger there it does
// nothing.
func (pl *Planner) NameMovesFrom(dir, scope string) (close func()) {
	return pl.NameMovesFromLedger("", dir, scope)
}

// NameMovesFromLedger is NameMovesFrom, reading the PostgreSQL ledger at
// url when it is not "".
func (pl *Planner) NameMovesFromLedger(url, dir, scope string) (close func()) {
	l, err := OpenPlanLedger(PlanLedger{URL: url, Dir: dir, Scope: scope})
	if err != nil || l == nil {
		return func() {}
	}
	pl.UseLedger(l)
	return l.Close
}

// PlanLedger says which ledger a dry run reads, and the journal whose
// earlier runs it must still be there for.
type PlanLedger struct {
	URL, Dir, Scope string
	// Journal is the run's journal ("" for none); Op the run's; LedgerLost
	// as Options.LedgerLost.
	Journal    string
	Op         Op
	LedgerLost bool
}

// OpenPlanLedger opens, for a dry run, the ledger a real run of the same
// command would use, and checks it as that run does before anything is
// planned: a ledger that cannot be opened (damaged, truncated, a database
// unreachable) is its *ledger.Error, and one gone from where the journal's
// earlier runs recorded their moves (deleted, moved aside, made again) a
// *LedgerLostError, both exit 12, unless pl.LedgerLost for the latter. It
// only reads: a SQLite ledger that is not there is not made (nil, and no
// error, when no journal needs it), and the journal is neither locked nor
// changed. Close the ledger returned.
func OpenPlanLedger(pl PlanLedger) (*ledger.Ledger, error) {
	data, ix, err := readJournal(pl.Journal, pl.Op)
	if err != nil {
		return nil, err
	}
	if ix != nil {
		ix.f.Close()
	}
	if pl.URL == "" && (pl.Dir == "" || !ledger.Exists(pl.Dir)) {
		if ix != nil && pl.Dir != "" && len(ix.ledgers[ledger.SQLitePlace(pl.Dir)]) > 0 && ix.sent > 0 && !pl.LedgerLost {
			return nil, &LedgerLostError{Journal: pl.Journal, Ledger: ledger.SQLitePath(pl.Dir), Sent: ix.sent}
		}
		return nil, ledgerGone(pl.Dir, nil, pl.LedgerLost)
	}
	l, err := ledger.Open(ledger.Options{URL: pl.URL, Dir: pl.Dir, Scope: pl.Scope, Now: time.Now})
	if err != nil {
		return nil, err
	}
	if pl.Dir != "" {
		if err := ledgerGone(pl.Dir, l, pl.LedgerLost); err != nil {
			l.Close()
			return nil, err
		}
	}
	if ix != nil {
		done, err := l.JournalImported(ledger.JournalDigest(data))
		if err != nil {
			err = l.Unusable(err)
		} else if !done {
			err = ledgerLost(l, ix, pl.Journal, pl.LedgerLost)
		}
		if err != nil {
			l.Close()
			return nil, err
		}
	}
	return l, nil
}

// UseLedger lets the plan name, in a refusal of a possible repeat, the run,
// file and row that made the move held, from l.
func (pl *Planner) UseLedger(l *ledger.Ledger) {
	pl.madeBy = madeByOf(l)
	pl.edited = editsOf(l, pl.input, pl.sketch)
}
