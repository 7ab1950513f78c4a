package store

import (
	"context"
	"database/sql"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
)

// Group commit. Every change of a payment (Move, InsertRecord) is a job
// for the state's one writer goroutine. The writer takes the jobs that
// are waiting, up to maxGroup, and runs them in one IMMEDIATE transaction:
// a job that fails is undone and the others go on (see commit). Then it
// commits once and answers every job of the group. A request is answered only after its group has
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

// Before it commits, the writer lets the goroutines that are ready to
// run have their turn (runtime.Gosched), and takes the jobs they bring.
// Under many concurrent writers a request spends most of its time before
// it reaches the writer (read, checked, authenticated, on a CPU shared
// with the others), so jobs arrive a few at a time; a group taken as it
// stands would commit two or three of them, and a commit's work (the WAL
// frames of the pages its jobs share, the rightmost leaves of the tables
// and indexes above all; the checkpoints that follow) would be done again
// for every two or three. One turn for the others gathers about three
// times as many. A lone client's request loses nothing by it: with
// nothing else ready to run, the yield returns at once.

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
	// yield gives the goroutines ready to run their turn before a group
	// commits (runtime.Gosched; tests replace it).
	yield func()
	// guard finds a job that ends the group's transaction itself while
	// the group runs without savepoints (commit).
	guard txGuard
	// sending counts the jobs on their way: do counts one before it sends
	// it, the writer uncounts it as it takes it. A job counted is as good
	// as sent, so gather waits for it.
	sending atomic.Int32
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
		yield: runtime.Gosched}
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
	w.sending.Add(1)
	select {
	case w.jobs <- j:
	case <-w.stopped:
		w.sending.Add(-1)
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
			group = append(group[:0], w.took(j))
		case <-w.stop:
			return
		}
		group = w.gather(group)
		if len(group) < maxGroup {
			w.yield()
			group = w.gather(group)
		}
		if w.ckpt != nil && w.ckpt.catchUp.Swap(false) {
			// The WAL's tail, so that this group writes it from its start.
			_, _, _ = walCheckpoint(context.Background(), w.db)
		}
		w.commit(group)
		w.ckpt.committed()
		clear(group)
	}
}

// gather adds to group the jobs sent or on their way (sending), up to
// maxGroup.
func (w *groupWriter) gather(group []*writeJob) []*writeJob {
	for len(group) < maxGroup {
		select {
		case j := <-w.jobs:
			group = append(group, w.took(j))
			continue
		default:
		}
		if w.sending.Load() == 0 {
			break
		}
		// A sender counted its job and is about to send it.
		select {
		case j := <-w.jobs:
			group = append(group, w.took(j))
		case <-w.stop:
			return group
		}
	}
	return group
}

// took answers j, no longer on its way.
func (w *groupWriter) took(j *writeJob) *writeJob {
	w.sending.Add(-1)
	return j
}

// commit runs group in transactions until every job of it is answered.
// The first transaction runs the jobs as they are; a job that fails in it
// (its run answers an error, which may come after some of its writes)
// answers that error, and the others run again, each in a savepoint of
// its own. A savepoint costs SQLite a copy of every page a job changes
// that the jobs before it changed too (the tables' last leaves, the
// indexes' right edges: a group's jobs share most of their pages), so a
// group none of whose jobs fails, the common case, is spared them all.
// The job that failed ran after the same jobs, on the same state, as it
// would have with savepoints, so its answer is the one it would have had.
func (w *groupWriter) commit(group []*writeJob) {
	marked := false
	for len(group) > 0 {
		failed, err := w.tryGroup(group, marked)
		if failed < 0 {
			for _, j := range group {
				if err != nil {
					j.err = err
				}
				j.done <- struct{}{}
			}
			return
		}
		// Job failed answers err (its own, or the transaction's that
		// broke in it); the others run again, in savepoints.
		group[failed].err = err
		group[failed].done <- struct{}{}
		group = append(group[:failed:failed], group[failed+1:]...)
		marked = true
	}
}

