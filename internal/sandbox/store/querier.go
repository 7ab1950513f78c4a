package store

import (
	"context"
	"database/sql"
)

// Querier is what reads need of *sql.DB and *sql.Tx alike.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}
