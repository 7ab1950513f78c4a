package sandbox

import (
	"context"
	"fmt"
	"os"

	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// StateInfo is what InspectState found in a state file.
type StateInfo struct {
	Rules    outbox.DeliveryRules
	Served   bool   // a live `bnpl sandbox serve` holds the state
	ServedBy string // its URL
	Pending  int    // deliveries waiting in the outbox
}

// InspectState opens a state file as a command would (creating nothing
// but the schema), checks that SQLite can read all of it, and answers its
// delivery settings; any problem is a *StateError.
func InspectState(ctx context.Context, path string) (*StateInfo, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, store.NewStateError(path, err)
	}
	db, err := store.OpenStore(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var check string
	if err := db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&check); err != nil {
		return nil, store.NewStateError(path, err)
	}
	if check != "ok" {
		return nil, store.NewStateError(path, fmt.Errorf("the file is damaged: %s", check))
	}
	info := &StateInfo{}
	rules, ok, err := outbox.ReadRules(ctx, db)
	if err != nil {
		return nil, store.NewStateError(path, err)
	}
	if !ok {
		rules = rulesFromOptions(Options{})
	}
	info.Rules = rules
	info.ServedBy, info.Served = outbox.ServedBy(ctx, db, "")
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM deliveries WHERE status = 'pending'`).Scan(&info.Pending); err != nil {
		return nil, store.NewStateError(path, err)
	}
	return info, nil
}