// tryGroup runs group in one transaction, each job in a savepoint when
// marked. It answers -1 and the error of the whole group (nil: committed;
// each job's own error is in it), or the index of the job that failed and
// why: unmarked, any job whose run answered an error or ended the
// transaction; marked, the job in which the transaction broke.
func (w *groupWriter) tryGroup(group []*writeJob, marked bool) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), groupTimeout)
	defer cancel()
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return -1, err
	}
	defer conn.Close()
	if !marked && !w.guard.watch(conn) {
		marked = true // no guard on this connection: savepoints tell
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return -1, err
	}
	defer tx.Rollback()
	before, watched := w.watch.mark() // no watch: not watched
	scope := newTxScope(tx)
	if !marked {
		w.guard.arm()
		defer w.guard.disarm()
	}
	for i, j := range group {
		if ctx.Err() != nil { // out of time: nothing of the group commits
			return -1, ctx.Err()
		}
		if !marked {
			var clean bool
			clean, j.err = unwrapUntouched(j.run(context.WithValue(j.ctx, txScopeKey{}, scope), tx))
			if w.guard.ended.Load() {
				j.err, clean = errors.Join(j.err, errTxEnded), false
			}
			if j.err != nil && !clean {
				return i, j.err
			}
			continue
		}
		if err := w.mark(ctx, scope, markJob); err != nil {
			return i, err
		}
		_, j.err = unwrapUntouched(j.run(context.WithValue(j.ctx, txScopeKey{}, scope), tx))
		if j.err != nil {
			if err := w.mark(ctx, scope, undoJob); err != nil {
				return i, errors.Join(j.err, err)
			}
		}
		if err := w.mark(ctx, scope, releaseJob); err != nil {
			return i, errors.Join(j.err, err)
		}
	}
	w.guard.disarm()
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

// An untouched error is a job's failure before it wrote anything (a move
// of a payment not found, or locked by another): the group's transaction
// is as the job found it, so a first run goes on without savepoints
// rather than running the group again.
type untouched struct{ err error }

func (u untouched) Error() string { return u.err.Error() }
func (u untouched) Unwrap() error { return u.err }

// beforeWriting marks err, from a job that has written nothing yet, as
// untouched.
func beforeWriting(err error) error {
	if err == nil {
		return nil
	}
	return untouched{err}
}

// unwrapUntouched answers whether the job wrote nothing and the error its
// caller sees.
func unwrapUntouched(err error) (clean bool, _ error) {
	if u, ok := err.(untouched); ok {
		return true, u.err
	}
	return false, err
}

// errTxEnded is the error of a job that ended its group's transaction
// itself (a ROLLBACK or COMMIT of its own, or an error SQLite answered
// by rolling back, which the job did not pass on).
var errTxEnded = errors.New("the job ended its transaction")

// A txGuard watches the writer's connection while a group's jobs run
// without savepoints: SQLite tells it of every transaction that ends
// there (sqlite3_commit_hook, sqlite3_rollback_hook). While it is armed,
// a commit is refused, which SQLite turns into a rollback, and a rollback
// is noted: a job that ends the transaction is found as soon as it
// returns, and nothing a later job writes can commit on its own outside
// the group's transaction. Disarmed, it lets every commit through: the
// connection also serves the state's other transactions.
type txGuard struct {
	armed atomic.Bool
	ended atomic.Bool
	// hooked is the driver connection the hooks were registered on; only
	// the writer touches it.
	hooked any
}

func (g *txGuard) arm()    { g.ended.Store(false); g.armed.Store(true) }
func (g *txGuard) disarm() { g.armed.Store(false) }

// watch registers the guard's hooks on conn's driver connection, once per
// connection, and tells whether they are there.
func (g *txGuard) watch(conn *sql.Conn) bool {
	ok := false
	_ = conn.Raw(func(dc any) error {
		if dc == g.hooked {
			ok = true
			return nil
		}
		hr, can := dc.(sqlite.HookRegisterer)
		if !can {
			return nil
		}
		hr.RegisterCommitHook(func() int32 {
			if g.armed.Load() {
				g.ended.Store(true)
				return 1 // not outside the group's own commit
			}
			return 0
		})
		hr.RegisterRollbackHook(func() {
			if g.armed.Load() {
				g.ended.Store(true)
			}
		})
		g.hooked, ok = dc, true
		return nil
	})
	return ok
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
