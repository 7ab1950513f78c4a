package store

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net/url"
	"runtime"
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

// readPoolSize is how many readers a state file keeps: two a processor.
// More only wait on the same cores, in SQLite's mutexes and the kernel's
// scheduler, where a request that waits for a reader waits parked on a
// channel.
func readPoolSize() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// reads are the state's prepared reads and the connections they run on.
type reads struct {
	watch  *walWatch     // a state file's marks (nil: none to watch; walmark.go)
	cache  viewCache     // what the reads answered at the watch's mark
	pool   *sql.DB       // a state file's read pool (nil in memory)
	idle   chan *reader  // a state file's readers; nil: one to open
	shared *reader       // in memory: the statements on the state's DB
	closed chan struct{} // closed by close: a read after it fails at once
}

// errStateClosed answers a read of a state that was closed.
var errStateClosed = errors.New("sandbox state: closed")

// reader is one connection's prepared statements: with a state file the
// driver's own, prepared on the connection the reader holds; in memory
// the DB's.
type reader struct {
	conn        *sql.Conn      // a state file's connection; nil in memory
	view, clock *sql.Stmt      // in memory
	raw         [2]driver.Stmt // with a state file: view, clock
}

// The statements of a reader, by index.
const (
	viewStmt = iota
	clockStmt
)

var readQueries = [2]string{viewStmt: viewQuery, clockStmt: clockQuery}

// sharedReader prepares the statements on the state's DB (in memory,
// where the one connection serves writers too).
func sharedReader(ctx context.Context, db *sql.DB) (*reader, error) {
	view, err := db.PrepareContext(ctx, viewQuery)
	if err != nil {
		return nil, err
	}
	clock, err := db.PrepareContext(ctx, clockQuery)
	if err != nil {
		return nil, errors.Join(err, view.Close())
	}
	return &reader{view: view, clock: clock}, nil
}

// row runs statement which with args and copies the columns of its first
// row into dest, as the driver gives them (int64, float64, string,
// []byte, nil); sql.ErrNoRows when there is none. With a state file it
// talks to the driver directly: database/sql's rows, their bookkeeping
// and a second copy of every []byte are most of what a point read costs
// beyond SQLite itself.
func (rd *reader) row(ctx context.Context, which int, dest []any, args ...any) error {
	if rd.conn == nil {
		st := rd.view
		if which == clockStmt {
			st = rd.clock
		}
		ptrs := make([]any, len(dest))
		for i := range dest {
			ptrs[i] = &dest[i]
		}
		return st.QueryRowContext(ctx, args...).Scan(ptrs...)
	}
	return rd.conn.Raw(func(any) error {
		named := make([]driver.NamedValue, len(args))
		for i, a := range args {
			named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
		rows, err := rd.raw[which].(driver.StmtQueryContext).QueryContext(ctx, named)
		if err != nil {
			return err
		}
		vals := make([]driver.Value, len(dest))
		err = rows.Next(vals)
		if err == io.EOF {
			err = sql.ErrNoRows
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = bytes.Clone(b) // the driver may reuse it once the rows close
			}
			dest[i] = v
		}
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

func (rd *reader) close() error {
	if rd.conn == nil {
		return errors.Join(rd.view.Close(), rd.clock.Close())
	}
	err := rd.conn.Raw(func(any) error {
		var errs []error
		for _, st := range rd.raw {
			if st != nil {
				errs = append(errs, st.Close())
			}
		}
		return errors.Join(errs...)
	})
	return errors.Join(err, rd.conn.Close())
}

// openReads prepares the hot reads of the state at path ("" in memory)
// whose writing pool is db.
func openReads(path string, db *sql.DB) (*reads, error) {
	ctx := context.Background()
	if path == "" {
		rd, err := sharedReader(ctx, db)
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
	size := readPoolSize()
	pool.SetMaxOpenConns(size)
	pool.SetMaxIdleConns(size)
	r := &reads{pool: pool, idle: make(chan *reader, size), closed: make(chan struct{})}
	for range size {
		r.idle <- nil // opened on first use
	}
	// One now, so that a state the pool cannot read fails at open.
	rd, err := r.open(ctx)
	if err != nil {
		return nil, errors.Join(err, pool.Close())
	}
	<-r.idle
	r.idle <- rd
	r.watch = watchWAL(ctx, path, pool)
	return r, nil
}

// open takes a connection of the read pool for a reader of its own and
// prepares the statements on the driver's connection.
func (r *reads) open(ctx context.Context) (*reader, error) {
	conn, err := r.pool.Conn(ctx)
	if err != nil {
		return nil, err
	}
	rd := &reader{conn: conn}
	err = conn.Raw(func(dc any) error {
		p, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("sandbox state: the SQLite driver prepares no statements with a context")
		}
		for i, q := range readQueries {
			st, err := p.PrepareContext(ctx, q)
			if err != nil {
				return err
			}
			if _, ok := st.(driver.StmtQueryContext); !ok {
				return errors.Join(fmt.Errorf("sandbox state: the SQLite driver queries no statements with a context"), st.Close())
			}
			rd.raw[i] = st
		}
		return nil
	})
	if err != nil {
		return nil, errors.Join(err, rd.close())
	}
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
	case <-r.closed:
		return errStateClosed
	default:
	}
	select {
	case rd = <-r.idle:
	case <-r.closed:
		return errStateClosed
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
	select {
	case <-r.closed:
		return nil // closed before
	default:
		close(r.closed)
	}
	var errs []error
	for range cap(r.idle) {
		if rd := <-r.idle; rd != nil {
			errs = append(errs, rd.close())
		}
	}
	return errors.Join(append(errs, r.pool.Close(), r.watch.close())...)
}

// Close closes the state: its readers, its read pool and its DB.
func (s *State) Close() error {
	var err error
	if s.writer != nil {
		s.writer.close()
	}
	if s.reads != nil {
		err = s.reads.close()
	}
	return errors.Join(err, s.DB.Close())
}
