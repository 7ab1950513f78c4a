package ledger

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

// Claim takes paymentID for this run, waiting while another live run
// holds it; waiting is told, once per holder, which run is waited for.
// kept is true when no other run has held the payment since this run gave
// it back: what this run knows of it is still true. The error is ctx's
// when the run stops while it waits, or the ledger's.
func (l *Ledger) Claim(ctx context.Context, paymentID string, first bool, waiting func(holder *RunInfo)) (kept bool, err error) {
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
func (l *Ledger) tryClaim(paymentID string, first bool) (holder *RunInfo, kept bool, err error) {
	if err := l.half.inPlace(); err != nil {
		return nil, false, err
	}
	err = l.inTx(func(tx tx) error {
		var run, last int64
		err := tx.QueryRow("SELECT run, last_run FROM claims WHERE scope = ? AND payment_id = ?", l.scope, paymentID).Scan(&run, &last)
		switch {
		case err == nil && run != 0 && run != l.run:
			if h := l.runByID(tx, run); h != nil && l.alive(h) {
				holder = h
				return nil
			}
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return err
		}
		kept = err == nil && (last == l.run || run == l.run)
		now := l.stamp()
		if _, err := tx.Exec(`INSERT INTO claims (scope, payment_id, run, last_run, since) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (scope, payment_id) DO UPDATE SET run = excluded.run, last_run = excluded.last_run, since = excluded.since`,
			l.scope, paymentID, l.run, l.run, now); err != nil {
			return err
		}
		if kept && !first {
			return nil
		}
		_, err = tx.Exec(`UPDATE moves SET phase = ?, run = ?, updated = ?
			WHERE phase IN (?, ?) AND run <> ? AND id IN (SELECT move FROM run_rows WHERE run = ? AND payment_id = ?)`,
			PhaseClaimed, l.run, now, PhasePlanned, PhaseClaimed, l.run, l.run, paymentID)
		return err
	})
	return holder, kept, err
}

// Release gives paymentID back; the ledger remembers this run held it
// last.
func (l *Ledger) Release(paymentID string) error {
	return l.exec("UPDATE claims SET run = 0 WHERE scope = ? AND payment_id = ? AND run = ?", l.scope, paymentID, l.run)
}
