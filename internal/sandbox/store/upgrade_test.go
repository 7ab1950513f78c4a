package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// olderStateFile makes a state file as a bnpl that knew only the first
// version migrations wrote it, with one payment row of its layout.
func olderStateFile(t *testing.T, version int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	if err := prepareStateFile(path); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, m := range migrations[:version] {
		if _, err := db.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	doc := `{"payment":{"id":"p-old","amount":"10","currency":"AED","status":"AUTHORIZED","is_test":true,"captures":[],"refunds":[]},` +
		`"session_id":"s-old","merchant_code":"ae-sandbox","region":"ae","lang":"en","token":null,"session_status":"approved","session_expires_at":"2026-01-01T00:00:00Z"}`
	view := `{"id":"p-old","amount":"10","currency":"AED","status":"AUTHORIZED","is_test":true,"captures":[],"refunds":[]}`
	whole := "doc" // before the payment parts (7), the whole record's column
	if version >= 7 {
		whole = "doc_whole"
	}
	if _, err := db.Exec(`INSERT INTO payments (id, session_id, merchant_code, is_test, status, created_at, `+whole+`, view)
		VALUES ('p-old', 's-old', 'ae-sandbox', 1, 'AUTHORIZED', 1, ?, ?)`, doc, view); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, version)); err != nil {
		t.Fatal(err)
	}
	return path
}

// A file of the layout before layoutBreaks is upgraded only when no guard
// refuses: refused, it is left as it was (an older bnpl serving it goes
// on working) and the error says what to do; allowed, its rows read as
// before, doc included.
func TestUpgradeWaitsForTheGuards(t *testing.T) {
	// Before the payment parts (6), before the packed log texts (8), and
	// with the doc column still there (9).
	for _, version := range []int{6, 8, layoutBreaks - 1} {
		t.Run(fmt.Sprint(version), func(t *testing.T) { upgradeWaitsForTheGuards(t, version) })
	}
}

func upgradeWaitsForTheGuards(t *testing.T, version int) {
	saved := upgradeGuards
	t.Cleanup(func() { upgradeGuards = saved })
	served := true
	upgradeGuards = []func(context.Context, Querier) error{func(context.Context, Querier) error {
		if served {
			return &UpgradeRefused{By: "http://127.0.0.1:4010"}
		}
		return nil
	}}
	path := olderStateFile(t, version)

	_, err := OpenState(path, nil, 0, BuiltinMerchants(), 1)
	var se *StateError
	if !errors.As(err, &se) || se.ExitCode() != 12 || !strings.Contains(se.Error(), "served by an older bnpl sandbox at http://127.0.0.1:4010") ||
		!strings.Contains(se.Hint(), "stop the sandbox at http://127.0.0.1:4010") {
		t.Fatalf("refused upgrade: %v (hint %q)", err, hintOf(se))
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var doc string
	var at int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&at); err != nil || at != version {
		t.Fatalf("the refused file is at version %d (%v), want %d", at, err, version)
	}
	if err := db.QueryRow(`SELECT doc FROM payments WHERE id = 'p-old'`).Scan(&doc); err != nil {
		t.Fatalf("the older layout no longer reads: %v", err)
	}

	served = false
	st, err := OpenState(path, nil, 0, BuiltinMerchants(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec, err := st.loadPayment(context.Background(), "p-old", nil)
	if err != nil || rec.SessionID != "s-old" || rec.Payment.Amount.String() != "10" {
		t.Fatalf("the upgraded row reads as %+v, %v", rec, err)
	}
	if err := st.DB.QueryRow(`SELECT ` + PaymentDoc + ` FROM payments WHERE id = 'p-old'`).Scan(&doc); err != nil || !strings.HasPrefix(doc, `{"payment":`) {
		t.Fatalf("doc of a row written before: %q, %v", doc, err)
	}
}

// A file already past the change is opened whatever the guards say, and
// a new file has nothing to guard.
func TestUpgradeGuardsOnlyTheChange(t *testing.T) {
	saved := upgradeGuards
	t.Cleanup(func() { upgradeGuards = saved })
	upgradeGuards = []func(context.Context, Querier) error{func(context.Context, Querier) error {
		return &UpgradeRefused{By: "http://127.0.0.1:4010"}
	}}
	path := filepath.Join(t.TempDir(), "state.db")
	for range 2 { // new, then at the current version
		st, err := OpenState(path, nil, 0, BuiltinMerchants(), 1)
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
}

func hintOf(se *StateError) string {
	if se == nil {
		return ""
	}
	return se.Hint()
}
