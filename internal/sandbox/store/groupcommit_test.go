package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/wire"
)

// insertJob is a job that writes k into meta and answers fail.
func insertJob(k string, fail error) *writeJob {
	return &writeJob{ctx: context.Background(), done: make(chan struct{}, 1),
		run: func(ctx context.Context, tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO meta (k, v) VALUES (?, 1)`, k); err != nil {
				return err
			}
			return fail
		}}
}

// metaKeys answers which of keys are in meta.
func metaKeys(t *testing.T, st *State, keys ...string) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	for _, k := range keys {
		var n int
		if err := st.DB.QueryRow(`SELECT count(*) FROM meta WHERE k = ?`, k).Scan(&n); err != nil {
			t.Fatal(err)
		}
		got[k] = n == 1
	}
	return got
}

// answered checks that every job of group was answered once.
func answered(t *testing.T, group ...*writeJob) {
	t.Helper()
	for i, j := range group {
		select {
		case <-j.done:
		default:
			t.Fatalf("job %d was not answered", i)
		}
	}
}

// A job that fails in a group is rolled back to its savepoint alone: the
// jobs before and after it commit, and each is answered its own outcome.
func TestGroupCommitRollsBackOnlyTheFailedJob(t *testing.T) {
	st, _ := openTestState(t)
	refused := errors.New("refused")
	group := []*writeJob{insertJob("a", nil), insertJob("b", refused), insertJob("c", nil)}
	st.writer.commit(append([]*writeJob(nil), group...))
	answered(t, group...)
	if group[0].err != nil || group[2].err != nil || !errors.Is(group[1].err, refused) {
		t.Fatalf("errors: %v, %v, %v", group[0].err, group[1].err, group[2].err)
	}
	if got := metaKeys(t, st, "a", "b", "c"); !got["a"] || got["b"] || !got["c"] {
		t.Fatalf("committed: %v, want a and c", got)
	}
}

// A job that fails before it writes anything (a move of a payment not
// found, or locked) does not make the others run again: the group commits
// in its first transaction, and the job answers its own error.
func TestGroupCommitGoesOnAfterAFailureBeforeWriting(t *testing.T) {
	st, _ := openTestState(t)
	notFound := errors.New("not found")
	var runs [3]int
	var txs [3]*sql.Tx
	job := func(i int, k string, fail error) *writeJob {
		return &writeJob{ctx: context.Background(), done: make(chan struct{}, 1),
			run: func(ctx context.Context, tx *sql.Tx) error {
				runs[i]++
				txs[i] = tx
				if fail != nil {
					return beforeWriting(fail)
				}
				_, err := tx.ExecContext(ctx, `INSERT INTO meta (k, v) VALUES (?, 1)`, k)
				return err
			}}
	}
	group := []*writeJob{job(0, "a", nil), job(1, "", notFound), job(2, "c", nil)}
	st.writer.commit(append([]*writeJob(nil), group...))
	answered(t, group...)
	if group[0].err != nil || group[2].err != nil || group[1].err != notFound {
		t.Fatalf("errors: %v, %v, %v (want the job's own error, unwrapped)", group[0].err, group[1].err, group[2].err)
	}
	if runs != [3]int{1, 1, 1} || txs[0] != txs[1] || txs[1] != txs[2] {
		t.Fatalf("runs %v: the group ran again", runs)
	}
	if got := metaKeys(t, st, "a", "c"); !got["a"] || !got["c"] {
		t.Fatalf("committed: %v, want a and c", got)
	}
}

// A job that ends the group's transaction itself fails alone and
// commits nothing, however it ends it: the others of its group run again
// in a new transaction and commit. SQLite refuses every commit but the
// group's own while its jobs run, so not even a write after a rollback
// of the job's own commits.
func TestGroupCommitRunsTheOthersAgainWhenAJobEndsTheTransaction(t *testing.T) {
	for _, c := range []struct {
		name   string
		break_ func(ctx context.Context, tx *sql.Tx) error
	}{
		{"rollback", func(ctx context.Context, tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO meta (k, v) VALUES ('x', 1)`); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `ROLLBACK`)
			return err
		}},
		{"commit", func(ctx context.Context, tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO meta (k, v) VALUES ('x', 1)`); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `COMMIT`)
			return err
		}},
		{"write after rollback, error dropped", func(ctx context.Context, tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `ROLLBACK`); err != nil {
				return err
			}
			_, _ = tx.ExecContext(ctx, `INSERT INTO meta (k, v) VALUES ('x', 1)`)
			return nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, _ := openTestState(t)
			breaker := &writeJob{ctx: context.Background(), done: make(chan struct{}, 1), run: c.break_}
			group := []*writeJob{insertJob("a", nil), breaker, insertJob("c", nil)}
			st.writer.commit(append([]*writeJob(nil), group...))
			answered(t, group...)
			if group[0].err != nil || group[2].err != nil || group[1].err == nil {
				t.Fatalf("errors: %v, %v, %v", group[0].err, group[1].err, group[2].err)
			}
			if got := metaKeys(t, st, "a", "x", "c"); !got["a"] || got["x"] || !got["c"] {
				t.Fatalf("committed: %v, want a and c", got)
			}
			// The guard is down between groups: the state's other
			// transactions commit on the same connection.
			if _, err := st.DB.Exec(`INSERT INTO meta (k, v) VALUES ('after', 1)`); err != nil {
				t.Fatal(err)
			}
			if got := metaKeys(t, st, "after"); !got["after"] {
				t.Fatal("a write after the group did not commit")
			}
		})
	}
}

// Concurrent moves of many payments, through the group writer, each
// acknowledged only with its change committed: every acknowledged capture
// is in the state, and no refusal leaves a trace.
func TestGroupCommitConcurrentMoves(t *testing.T) {
	st, _ := openTestState(t)
	ctx := context.Background()
	const payments, moves = 8, 25
	ids := make([]string, payments)
	for i := range ids {
		ids[i] = fmt.Sprintf("pay-%d", i)
		created := st.Clock.Now().UTC()
		rec := &Record{Session: Session{SessionID: "s-" + ids[i], MerchantCode: "ae-sandbox", Region: "ae"},
			Payment: wire.Payment{ID: ids[i], Status: wire.StatusAuthorized, Currency: "AED", CreatedAt: &created}}
		if err := st.InsertRecord(ctx, rec, true); err != nil {
			t.Fatal(err)
		}
	}
	refused := errors.New("refused")
	var wg sync.WaitGroup
	var mu sync.Mutex
	acked := map[string]int{}
	for g := range 4 * payments {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := ids[g%payments]
			for n := range moves {
				ref := fmt.Sprintf("%d-%d", g, n)
				_, err := st.Move(ctx, id, nil, func(r *Record, _ time.Time) (string, error) {
					if n%5 == 4 {
						return "", refused
					}
					r.Payment.Captures = append(r.Payment.Captures, wire.Capture{ID: ref, ReferenceID: ref})
					return "captured", nil
				})
				if n%5 == 4 {
					if !errors.Is(err, refused) {
						t.Errorf("refusal answered %v", err)
					}
					continue
				}
				if err != nil {
					t.Error(err)
					continue
				}
				mu.Lock()
				acked[id]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, id := range ids {
		rec, err := st.loadPayment(ctx, id, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Payment.Captures) != acked[id] {
			t.Errorf("%s: %d captures stored, %d acknowledged", id, len(rec.Payment.Captures), acked[id])
		}
	}
}

// A change sent after the state closed fails at once.
func TestGroupWriterClosed(t *testing.T) {
	st, id := openTestState(t)
	st.writer.close()
	_, err := st.Move(context.Background(), id, nil, func(*Record, time.Time) (string, error) { return "", nil })
	if !errors.Is(err, errClosed) {
		t.Fatalf("move after close: %v", err)
	}
}

// yieldWriter replaces st's writer with one whose yields before a commit
// are told on yielded and end when the test sends on resume.
func yieldWriter(t *testing.T, st *State) (w *groupWriter, yielded, resume chan struct{}) {
	t.Helper()
	st.writer.close()
	yielded, resume = make(chan struct{}), make(chan struct{})
	w = newGroupWriter(st.DB)
	w.yield = func() {
		yielded <- struct{}{}
		<-resume
	}
	st.writer = w
	go w.loop()
	return w, yielded, resume
}

// txOf sends a job to w in the background; its run tells on ran the
// transaction it ran in, and its answer comes on the channel returned.
func txOf(w *groupWriter, ran chan<- *sql.Tx) <-chan error {
	errc := make(chan error, 1)
	go func() {
		errc <- w.do(context.Background(), func(_ context.Context, tx *sql.Tx) error {
			ran <- tx
			return nil
		})
	}()
	return errc
}

// onTheirWay waits until n jobs are on their way to w: counted by their
// senders, whether or not the writer has them yet.
func onTheirWay(w *groupWriter, n int32) {
	for w.sending.Load() < n {
		runtime.Gosched()
	}
}

// holdingOne starts a writer whose yields wait for the test, sends it one
// job and waits until the writer holds it and yields: the job's answer
// comes on first, the transaction of each job run on ran (of room n).
func holdingOne(t *testing.T, n int) (w *groupWriter, resume chan struct{}, ran chan *sql.Tx, first <-chan error) {
	t.Helper()
	st, _ := openTestState(t)
	w, yielded, resume := yieldWriter(t, st)
	ran = make(chan *sql.Tx, n)
	first = txOf(w, ran)
	<-yielded
	return w, resume, ran, first
}

// Before a group commits, the writer lets the others run, and the jobs
// they send meanwhile commit with it in one transaction; closing the
// writer while it yields commits the group all the same.
func TestGroupWriterYieldsBeforeCommit(t *testing.T) {
	t.Run("jobs sent while it yields join the group", func(t *testing.T) {
		w, resume, ran, first := holdingOne(t, 3)
		second, third := txOf(w, ran), txOf(w, ran)
		onTheirWay(w, 2)
		resume <- struct{}{}
		for _, errc := range []<-chan error{first, second, third} {
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
		}
		if a, b, c := <-ran, <-ran, <-ran; a != b || b != c {
			t.Fatal("the jobs sent while the writer yielded committed in a transaction of their own")
		}
	})
	t.Run("a job on its way is waited for", func(t *testing.T) {
		w, resume, ran, first := holdingOne(t, 2)
		// A sender that has counted its job but not sent it yet.
		w.sending.Add(1)
		resume <- struct{}{}
		j := &writeJob{ctx: context.Background(), done: make(chan struct{}, 1), run: func(_ context.Context, tx *sql.Tx) error {
			ran <- tx
			return nil
		}}
		w.jobs <- j
		<-j.done
		if err := <-first; err != nil || j.err != nil {
			t.Fatal(err, j.err)
		}
		if a, b := <-ran, <-ran; a != b {
			t.Fatal("a job counted on its way committed apart from the group that waited for it")
		}
	})
	t.Run("close ends the wait", func(t *testing.T) {
		w, resume, _, first := holdingOne(t, 1)
		w.sending.Add(1) // a job that never comes
		resume <- struct{}{}
		w.close()
		if err := <-first; err != nil {
			t.Fatalf("the job the writer held when it closed: %v", err)
		}
	})
}
