package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/wire"
)

// Defaults of the service's timers (see docs/sandbox.md).
const (
	DefaultAuthExpiry = 7 * 24 * time.Hour
	// A CREATED payment nobody finishes expires after this.
	PaymentTimeout = 30 * time.Minute
	// A session's configuration.expires_at is this long after creation.
	SessionLifetime = 20 * time.Minute
)

// State is the state every room shares: the database, the clock, the
// merchants and their keys, and who hears of each change of a payment.
type State struct {
	DB              *sql.DB
	Clock           Clock
	AuthExpiry      time.Duration
	MerchantsByCode map[string]*Merchant // by code
	Keys            map[string]keyInfo   // by secret key
	ids             *IDSource            // every id the sandbox generates (ids.go)
	reads           *reads               // the hot reads, prepared (readpath.go)
	prepared        map[string]*sql.Stmt // the write path's statements (stmts.go)
	moveLoad        string               // the move's load statement, with what rooms asked (stmts.go)
	moveAsked       int                  // how many expressions rooms asked of it
	writer          *groupWriter         // runs every change of a payment (groupcommit.go)
	cache           recordCache          // copies of what moves wrote (reccache.go)

	observersMu sync.RWMutex
	observers   []func(context.Context, Change)
	txObservers []TxObserver
}

type keyInfo struct {
	Merchant *Merchant
	IsTest   bool
}

// OpenState opens (or creates) the state at path ("" keeps it in memory)
// for merchants, by clock (nil: the real one), with authorizations that
// last authExpiry (0: DefaultAuthExpiry); seed makes the ids it gives out
// repeatable (0: random).
func OpenState(path string, clock Clock, authExpiry time.Duration, merchants []Merchant, seed int64) (*State, error) {
	merchants = append([]Merchant(nil), merchants...)
	if err := validateMerchants(merchants); err != nil {
		return nil, err
	}
	st := &State{
		Clock:           clock,
		AuthExpiry:      authExpiry,
		MerchantsByCode: map[string]*Merchant{},
		Keys:            map[string]keyInfo{},
		ids:             NewIDSource(seed),
	}
	if st.Clock == nil {
		st.Clock = RealClock{}
	}
	if st.AuthExpiry <= 0 {
		st.AuthExpiry = DefaultAuthExpiry
	}
	for i := range merchants {
		m := &merchants[i]
		st.MerchantsByCode[m.Code] = m
		if m.TestKey != "" {
			st.Keys[m.TestKey] = keyInfo{Merchant: m, IsTest: true}
		}
		if m.LiveKey != "" {
			st.Keys[m.LiveKey] = keyInfo{Merchant: m, IsTest: false}
		}
	}
	pragmas := ""
	if path != "" {
		// The checkpointer copies the WAL back (checkpoint.go). The
		// writer's page cache holds 32 MiB rather than SQLite's 2: a move
		// reads its payment's pages, the request log the pages of the
		// index its bodies go in, and a page read again from the file is
		// a system call.
		pragmas = "&_pragma=wal_autocheckpoint(0)&_pragma=cache_size(-32768)"
	}
	db, err := openStore(path, pragmas)
	if err != nil {
		return nil, err
	}
	if st.reads, err = openReads(path, db); err != nil {
		db.Close()
		return nil, NewStateError(path, err)
	}
	st.DB = db
	if err := st.prepareWrites(context.Background()); err != nil {
		db.Close()
		return nil, NewStateError(path, err)
	}
	var ckpt *checkpointer
	if path != "" {
		if ckpt, err = startCheckpointer(path); err != nil {
			st.reads.close()
			db.Close()
			return nil, NewStateError(path, err)
		}
	}
	st.writer = startGroupWriter(db, ckpt, st.reads.watch, st.reads.cache.carryClock)
	return st, nil
}

// Merchants lists the sandbox's merchants in a stable order.
func (s *State) Merchants() []Merchant {
	out := make([]Merchant, 0, len(s.MerchantsByCode))
	for _, m := range s.MerchantsByCode {
		out = append(out, *m)
	}
	sortMerchants(out)
	return out
}

// Change describes one committed change of a payment, for observers such as
// webhook delivery. Timers are applied lazily, so "expired" is reported when
// a later write finds the payment timed out, not at the minute it happened.
type Change struct {
	Event        string // created, authorized, rejected, expired, captured, closed, refunded, updated, auth_expired
	Before       string // status before the change ("" for created)
	Payment      wire.Payment
	MerchantCode string
	Token        *string    // the session's token, as sent at checkout
	ClosedAt     *time.Time // when the payment became CLOSED
	IsExpired    bool       // EXPIRED, or AUTHORIZED with its authorization lapsed
}

// OnPaymentChange registers f to be called after every committed change of
// a payment, in the goroutine of the request that made it (keep f quick).
func (s *State) OnPaymentChange(f func(context.Context, Change)) {
	s.observersMu.Lock()
	defer s.observersMu.Unlock()
	s.observers = append(s.observers, f)
}

func (s *State) notify(ctx context.Context, c Change) {
	s.observersMu.RLock()
	obs := s.observers
	s.observersMu.RUnlock()
	for _, f := range obs {
		f(ctx, c)
	}
}

// errClosed is reported when the sandbox is used after Close.
var errClosed = errors.New("sandbox: closed")
