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
