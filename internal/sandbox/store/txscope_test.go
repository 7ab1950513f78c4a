package store

import (
	"context"
	"database/sql"
	"testing"
)

// memoJob is a job that reads key through Memo, counting the reads in
// *reads, and answers what it got in *got.
func memoJob(key string, reads *int, got *[]int) *writeJob {
	return &writeJob{ctx: context.Background(), done: make(chan struct{}, 1),
		run: func(ctx context.Context, tx *sql.Tx) error {
			v, err := Memo(ctx, tx, key, func() (int, error) {
				*reads++
				return *reads, nil
			})
			*got = append(*got, v)
			return err
		}}
}

// The jobs of one transaction share what one of them read through Memo;
// the next transaction, and a group run again after its transaction broke,
// reads afresh.
func TestMemoHoldsForOneTransaction(t *testing.T) {
	st, _ := openTestState(t)
	reads := 0
	var got []int
	group := []*writeJob{memoJob("hooks", &reads, &got), memoJob("hooks", &reads, &got), memoJob("other", &reads, &got)}
	st.writer.commit(append([]*writeJob(nil), group...))
	answered(t, group...)
	if reads != 2 || len(got) != 3 || got[0] != 1 || got[1] != 1 || got[2] != 2 {
		t.Fatalf("one transaction: %d reads, answers %v; want 2 reads, [1 1 2]", reads, got)
	}

	got = nil
	group = []*writeJob{memoJob("hooks", &reads, &got)}
	st.writer.commit(group)
	if reads != 3 || len(got) != 1 || got[0] != 3 {
		t.Fatalf("the next transaction: %d reads, answers %v; want a read of its own", reads, got)
	}

	got = nil
	breaker := &writeJob{ctx: context.Background(), done: make(chan struct{}, 1),
		run: func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `ROLLBACK`)
			return err
		}}
	group = []*writeJob{memoJob("hooks", &reads, &got), breaker, memoJob("hooks", &reads, &got)}
	st.writer.commit(append([]*writeJob(nil), group...))
	answered(t, group...)
	// The first job ran twice (the broken transaction, then the new one),
	// each time in a transaction of its own reading; the third shares the
	// new one's read.
	if reads != 5 || len(got) != 3 || got[0] != 4 || got[1] != 5 || got[2] != 5 {
		t.Fatalf("after a broken transaction: %d reads, answers %v; want 5 reads, [4 5 5]", reads, got)
	}
}

// Outside the writer, Memo reads every time, and Stmt binds every time.
func TestMemoOutsideTheWriterReadsEachTime(t *testing.T) {
	st, _ := openTestState(t)
	ctx := context.Background()
	tx, err := st.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	reads := 0
	for range 2 {
		if _, err := Memo(ctx, tx, "hooks", func() (int, error) { reads++; return reads, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if reads != 2 {
		t.Fatalf("%d reads outside the writer, want 2", reads)
	}
	a, err := st.Stmt(ctx, tx, st.moveLoad)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := st.Stmt(ctx, tx, st.moveLoad)
	if a == b {
		t.Fatal("outside the writer, Stmt answered one binding twice")
	}
}

// In a job of the writer, a statement is bound to the transaction once.
func TestStmtBindsOncePerTransaction(t *testing.T) {
	st, _ := openTestState(t)
	var bound []*sql.Stmt
	job := func() *writeJob {
		return &writeJob{ctx: context.Background(), done: make(chan struct{}, 1),
			run: func(ctx context.Context, tx *sql.Tx) error {
				s, err := st.Stmt(ctx, tx, st.moveLoad)
				bound = append(bound, s)
				return err
			}}
	}
	group := []*writeJob{job(), job()}
	st.writer.commit(append([]*writeJob(nil), group...))
	answered(t, group...)
	if len(bound) != 2 || bound[0] != bound[1] || group[0].err != nil || group[1].err != nil {
		t.Fatalf("bindings %v, errors %v %v: want one binding for the transaction", bound, group[0].err, group[1].err)
	}
}
