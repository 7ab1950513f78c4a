package store

import (
	"context"
	"database/sql"
)

// A TxObserver hears of a change of a payment inside the transaction that
// makes it, before the commit: what it writes with tx (a notification in
// the outbox) commits with the change or not at all, so a crash never
// leaves a change without it. An error rolls the change back. It must do
// no slow work (no network, no name lookups): the state's only write
// connection waits on it. It answers what to run once the transaction has
// committed (nil: nothing), outside it.
type TxObserver func(ctx context.Context, tx *sql.Tx, c *Change) (after func(), err error)

// OnPaymentChangeInTx registers f to be called inside every transaction
// that changes a payment (see TxObserver).
func (s *State) OnPaymentChangeInTx(f TxObserver) {
	s.observersMu.Lock()
	defer s.observersMu.Unlock()
	s.txObservers = append(s.txObservers, f)
}

// observeInTx tells the transaction's observers of c, in tx; it answers
// what they want run after the commit.
func (s *State) observeInTx(ctx context.Context, tx *sql.Tx, c *Change) ([]func(), error) {
	s.observersMu.RLock()
	obs := s.txObservers
	s.observersMu.RUnlock()
	var afters []func()
	for _, f := range obs {
		after, err := f(ctx, tx, c)
		if err != nil {
			return nil, err
		}
		if after != nil {
			afters = append(afters, after)
		}
	}
	return afters, nil
}

// committed runs what the transaction's observers asked for after its
// commit, then tells the other observers of c.
func (s *State) committed(ctx context.Context, afters []func(), c *Change) {
	for _, f := range afters {
		f()
	}
	if c != nil {
		s.notify(ctx, *c)
	}
}
