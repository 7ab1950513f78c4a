package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"
)

// Group commit. Every change of a payment (Move, InsertRecord) is a job
// for the state's one writer goroutine. The writer takes the jobs that
// are waiting, up to maxGroup, and runs them in one IMMEDIATE transaction,
// each in a savepoint of its own: a job that fails is rolled back to its
// savepoint and the others go on. Then it commits once and answers every
// job of the group. A request is answered only after its group has
// committed, so what it acknowledged is in the state; concurrent writers
// share one commit (one write of the WAL) instead of paying one each. A
// lone writer finds nobody waiting and commits alone, as before.
//
// When SQLite refuses a savepoint's own statement (the transaction is
// gone: a full disk, an I/O error), the writer rolls the whole
// transaction back, answers the job it was running with the error and
// runs the rest again in a new transaction: a job's outcome never depends
// on another's failure. A failed commit fails the whole group: nothing of
// it is acknowledged.

// maxGroup bounds the jobs of one transaction, so that the first of them
// does not wait on too many others.
const maxGroup = 64

// lingerFor is how long the writer waits for latecomers when the group it
// gathered holds half the jobs of the one before, or fewer. Under many concurrent
// writers a request spends most of its time before it reaches the writer
// (reading and checking its body, authenticating), so jobs arrive a few
// at a time; a group taken as it stands would commit one or two of them,
// and a commit's work (the WAL frames of the pages its jobs share, the
// rightmost leaves of the tables above all) would be done again for every
// one or two. Waiting a fraction of a millisecond for as many jobs as the
// last group held doubles the jobs a commit carries when checkouts come
// 32 at once. A group that is only a little smaller than the last (moves
// come a dozen at a time) does not wait: the writer is busy enough. A
// writer whose last group held one job never waits, so a lone client's
// request is not delayed; a wait that times out makes the next group's
// target smaller.
const lingerFor = 300 * time.Microsecond

// groupTimeout bounds one group's transaction: a change that has begun
// ends (committed or rolled back) even when its request is gone.
const groupTimeout = 10 * time.Second

// A writeJob is one change: run does it in tx, inside the job's savepoint;
// an error rolls back what it wrote. ctx carries the request's values (a
// fixture's pinned time and ids), never its cancellation.
type writeJob struct {
	ctx  context.Context
	run  func(ctx context.Context, tx *sql.Tx) error
	err  error
	done chan struct{}
}

// groupWriter is the state's writer goroutine.
type groupWriter struct {
	db      *sql.DB
	jobs    chan *writeJob // unbuffered: a job sent is a job taken
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
	// last is how many jobs the last group held; only loop reads and
	// writes it.
	last int
	// lingerTimer starts a wait of lingerFor for latecomers: the channel
	// fires when it is over, the function stops it.
	lingerTimer func() (<-chan time.Time, func() bool)
	// ckpt copies the WAL back beside the writer (checkpoint.go); nil
	// in memory.
	ckpt *checkpointer
	// marks are the statements that set, undo and release a job's
	// savepoint, prepared by loop once; a job costs SQLite three parses
	// less. Only loop uses them.
	marks map[string]*sql.Stmt
	// watch reads the state file's mark as each transaction begins, with
	// the write lock held, and once it has committed; carry hears of the
	// two (viewCache.carryClock). nil: a state with no mark to read.
	watch *walWatch
	carry func(before, after walMark)
}

// The savepoint statements of a job (marks).
const (
	markJob    = `SAVEPOINT job`
	undoJob    = `ROLLBACK TO job`
	releaseJob = `RELEASE job`
)

func newGroupWriter(db *sql.DB) *groupWriter {
	return &groupWriter{db: db, jobs: make(chan *writeJob), stop: make(chan struct{}), stopped: make(chan struct{}),
		lingerTimer: func() (<-chan time.Time, func() bool) {
			t := time.NewTimer(lingerFor)
			return t.C, t.Stop
		}}
}

func startGroupWriter(db *sql.DB, ckpt *checkpointer, watch *walWatch, carry func(before, after walMark)) *groupWriter {
	w := newGroupWriter(db)
	w.ckpt = ckpt
	if watch != nil {
		w.watch, w.carry = watch, carry
	}
	go w.loop()
	return w
}

// close ends the writer once its current group is answered; a job sent
// after it fails with errClosed.
func (w *groupWriter) close() {
	w.once.Do(func() { close(w.stop) })
	<-w.stopped
	w.ckpt.close()
}

var jobPool = sync.Pool{New: func() any { return &writeJob{done: make(chan struct{}, 1)} }}

// do runs run as one job of a group and answers its error, or the error
// of the group's commit, once the group has committed or rolled back.
func (w *groupWriter) do(ctx context.Context, run func(ctx context.Context, tx *sql.Tx) error) error {
	j := jobPool.Get().(*writeJob)
	j.ctx, j.run, j.err = context.WithoutCancel(ctx), run, nil
	select {
	case w.jobs <- j:
	case <-w.stopped:
		j.ctx, j.run = nil, nil
		jobPool.Put(j)
		return errClosed
	}
	<-j.done
	err := j.err
	j.ctx, j.run, j.err = nil, nil, nil
	jobPool.Put(j)
	return err
}

