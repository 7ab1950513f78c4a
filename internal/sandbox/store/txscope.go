package store

import (
	"context"
	"database/sql"
)

// A txScope is what one transaction of the writer keeps for the jobs it
// runs: the write path's statements bound to it, each bound once rather
// than once a job, and what a job read that no job writes (Memo). It
// lives as long as its transaction: a group run again after a broken
// transaction gets a new one.
type txScope struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	memo  map[any]any
}

type txScopeKey struct{}

func newTxScope(tx *sql.Tx) *txScope {
	return &txScope{tx: tx, stmts: make(map[string]*sql.Stmt, len(preparedQueries))}
}

// scopeOf answers the scope of tx carried by ctx, or nil: a job of the
// writer has one, a transaction of its own does not.
func scopeOf(ctx context.Context, tx *sql.Tx) *txScope {
	sc, _ := ctx.Value(txScopeKey{}).(*txScope)
	if sc == nil || sc.tx != tx {
		return nil
	}
	return sc
}

// bind answers st, prepared as query, bound to the scope's transaction.
func (sc *txScope) bind(ctx context.Context, query string, st *sql.Stmt) *sql.Stmt {
	if b, ok := sc.stmts[query]; ok {
		return b
	}
	b := sc.tx.StmtContext(ctx, st)
	sc.stmts[query] = b
	return b
}

// Memo answers what compute reads in tx, read once per transaction of the
// writer: the jobs of one group share it. It is only for tables that no
// job of the writer changes (the webhooks: they are registered, changed
// and reset in transactions of their own, which wait for the group's to
// end, as another process's writes do). key must be comparable and name
// what is read and for whom. Outside a job of the writer compute runs on
// every call.
func Memo[T any](ctx context.Context, tx *sql.Tx, key any, compute func() (T, error)) (T, error) {
	sc := scopeOf(ctx, tx)
	if sc == nil {
		return compute()
	}
	if v, ok := sc.memo[key]; ok {
		return v.(T), nil
	}
	v, err := compute()
	if err != nil {
		return v, err
	}
	if sc.memo == nil {
		sc.memo = make(map[any]any)
	}
	sc.memo[key] = v
	return v, nil
}
