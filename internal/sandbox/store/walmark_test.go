package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
)

// viewOf reads the payment's view as a GET does.
func viewOf(t *testing.T, st *State, id string) string {
	t.Helper()
	b, _, err := st.PaymentView(context.Background(), id, &Visibility{MerchantCode: "ae-sandbox", IsTest: true})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A state file's mark stays the same while nothing commits, and changes
// with every commit: this process's writer's, and another connection's
// (another process's) written straight to the file.
func TestTheMarkChangesWithEveryCommit(t *testing.T) {
	st, id := openTestState(t)
	w := st.reads.watch
	if w == nil {
		t.Fatal("a state file in WAL mode has no watch")
	}
	mark := func() walMark {
		t.Helper()
		m, ok := w.mark()
		if !ok {
			t.Fatal("no mark of a quiet state")
		}
		return m
	}
	m0 := mark()
	viewOf(t, st, id)
	if mark() != m0 {
		t.Fatal("a read changed the mark")
	}
	if err := st.Write(context.Background(), func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO meta (k, v) VALUES ('x', 1)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	m1 := mark()
	if m1 == m0 {
		t.Fatal("the writer's commit left the mark as it was")
	}
	other := openOther(t, st)
	if _, err := other.Exec(`UPDATE meta SET v = 2 WHERE k = 'x'`); err != nil {
		t.Fatal(err)
	}
	if mark() == m1 {
		t.Fatal("another connection's commit left the mark as it was")
	}
	if _, err := other.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	m2 := mark()
	if _, err := other.Exec(`UPDATE meta SET v = 3 WHERE k = 'x'`); err != nil {
		t.Fatal(err)
	}
	if mark() == m2 {
		t.Fatal("a commit after the WAL was truncated left the mark as it was")
	}
}

// openOther opens the state's file on a connection of its own, as another
// process would.
func openOther(t *testing.T, st *State) *sql.DB {
	t.Helper()
	var path string
	if err := st.DB.QueryRow(`SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&path); err != nil {
		t.Fatal(err)
	}
	db, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// What a read answered is answered again only while nothing commits: a
// view and a clock changed by another process are read at once, never
// from the cache.
func TestReadsNeverAnswerWhatAnotherProcessChanged(t *testing.T) {
	st, id := openTestState(t)
	other := openOther(t, st)
	before := viewOf(t, st, id)
	if viewOf(t, st, id) != before {
		t.Fatal("two reads of a quiet state differ")
	}
	for i := range 20 {
		view := fmt.Sprintf(`{"id":%q,"status":"AUTHORIZED","n":%d}`, id, i)
		if _, err := other.Exec(`UPDATE payments SET view = ? WHERE id = ?`, []byte(view), id); err != nil {
			t.Fatal(err)
		}
		if got := viewOf(t, st, id); got != view {
			t.Fatalf("after change %d: read %s, want %s", i, got, view)
		}
		offset := time.Duration(i+1) * time.Hour
		if _, err := other.Exec(`INSERT INTO meta (k, v) VALUES ('clock_offset', ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, int64(offset)); err != nil {
			t.Fatal(err)
		}
		got, err := st.ClockOffset(context.Background())
		if err != nil || got != offset {
			t.Fatalf("after clock change %d: offset %v (%v), want %v", i, got, err, offset)
		}
	}
	if _, err := other.Exec(`DELETE FROM payments WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.PaymentView(context.Background(), id, &Visibility{MerchantCode: "ae-sandbox", IsTest: true}); err != edge.ErrNoSuchPayment {
		t.Fatalf("a payment another process deleted: %v, want no such payment", err)
	}
}

// A mark caught while a commit writes it (the two copies differ) is no
// mark: the read goes to the state and keeps nothing.
func TestAMarkCaughtMidCommitIsNone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db-shm")
	header := make([]byte, 2*walHeaderSize)
	for i := range walHeaderSize {
		header[i], header[walHeaderSize+i] = byte(i), byte(i)
	}
	header[12], header[walHeaderSize+12] = 1, 1
	write := func() *walWatch {
		t.Helper()
		if err := os.WriteFile(path, header, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return &walWatch{f: f}
	}
	if _, ok := write().mark(); !ok {
		t.Fatal("two equal copies are no mark")
	}
	header[walHeaderSize+8]++ // the second copy written first: a commit under way
	if _, ok := write().mark(); ok {
		t.Fatal("two different copies are a mark")
	}
	header[8]++
	header[12], header[walHeaderSize+12] = 0, 0
	if _, ok := write().mark(); ok {
		t.Fatal("a header never written is a mark")
	}
	var none *walWatch
	if _, ok := none.mark(); ok {
		t.Fatal("no watch gives a mark")
	}
}

// A state in memory keeps no WAL index: it has no watch and reads every
// time.
func TestAStateInMemoryHasNoWatch(t *testing.T) {
	st, err := OpenState("", nil, 0, BuiltinMerchants(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.reads.watch != nil {
		t.Fatal("a state in memory has a watch")
	}
}

// The cache keeps what was read at one mark only, within its bounds.
func TestTheViewCacheKeepsOneMarkWithinItsBounds(t *testing.T) {
	var c viewCache
	var m1, m2 walMark
	m2[8] = 1
	big := make([]byte, maxCachedViewBytes/8)
	for i := range maxCachedViews + 100 {
		view := []byte("{}")
		if i%1000 == 0 {
			view = big
		}
		c.putRow(m1, viewKey{id: fmt.Sprint(i)}, viewRow{view: view, offset: int64(5)})
		if len(c.views) > maxCachedViews || c.bytes > maxCachedViewBytes {
			t.Fatalf("after %d puts: %d rows, %d bytes", i+1, len(c.views), c.bytes)
		}
	}
	if _, ok := c.row(m1, viewKey{id: fmt.Sprint(maxCachedViews + 99)}); !ok {
		t.Fatal("the last row put is not kept")
	}
	if v, ok := c.clockOffset(m1); !ok || v != int64(5) {
		t.Fatalf("the offset read with the rows: %v %v", v, ok)
	}
	if _, ok := c.row(m2, viewKey{id: fmt.Sprint(maxCachedViews + 99)}); ok {
		t.Fatal("a row kept at one mark answered at another")
	}
	c.putClockOffset(m2, nil)
	if len(c.views) != 0 || c.bytes != 0 {
		t.Fatalf("a new mark kept %d rows of the old one", len(c.views))
	}
	if v, ok := c.clockOffset(m2); !ok || v != nil {
		t.Fatalf("the offset put at the new mark: %v %v", v, ok)
	}
	c.putRow(m2, viewKey{id: "huge"}, viewRow{view: make([]byte, maxCachedViewBytes+1)})
	if _, ok := c.row(m2, viewKey{id: "huge"}); ok || c.bytes > maxCachedViewBytes {
		t.Fatal("a view over the cache's bound was kept")
	}
}

// markAt answers a mark whose change counter is n.
func markAt(n uint32) walMark {
	var m walMark
	binary.NativeEndian.PutUint32(m[8:12], n)
	return m
}

// The clock kept at the mark a writer's transaction began at is kept for
// the mark after its commit only when that commit was the one between
// them; the views never are.
func TestTheClockIsCarriedOverTheWritersOwnCommitOnly(t *testing.T) {
	var c viewCache
	c.putRow(markAt(5), viewKey{id: "p"}, viewRow{view: []byte("{}"), offset: int64(7)})
	c.carryClock(markAt(5), markAt(7)) // another commit came between
	if _, ok := c.clockOffset(markAt(7)); ok {
		t.Fatal("carried over two commits")
	}
	c.carryClock(markAt(4), markAt(5)) // a transaction that began at another mark
	if v, ok := c.clockOffset(markAt(5)); !ok || v != int64(7) {
		t.Fatalf("a carry from another mark changed the cache: %v %v", v, ok)
	}
	c.carryClock(markAt(5), markAt(6))
	if v, ok := c.clockOffset(markAt(6)); !ok || v != int64(7) {
		t.Fatalf("the clock was not carried over one commit: %v %v", v, ok)
	}
	if _, ok := c.row(markAt(6), viewKey{id: "p"}); ok {
		t.Fatal("a view was carried over a commit")
	}
	wrapped := markAt(^uint32(0))
	c.putClockOffset(wrapped, int64(9))
	c.carryClock(wrapped, markAt(0))
	if v, ok := c.clockOffset(markAt(0)); !ok || v != int64(9) {
		t.Fatalf("the counter's wrap: %v %v", v, ok)
	}
}

// End to end: the writer's commits keep the clock read, and a clock
// another process moved is read at once all the same.
func TestTheWritersCommitsKeepTheClock(t *testing.T) {
	st, _ := openTestState(t)
	ctx := context.Background()
	write := func() {
		t.Helper()
		if err := st.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO meta (k, v) VALUES ('n', 1) ON CONFLICT (k) DO UPDATE SET v = v + 1`)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.ClockOffset(ctx); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		write()
		m, ok := st.reads.watch.mark()
		if !ok {
			t.Fatal("no mark")
		}
		if _, kept := st.reads.cache.clockOffset(m); !kept {
			t.Fatal("the writer's commit dropped the clock read before it")
		}
	}
	other := openOther(t, st)
	if _, err := other.Exec(`INSERT INTO meta (k, v) VALUES ('clock_offset', ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, int64(time.Hour)); err != nil {
		t.Fatal(err)
	}
	write()
	if got, err := st.ClockOffset(ctx); err != nil || got != time.Hour {
		t.Fatalf("after another process moved the clock and the writer committed: %v (%v), want 1h", got, err)
	}
}