// Write runs run as one job of the state's writer: in the transaction of
// a group, in a savepoint of its own, and answers once that group has
// committed or rolled back. It is for what shares the state's one write
// connection without being a change of a payment (the request log): such
// a write rides in the moves' transaction and commit instead of holding
// the connection between two groups. run may be run again, in the next
// transaction, when another job breaks the one it ran in.
func (s *State) Write(ctx context.Context, run func(ctx context.Context, tx *sql.Tx) error) error {
	if s.DB == nil || s.writer == nil {
		return errClosed
	}
	return s.writer.do(ctx, run)
}

func (w *groupWriter) loop() {
	defer close(w.stopped)
	w.prepareMarks()
	defer func() {
		for _, st := range w.marks {
			st.Close()
		}
	}()
	group := make([]*writeJob, 0, maxGroup)
	for {
		select {
		case j := <-w.jobs:
			group = append(group[:0], j)
		case <-w.stop:
			return
		}
	gather:
		for len(group) < maxGroup {
			select {
			case j := <-w.jobs:
				group = append(group, j)
			default:
				break gather
			}
		}
		if w.lingers(len(group)) {
			group = w.linger(group)
		}
		w.last = len(group)
		if w.ckpt != nil && w.ckpt.catchUp.Swap(false) {
			// The WAL's tail, so that this group writes it from its start.
			_, _, _ = walCheckpoint(context.Background(), w.db)
		}
		w.commit(group)
		w.ckpt.committed()
		clear(group)
	}
}

// lingers tells whether a group of n jobs waits for latecomers: n is half
// the last group's or fewer.
func (w *groupWriter) lingers(n int) bool { return n <= w.last/2 }

// linger adds to group the jobs that come within lingerFor, until it
// holds as many as the last group did. Closing the writer ends the wait;
// the group is committed all the same.
func (w *groupWriter) linger(group []*writeJob) []*writeJob {
	fired, stop := w.lingerTimer()
	defer stop()
	for len(group) < w.last {
		select {
		case j := <-w.jobs:
			group = append(group, j)
		case <-fired:
			return group
		case <-w.stop:
			return group
		}
	}
	return group
}

// commit runs group in transactions until every job of it is answered.
func (w *groupWriter) commit(group []*writeJob) {
	for len(group) > 0 {
		failed, err := w.tryGroup(group)
		if failed < 0 {
			for _, j := range group {
				if err != nil {
					j.err = err
				}
				j.done <- struct{}{}
			}
			return
		}
		// The transaction broke in job failed: it alone answers the
		// error; the others run again.
		group[failed].err = err
		group[failed].done <- struct{}{}
		group = append(group[:failed:failed], group[failed+1:]...)
	}
}

// tryGroup runs group in one transaction. It answers -1 and the error of
// the whole group (nil: committed; each job's own error is in it), or the
// index of the job in which the transaction broke and why.
func (w *groupWriter) tryGroup(group []*writeJob) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), groupTimeout)
	defer cancel()
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return -1, err
	}
	defer tx.Rollback()
	before, watched := w.watch.mark() // no watch: not watched
	scope := newTxScope(tx)
	for i, j := range group {
		if ctx.Err() != nil { // out of time: nothing of the group commits
			return -1, ctx.Err()
		}
		if err := w.mark(ctx, scope, markJob); err != nil {
			return i, err
		}
		j.err = j.run(context.WithValue(j.ctx, txScopeKey{}, scope), tx)
		if j.err != nil {
			if err := w.mark(ctx, scope, undoJob); err != nil {
				return i, errors.Join(j.err, err)
			}
		}
		if err := w.mark(ctx, scope, releaseJob); err != nil {
			return i, errors.Join(j.err, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return -1, err
	}
	if watched {
		if after, ok := w.watch.mark(); ok {
			w.carry(before, after)
		}
	}
	return -1, nil
}

// prepareMarks prepares the savepoint statements; one that does not
// prepare is run unprepared (mark).
func (w *groupWriter) prepareMarks() {
	w.marks = make(map[string]*sql.Stmt, 3)
	for _, q := range []string{markJob, undoJob, releaseJob} {
		if st, err := w.db.Prepare(q); err == nil {
			w.marks[q] = st
		}
	}
}

// mark runs a savepoint statement in the scope's transaction.
func (w *groupWriter) mark(ctx context.Context, scope *txScope, query string) error {
	st, ok := w.marks[query]
	if !ok {
		_, err := scope.tx.ExecContext(ctx, query)
		return err
	}
	_, err := scope.bind(ctx, query, st).ExecContext(ctx)
	return err
}
