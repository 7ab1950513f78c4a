package bulk

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Claims keep two runs off one payment: a run claims a payment in the
// ledger before it sends any of its moves, and gives it back once its rows
// of that payment are done. A payment another live run holds is waited
// for, whatever file, journal or command that run came from; a claim of a
// run that has ended (killed, crashed) is taken over. So the moves of a
// payment are sent by one run at a time, and the run that holds the claim
// when the service answers is the one that moved the money.

// Bounds of the wait between two tries of a claim another run holds.
const (
	claimFirstWait = 20 * time.Millisecond
	claimMaxWait   = 500 * time.Millisecond
)

// claim takes paymentID for this run, waiting while another live run
// holds it; waiting is told, once per holder, which run is waited for.
// kept is true when no other run has held the payment since this run gave
// it back: what this run knows of it is still true. The error is ctx's
// when the run stops while it waits, or the ledger's.
func (l *ledger) claim(ctx context.Context, paymentID string, first bool, waiting func(holder *runInfo)) (kept bool, err error) {
	delay := claimFirstWait
	var told int64
	for {
		holder, kept, err := l.tryClaim(paymentID, first)
		if err != nil || holder == nil {
			return kept, err
		}
		if holder.ID != told && waiting != nil {
			waiting(holder)
			told = holder.ID
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return false, ctx.Err()
		case <-timer.C:
		}
		delay = min(2*delay, claimMaxWait)
	}
}

// tryClaim takes paymentID unless another live run holds it, and then
// returns that run. kept says this run was the last to hold it. Taking
// it for the first time (first), or after another run, marks this run's
// moves of the payment claimed, in the same transaction.
func (l *ledger) tryClaim(paymentID string, first bool) (holder *runInfo, kept bool, err error) {
	if err := l.inPlace(); err != nil {
		return nil, false, err
	}
	err = l.inTx(func(tx *sql.Tx) error {
		var run, last int64
		err := tx.QueryRow("SELECT run, last_run FROM claims WHERE scope = ? AND payment_id = ?", l.scope, paymentID).Scan(&run, &last)
		switch {
		case err == nil && run != 0 && run != l.run:
			if h := l.runByID(tx, run); h != nil && alive(h.lock) {
				holder = h
				return nil
			}
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return err
		}
		kept = err == nil && (last == l.run || run == l.run)
		now := l.stamp()
		if _, err := tx.Exec("INSERT OR REPLACE INTO claims (scope, payment_id, run, last_run, since) VALUES (?, ?, ?, ?, ?)",
			l.scope, paymentID, l.run, l.run, now); err != nil {
			return err
		}
		if kept && !first {
			return nil
		}
		_, err = tx.Exec(`UPDATE moves SET phase = ?, run = ?, updated = ?
			WHERE phase IN (?, ?) AND run <> ? AND id IN (SELECT move FROM run_rows WHERE run = ? AND payment_id = ?)`,
			phaseClaimed, l.run, now, phasePlanned, phaseClaimed, l.run, l.run, paymentID)
		return err
	})
	return holder, kept, err
}

// release gives paymentID back; the ledger remembers this run held it
// last.
func (l *ledger) release(paymentID string) error {
	return l.exec("UPDATE claims SET run = 0 WHERE scope = ? AND payment_id = ? AND run = ?", l.scope, paymentID, l.run)
}
