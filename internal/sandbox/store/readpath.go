package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
)

// The reads every request makes (a payment's stored view, the clock's
// offset) go through statements prepared once per connection rather than
// parsed on each call, and, with a state file, through a pool of
// connections of their own, opened query_only: under WAL a reader never
// waits for a writer, and a writer waiting for the file's lock (another
// process, the request log's batch) holds a connection of the other pool,
// not one a read needs. In memory the one connection serves both.
const (
	viewQuery = `SELECT status, created_at, view,
		COALESCE((SELECT v FROM meta WHERE k = 'clock_offset'), 0)
		FROM payments WHERE id = ? AND merchant_code = ? AND is_test = ?`
	clockQuery = `SELECT v FROM meta WHERE k = 'clock_offset'`
)

// readPoolSize is how many connections the read pool keeps: more than a
// handful only queue on the same cores.
const readPoolSize = 8

// reads are the state's prepared reads and the pool they run on.
type reads struct {
	db    *sql.DB // the read pool, or the state's DB in memory
	own   bool    // db is a pool of its own, closed with the state
	view  *sql.Stmt
	clock *sql.Stmt
}

// openReads prepares the hot reads of the state at path ("" in memory)
// whose writing pool is db.
func openReads(path string, db *sql.DB) (*reads, error) {
	r := &reads{db: db}
	if path != "" {
		dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
			"?_pragma=busy_timeout(10000)&_pragma=query_only(1)"
		pool, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, fmt.Errorf("sandbox state: %w", err)
		}
		pool.SetMaxOpenConns(readPoolSize)
		pool.SetMaxIdleConns(readPoolSize)
		r.db, r.own = pool, true
	}
	var err error
	ctx := context.Background()
	if r.view, err = r.db.PrepareContext(ctx, viewQuery); err == nil {
		r.clock, err = r.db.PrepareContext(ctx, clockQuery)
	}
	if err != nil {
		return nil, errors.Join(err, r.close())
	}
	return r, nil
}

// pointRead is the context of a read of one row by its key: it keeps
// ctx's values but not its cancellation. Such a read takes microseconds,
// and a query under a context that can end costs two goroutines (one of
// database/sql, one of the driver) that watch it, more than the read.
func pointRead(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// close releases the statements and the read pool (not the state's DB).
func (r *reads) close() error {
	var errs []error
	for _, st := range []*sql.Stmt{r.view, r.clock} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	if r.own {
		errs = append(errs, r.db.Close())
	}
	return errors.Join(errs...)
}

// Close closes the state: its prepared reads, its read pool and its DB.
func (s *State) Close() error {
	var err error
	if s.reads != nil {
		err = s.reads.close()
	}
	return errors.Join(err, s.DB.Close())
}
