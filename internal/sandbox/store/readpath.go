package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
)

// The reads every request makes (a payment's stored view, the clock's
// offset) go through statements prepared once per connection rather than
// parsed on each call. With a state file they run on connections of their
// own, opened query_only: under WAL a reader never waits for a writer, and
// a writer waiting for the file's lock (another process, the request
// log's batch) holds a connection of the other pool, never one a read
// needs. In memory the one connection serves both.
const (
	viewQuery = `SELECT status, created_at, view,
		COALESCE((SELECT v FROM meta WHERE k = 'clock_offset'), 0)
		FROM payments WHERE id = ? AND merchant_code = ? AND is_test = ?`
	clockQuery = `SELECT v FROM meta WHERE k = 'clock_offset'`
)

// readPoolSize is how many readers a state file keeps: more than a
// handful only queue on the same cores.
const readPoolSize = 8

// reads are the state's prepared reads and the connections they run on.
type reads struct {
	pool   *sql.DB      // a state file's read pool (nil in memory)
	idle   chan *reader // a state file's readers; nil: one to open
	shared *reader      // in memory: the statements on the state's DB
}

// reader is one connection's prepared statements. In memory, conn is nil
// and the statements are the DB's.
type reader struct {
	conn        *sql.Conn
	view, clock *sql.Stmt
}

type preparer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

func prepareReader(ctx context.Context, p preparer) (*reader, error) {
	view, err := p.PrepareContext(ctx, viewQuery)
	if err != nil {
		return nil, err
	}
	clock, err := p.PrepareContext(ctx, clockQuery)
	if err != nil {
		return nil, errors.Join(err, view.Close())
	}
	return &reader{view: view, clock: clock}, nil
}

func (rd *reader) close() error {
	err := errors.Join(rd.view.Close(), rd.clock.Close())
	if rd.conn != nil {
		err = errors.Join(err, rd.conn.Close())
	}
	return err
}

// openReads prepares the hot reads of the state at path ("" in memory)
// whose writing pool is db.
func openReads(path string, db *sql.DB) (*reads, error) {
	ctx := context.Background()
	if path == "" {
		rd, err := prepareReader(ctx, db)
		if err != nil {
			return nil, err
		}
		return &reads{shared: rd}, nil
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(10000)&_pragma=query_only(1)"
	pool, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sandbox state: %w", err)
	}
	pool.SetMaxOpenConns(readPoolSize)
	pool.SetMaxIdleConns(readPoolSize)
	r := &reads{pool: pool, idle: make(chan *reader, readPoolSize)}
	for range readPoolSize {
		r.idle <- nil // opened on first use
	}
	// One now, so that a state the pool cannot read fails at open.
	rd, err := r.open(ctx)
	if err != nil {
		return nil, errors.Join(err, pool.Close())
	}
	<-r.idle
	r.idle <- rd
	return r, nil
}

func (r *reads) open(ctx context.Context) (*reader, error) {
	conn, err := r.pool.Conn(ctx)
	if err != nil {
		return nil, err
	}
	rd, err := prepareReader(ctx, conn)
	if err != nil {
		return nil, errors.Join(err, conn.Close())
	}
	rd.conn = conn
	return rd, nil
}

// do runs f with a reader's statements. With a state file it waits for a
// free reader as long as ctx lets it, then runs f under a context without
// cancellation: a read of one row by its key takes microseconds, and a
// query under a context that can end costs two goroutines (database/sql's
// and the driver's) that watch it, more than the read itself.
func (r *reads) do(ctx context.Context, f func(ctx context.Context, rd *reader) error) error {
	if r.shared != nil {
		return f(ctx, r.shared)
	}
	var rd *reader
	select {
	case rd = <-r.idle:
	case <-ctx.Done():
		return ctx.Err()
	}
	var err error
	if rd == nil {
		if rd, err = r.open(ctx); err != nil {
			r.idle <- nil
			return err
		}
	}
	err = f(context.WithoutCancel(ctx), rd)
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) {
		rd.close()
		rd = nil // the next read opens another
	}
	r.idle <- rd
	return err
}

// close releases the readers and the read pool (not the state's DB).
func (r *reads) close() error {
	if r.shared != nil {
		return r.shared.close()
	}
	var errs []error
	for range readPoolSize {
		if rd := <-r.idle; rd != nil {
			errs = append(errs, rd.close())
		}
	}
	return errors.Join(append(errs, r.pool.Close())...)
}

// Close closes the state: its readers, its read pool and its DB.
func (s *State) Close() error {
	var err error
	if s.reads != nil {
		err = s.reads.close()
	}
	return errors.Join(err, s.DB.Close())
}
