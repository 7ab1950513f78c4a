package store

import (
	"context"
	"database/sql"
	"net/url"
	"sync"
	"sync/atomic"
)

// Checkpoints. A commit in WAL mode appends the pages it changed to the
// -wal file; a checkpoint copies them back into the state file so that
// the WAL can start over. SQLite runs one on the committing connection
// once the WAL passes 1,000 pages, inside that commit: for the state's
// writer, a copy of some 16 MB of pages and two fsyncs during which every
// write of the sandbox waits, which is where a write's slowest answers
// came from. So the writer's connection does not checkpoint by itself
// (wal_autocheckpoint 0); a goroutine of its own, on a connection of its
// own, copies the WAL back after the writer's commits, beside them (a
// PASSIVE checkpoint never stops a writer or a reader).
//
// Under a steady stream of commits that copy never quite ends: the writer
// has committed more by the time it is done, and the WAL can start over
// only once all of it is in the state file. When the WAL has grown past
// restartFrames and the copy has caught up to within tailFrames of its
// end, the writer checkpoints what is left itself, between two groups:
// that copy is short, and the next group's commit writes the WAL from its
// start. A copy that never gets that close (a machine too loaded for the
// checkpointer to keep up) is ended by the writer all the same once the
// WAL holds maxFrames, as SQLite would have done at a quarter of that:
// the WAL is bounded either way. A process that shares the file
// checkpoints on its own commits as it always did. So does a checkpointer
// that has not run for four of its turns.

// restartFrames is how long the WAL grows before the writer brings it
// back to its start: SQLite's own threshold.
const restartFrames = 1000

// tailFrames is the most the writer copies itself to end a checkpoint
// that kept up.
const tailFrames = 256

// maxFrames is the WAL's length at which the writer ends the checkpoint
// itself, however much is left to copy.
const maxFrames = 4 * restartFrames

// catchUpAfter tells whether the writer ends the checkpoint itself after
// a checkpoint that found the WAL frames long and copied of them into the
// state file.
func catchUpAfter(frames, copied int) bool {
	return frames >= restartFrames && (frames-copied <= tailFrames || frames >= maxFrames)
}

// checkpointEvery is how many commits the checkpointer lets pass before
// it copies the WAL back: a page that many commits change (a table's
// last leaf, an index's root) is copied once for all of them.
const checkpointEvery = 32

// checkpointer copies the state file's WAL back in the background.
type checkpointer struct {
	db      *sql.DB
	kick    chan struct{} // a commit happened; one is enough
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
	// commits counts the writer's commits since the last checkpoint.
	commits atomic.Int32
	// catchUp asks the writer to copy the WAL's tail itself before its
	// next group.
	catchUp atomic.Bool
}

// startCheckpointer opens a connection of its own to the state file at
// path and starts the goroutine.
func startCheckpointer(path string) (*checkpointer, error) {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	c := &checkpointer{db: db, kick: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	go c.loop()
	return c, nil
}

// committed tells the checkpointer that the writer committed.
func (c *checkpointer) committed() {
	if c == nil {
		return
	}
	n := c.commits.Add(1)
	if n >= 4*checkpointEvery {
		// The checkpointer has not run for four of its turns (a loaded
		// machine): the writer copies the WAL back itself.
		c.catchUp.Store(true)
		c.commits.Store(0)
		return
	}
	if n < checkpointEvery {
		return
	}
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *checkpointer) loop() {
	defer close(c.stopped)
	for {
		select {
		case <-c.kick:
		case <-c.stop:
			return
		}
		c.commits.Store(0)
		frames, copied, err := walCheckpoint(context.Background(), c.db)
		if err == nil && catchUpAfter(frames, copied) {
			c.catchUp.Store(true)
		}
	}
}

// close stops the goroutine and closes its connection; closing it again
// does nothing.
func (c *checkpointer) close() {
	if c == nil {
		return
	}
	c.once.Do(func() {
		close(c.stop)
		<-c.stopped
		_ = c.db.Close()
	})
}

// walCheckpoint runs a PASSIVE checkpoint on db and answers the WAL's
// length in frames and how many of them are now in the state file.
func walCheckpoint(ctx context.Context, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (frames, copied int, err error) {
	var busy int
	err = db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied)
	return frames, copied, err
}
