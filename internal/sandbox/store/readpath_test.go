package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// openTestState opens a state file with one authorized payment of the UAE
// test merchant, and answers the state and the payment's id.
func openTestState(t *testing.T) (*State, string) {
	t.Helper()
	st, err := OpenState(filepath.Join(t.TempDir(), "state.db"), nil, 0, BuiltinMerchants(), 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	created := time.Now().UTC()
	rec := &Record{Session: Session{SessionID: "session-1", MerchantCode: "ae-sandbox", Region: "ae"},
		Payment: wire.Payment{ID: "payment-1", Status: wire.StatusAuthorized, Currency: "AED", CreatedAt: &created}}
	if err := st.InsertRecord(context.Background(), rec, true); err != nil {
		t.Fatal(err)
	}
	return st, rec.Payment.ID
}

// A read of a payment neither queues behind the writers for a connection
// nor waits for a write transaction: the writing pool is held whole, one
// of its connections in an open write transaction, and the read still
// answers the committed payment.
func TestReadsNeverWaitForAWriter(t *testing.T) {
	st, id := openTestState(t)
	ctx := context.Background()
	var held []*sql.Conn
	for range 1 { // OpenStore's write pool: one connection
		c, err := st.DB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	tx, err := held[0].BeginTx(ctx, nil) // IMMEDIATE: holds the file's write lock
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE payments SET status = 'CLOSED' WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	defer func() {
		tx.Rollback()
		for _, c := range held {
			c.Close()
		}
	}()

	readCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	body, now, err := st.PaymentView(readCtx, id, &Visibility{MerchantCode: "ae-sandbox", IsTest: true})
	if err != nil {
		t.Fatalf("read while the writers are busy: %v", err)
	}
	var p wire.Payment
	if err := json.Unmarshal(body, &p); err != nil || p.ID != id || p.Status != wire.StatusAuthorized {
		t.Errorf("read answered %s (%v); want the committed AUTHORIZED payment", body, err)
	}
	if now.IsZero() || now.Location() != time.UTC {
		t.Errorf("read answered the time %v; want the sandbox's clock in UTC", now)
	}
	if _, err := st.ClockOffset(readCtx); err != nil {
		t.Errorf("clock read while the writers are busy: %v", err)
	}
}

// The read pool cannot write, whatever asks it to.
func TestReadPoolIsQueryOnly(t *testing.T) {
	st, _ := openTestState(t)
	err := st.reads.do(context.Background(), func(ctx context.Context, rd *reader) error {
		_, err := rd.conn.ExecContext(ctx, `DELETE FROM payments`)
		return err
	})
	if err == nil {
		t.Fatal("the read pool deleted payments")
	}
}

// A payment another merchant or mode owns reads as not found.
func TestPaymentViewVisibility(t *testing.T) {
	st, id := openTestState(t)
	for _, vis := range []Visibility{{MerchantCode: "ae-sandbox", IsTest: false}, {MerchantCode: "kw-sandbox", IsTest: true}} {
		if _, _, err := st.PaymentView(context.Background(), id, &vis); !errors.Is(err, edge.ErrNoSuchPayment) {
			t.Errorf("%+v read the payment: %v", vis, err)
		}
	}
}

// A state file bnpl makes has statePageSize pages and is in WAL mode; one
// an older bnpl made (4 KiB pages) opens as it is, its pages kept.
func TestNewStateFilePageSize(t *testing.T) {
	dir := t.TempDir()
	pageSize := func(db *sql.DB) (size int, mode string) {
		t.Helper()
		if err := db.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		return size, mode
	}
	db, err := OpenStore(filepath.Join(dir, "new.db"))
	if err != nil {
		t.Fatal(err)
	}
	if size, mode := pageSize(db); size != statePageSize || mode != "wal" {
		t.Errorf("a new state file: %d-byte pages in %s mode, want %d in wal", size, mode, statePageSize)
	}
	var temp int
	if err := db.QueryRow(`PRAGMA temp_store`).Scan(&temp); err != nil || temp != 2 {
		t.Errorf("the writer's temporary files (the savepoint journals): temp_store %d (%v), want 2 (memory)", temp, err)
	}
	db.Close()
	old := filepath.Join(dir, "old.db")
	pre, err := sql.Open("sqlite", "file:"+old+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pre.Exec(`CREATE TABLE t (x)`); err != nil {
		t.Fatal(err)
	}
	pre.Close()
	if db, err = OpenStore(old); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if size, mode := pageSize(db); size != 4096 || mode != "wal" {
		t.Errorf("an older state file: %d-byte pages in %s mode, want 4096 in wal", size, mode)
	}
}
