package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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

// A job that breaks the transaction itself (here: ends it) fails alone:
// the others of its group run again in a new transaction and commit.
func TestGroupCommitRunsTheOthersAgainWhenAJobBreaksTheTransaction(t *testing.T) {
	st, _ := openTestState(t)
	breaker := &writeJob{ctx: context.Background(), done: make(chan struct{}, 1),
		run: func(ctx context.Context, tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO meta (k, v) VALUES ('x', 1)`); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `ROLLBACK`)
			return err
		}}
	group := []*writeJob{insertJob("a", nil), breaker, insertJob("c", nil)}
	st.writer.commit(append([]*writeJob(nil), group...))
	answered(t, group...)
	if group[0].err != nil || group[2].err != nil || group[1].err == nil {
		t.Fatalf("errors: %v, %v, %v", group[0].err, group[1].err, group[2].err)
	}
	if got := metaKeys(t, st, "a", "x", "c"); !got["a"] || got["x"] || !got["c"] {
		t.Fatalf("committed: %v, want a and c", got)
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

// lingerWriter replaces st's writer with one whose last group held last
// jobs and whose waits for latecomers are told on lingered and end when
// fired does (nil: never).
func lingerWriter(t *testing.T, st *State, last int, fired <-chan time.Time) (w *groupWriter, lingered chan struct{}) {
	t.Helper()
	st.writer.close()
	lingered = make(chan struct{}, 4)
	w = newGroupWriter(st.DB)
	w.last = last
	w.lingerTimer = func() (<-chan time.Time, func() bool) {
		lingered <- struct{}{}
		return fired, func() bool { return true }
	}
	st.writer = w
	go w.loop()
	return w, lingered
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

// waitLinger waits until the writer begins to wait for latecomers.
func waitLinger(t *testing.T, lingered <-chan struct{}) {
	t.Helper()
	select {
	case <-lingered:
	case <-time.After(time.Minute):
		t.Fatal("the writer did not wait for latecomers")
	}
}

// A group of half the last one's jobs or fewer waits for the jobs on
// their way, and commits with them in one transaction; closing the writer
// ends the wait. A writer whose last group held one job never waits, nor
// does one whose group is only a little smaller than the last.
func TestGroupWriterLingersForLatecomers(t *testing.T) {
	t.Run("latecomers join", func(t *testing.T) {
		st, _ := openTestState(t)
		w, lingered := lingerWriter(t, st, 3, nil)
		ran := make(chan *sql.Tx, 3)
		first := txOf(w, ran)
		waitLinger(t, lingered) // the writer holds the first job and waits for two more
		second, third := txOf(w, ran), txOf(w, ran)
		for _, errc := range []<-chan error{first, second, third} {
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
		}
		if a, b, c := <-ran, <-ran, <-ran; a != b || b != c {
			t.Fatal("the jobs that came while the writer waited committed in a transaction of their own")
		}
	})
	t.Run("close ends the wait", func(t *testing.T) {
		st, _ := openTestState(t)
		w, lingered := lingerWriter(t, st, 3, nil)
		ran := make(chan *sql.Tx, 1)
		first := txOf(w, ran)
		waitLinger(t, lingered)
		w.close()
		if err := <-first; err != nil {
			t.Fatalf("the job the writer held when it closed: %v", err)
		}
	})
	t.Run("a lone writer does not wait", func(t *testing.T) {
		st, _ := openTestState(t)
		over := make(chan time.Time)
		close(over) // a wait, if one began, would end at once
		w, lingered := lingerWriter(t, st, 1, over)
		ran := make(chan *sql.Tx, 2)
		for range 2 {
			if err := <-txOf(w, ran); err != nil {
				t.Fatal(err)
			}
		}
		if len(lingered) != 0 {
			t.Fatal("the writer waited for latecomers after a group of one job")
		}
	})
	t.Run("only a group of half the last or fewer waits", func(t *testing.T) {
		for _, c := range []struct {
			last, gathered int
			wait           bool
		}{{0, 1, false}, {1, 1, false}, {2, 1, true}, {3, 1, true}, {3, 2, false}, {13, 6, true}, {13, 7, false}, {13, 12, false}} {
			w := &groupWriter{last: c.last}
			if got := w.lingers(c.gathered); got != c.wait {
				t.Errorf("last group %d, gathered %d: waits %v, want %v", c.last, c.gathered, got, c.wait)
			}
		}
	})
}
