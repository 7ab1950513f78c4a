package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/wire"
	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
)

// migrations build the schema, in order; PRAGMA user_version records how
// many have run. Append new steps (disputes, webhooks, ...) at the end and
// never edit a step that has shipped: state files outlive binaries.
var migrations = []string{
	// Payments and their sessions: one row per checkout. doc holds the whole
	// record; view is the payment's JSON as GET answers it, kept ready so a
	// read need not decode and encode (only a CREATED payment can change by
	// the clock alone); the other columns serve lookups, listing and the lock.
	`CREATE TABLE payments (
		seq            INTEGER PRIMARY KEY AUTOINCREMENT,
		id             TEXT NOT NULL UNIQUE,
		session_id     TEXT NOT NULL UNIQUE,
		merchant_code  TEXT NOT NULL,
		is_test        INTEGER NOT NULL,
		status         TEXT NOT NULL,
		created_at     INTEGER NOT NULL,
		has_captures   INTEGER NOT NULL DEFAULT 0,
		has_refunds    INTEGER NOT NULL DEFAULT 0,
		fully_refunded INTEGER NOT NULL DEFAULT 0,
		lock_owner     TEXT NOT NULL DEFAULT '',
		lock_until     INTEGER NOT NULL DEFAULT 0,
		doc            BLOB NOT NULL,
		view           BLOB NOT NULL
	);
	CREATE INDEX payments_by_merchant ON payments (merchant_code, is_test, created_at DESC, seq DESC);
	CREATE TABLE meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL);`,
	// Disputes, their attachments, both webhook families and the log of
	// deliveries (the service and outbox rooms).
	migrationDisputesWebhooks,
	migrationPaymentListing,
	// Each attempt of a webhook delivery (outbox), then the request
	// log (reqlog).
	migrationDeliveryAttempts,
	migrationRequestLog,
	// The outbox and the state's settings (outbox).
	migrationOutbox,
	// A payment's record stored once, in two parts, with a revision.
	migrationPaymentParts,
	// The request log's bodies in the order they come (reqlog).
	migrationRequestLogTexts,
	// Its large bodies kept compressed (reqlog).
	migrationRequestLogPacked,
	// A payment's doc read as PaymentDoc, no longer a column.
	migrationPaymentDocRead,
}

// resetTables are emptied by Reset; later areas append their tables.
var resetTables = []string{"payments", "meta", "disputes", "dispute_attachments", "webhooks", "deliveries", "delivery_attempts", "request_log", "request_log_bodies", "request_log_texts"}

// OpenStore opens the state. A file is opened in WAL mode with a busy
// timeout so that several processes can share it; every write transaction
// is BEGIN IMMEDIATE, so a writer queues for the file lock at the start
// instead of failing half-way with SQLITE_BUSY. Its temporary files are in
// memory (temp_store): above all the savepoint journal of each job of a
// group (groupcommit.go), which holds a copy of every page the job
// changes and which SQLite otherwise spills to a file on disk past 64 KiB,
// a write and a read of the disk for each page. In memory, one connection
// holds the database (each new connection to ":memory:" would be a new,
// empty database).
func OpenStore(path string) (*sql.DB, error) { return openStore(path, "") }

// openStore is OpenStore with more of the DSN's pragmas for a state
// file (pragmas begins with "&").
func openStore(path, pragmas string) (*sql.DB, error) {
	var dsn string
	memory := path == ""
	if memory {
		dsn = "file::memory:?_txlock=immediate&_pragma=foreign_keys(1)&_pragma=secure_delete(1)"
	} else {
		if err := prepareStateFile(path); err != nil {
			return nil, NewStateError(path, err)
		}
		dsn = "file:" + (&url.URL{Path: path}).EscapedPath() +
			"?_txlock=immediate&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=temp_store(2)&_pragma=foreign_keys(1)&_pragma=secure_delete(1)" + pragmas
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sandbox state: %w", err)
	}
	if memory {
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		db.SetConnMaxLifetime(0)
		db.SetConnMaxIdleTime(0)
	} else {
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
	}
	if err := migrate(db); err != nil {
		db.Close()
		var refused *UpgradeRefused
		if errors.As(err, &refused) {
			return nil, &StateError{Path: path, Err: err, hint: "stop the sandbox at " + refused.By +
				" (or let it end), then run this again: the file is upgraded once, by the first newer bnpl that opens it; " +
				"or give this one a state of its own (--state)"}
		}
		return nil, NewStateError(path, err)
	}
	return db, nil
}

// layoutBreaks is the schema version at which a file stops being one an
// older bnpl still running on it can use: the step to 7 changes a table's
// columns (migrationPaymentParts), not only adds to them; from 9 on the
// request log's bodies may be compressed, which an older bnpl would show
// as they are stored (migrationRequestLogPacked); and 10 drops the column
// every older bnpl reads a payment's record from (migrationPaymentDocRead).
const layoutBreaks = 10

// upgradeGuards are checks run before a file older than layoutBreaks is
// migrated to it (GuardUpgrade).
var upgradeGuards []func(ctx context.Context, q Querier) error

// GuardUpgrade adds a check to run, in the migration's transaction,
// before a state file written by an older bnpl is changed into a layout
// that bnpl cannot use: a room that knows a process may still be using
// the file (the outbox's serving process) answers an *UpgradeRefused.
// Call it from an init function.
func GuardUpgrade(check func(ctx context.Context, q Querier) error) {
	upgradeGuards = append(upgradeGuards, check)
}

// UpgradeRefused is a state file an older bnpl still serves (at By), which
// this one leaves as it is rather than change its layout under it.
type UpgradeRefused struct{ By string }

func (e *UpgradeRefused) Error() string {
	return "served by an older bnpl sandbox at " + e.By + ", which could not use the file once this bnpl upgraded it"
}

func migrate(db *sql.DB) error {
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil) // IMMEDIATE: two processes do not migrate at once
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return err
	}
	if version > len(migrations) {
		return fmt.Errorf("state file was written by a newer bnpl (schema %d, this one knows %d)", version, len(migrations))
	}
	if version > 0 && version < layoutBreaks && len(migrations) >= layoutBreaks {
		for _, check := range upgradeGuards {
			if err := check(ctx, tx); err != nil {
				return err
			}
		}
	}
	for i := version; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, len(migrations))); err != nil {
		return err
	}
	return tx.Commit()
}

// Record is what the sandbox keeps per checkout: the payment as the service
// shows it plus the session and the timers behind it. Stored, it is one
// JSON object: the payment first, then the session's fields.
type Record struct {
	Payment wire.Payment `json:"payment"`
	Session

	// Tx is the transaction a move runs in, so that guards and moves that
	// keep state beside the payment (disputes) read and write in it: in
	// memory it holds the only connection. nil outside a move. Not
	// stored (docs written before carry "Tx":null, which decodes to nil).
	Tx *sql.Tx `json:"-"`

	// View is the payment's JSON as stored (json.Marshal of Payment) when
	// InsertRecord stored it, or the move that answered the record wrote
	// it or found it in the record cache, so that its answer need not
	// encode the payment again; nil otherwise. Not stored.
	View []byte `json:"-"`

	// Asked holds, during a move, the answers to what rooms ask of the
	// payment's row beside it (AskOnMove), read by the move's load in the
	// same statement; Asked[at] answers the expression AskOnMove numbered
	// at. nil outside a move. Not stored.
	Asked []int64 `json:"-"`
}

// Session is a record's checkout session and the timers behind its
// payment: all a record keeps beside the payment. A stored doc holds its
// fields after the payment's, in this order (encodeRecord writes them
// around the payment's view).
type Session struct {
	SessionID        string             `json:"session_id"`
	MerchantCode     string             `json:"merchant_code"`
	Region           string             `json:"region"`
	Lang             string             `json:"lang"`
	MerchantURLs     *wire.MerchantURLs `json:"merchant_urls,omitempty"`
	Token            *string            `json:"token"`
	SessionStatus    string             `json:"session_status"`
	RejectionReason  string             `json:"rejection_reason,omitempty"`
	SessionExpiresAt time.Time          `json:"session_expires_at"`
	AuthorizedAt     *time.Time         `json:"authorized_at,omitempty"`
	AuthExpiresAt    *time.Time         `json:"auth_expires_at,omitempty"`
	ClosedAt         *time.Time         `json:"closed_at,omitempty"`
}

// Settle applies the timers that run without anyone calling: a CREATED
// payment nobody finished expires. It reports whether it changed anything.
func (r *Record) Settle(now time.Time) bool {
	if r.Payment.Status == wire.StatusCreated && r.Payment.CreatedAt != nil &&
		!now.Before(r.Payment.CreatedAt.Add(PaymentTimeout)) {
		r.Payment.Status = wire.StatusExpired
		return true
	}
	return false
}

// AuthExpired tells whether an authorized payment's authorization lapsed.
func (r *Record) AuthExpired(now time.Time) bool {
	return r.Payment.Status == wire.StatusAuthorized && r.AuthExpiresAt != nil && !now.Before(*r.AuthExpiresAt)
}

func (r *Record) change(event, before string, now time.Time) *Change {
	return &Change{
		Event: event, Before: before, Payment: r.Payment, MerchantCode: r.MerchantCode,
		Token: r.Token, ClosedAt: r.ClosedAt,
		IsExpired: r.Payment.Status == wire.StatusExpired || r.AuthExpired(now),
	}
}

// Visibility limits lookups to what one key may see; nil sees everything
// (the customer moves of the sandbox itself).
type Visibility struct {
	MerchantCode string
	IsTest       bool
}

// DecodeRecord decodes a payment's stored record; column and value name its
// row for the error when the record cannot be read.
func DecodeRecord(doc []byte, column, value string) (*Record, error) {
	var d storedRecord
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, CorruptRow("payments", column, value, err)
	}
	r := &Record{Payment: wire.Payment(d.Payment), Session: d.Session}
	if r.Payment.Captures == nil {
		r.Payment.Captures = []wire.Capture{}
	}
	if r.Payment.Refunds == nil {
		r.Payment.Refunds = []wire.Refund{}
	}
	return r, nil
}

// loadPayment reads a payment visible to vis; errNoSuchPayment if none.
func (s *State) loadPayment(ctx context.Context, id string, vis *Visibility) (*Record, error) {
	return s.loadRecordBy(ctx, "id", id, vis, edge.ErrNoSuchPayment)
}

// loadRecordBy reads the record whose column (id or session_id, a
// constant) is value and that vis may see (any, when vis is nil);
// notFound when there is none.
func (s *State) loadRecordBy(ctx context.Context, column, value string, vis *Visibility, notFound error) (*Record, error) {
	var doc []byte
	var err error
	if vis == nil {
		err = s.DB.QueryRowContext(ctx, `SELECT `+PaymentDoc+` FROM payments WHERE `+column+` = ?`, value).Scan(&doc)
	} else {
		err = s.DB.QueryRowContext(ctx, `SELECT `+PaymentDoc+` FROM payments WHERE `+column+` = ? AND merchant_code = ? AND is_test = ?`,
			value, vis.MerchantCode, vis.IsTest).Scan(&doc)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	return DecodeRecord(doc, column, value)
}

// PaymentView answers the payment's JSON as a reader sees it now, straight
// from the stored view unless the clock has expired a CREATED payment. It
// reads the clock offset in the same query, prepared, on the read pool:
// this is the hot path. It answers the sandbox's time of that read too.
func (s *State) PaymentView(ctx context.Context, id string, vis *Visibility) ([]byte, time.Time, error) {
	got, err := s.viewRow(ctx, viewKey{id: id, merchant: vis.MerchantCode, isTest: vis.IsTest})
	if err != nil {
		return nil, time.Time{}, err
	}
	offset, err := ClockOffsetFrom(got.offset)
	if err != nil {
		return nil, time.Time{}, err
	}
	now := s.Clock.Now().Add(offset).UTC()
	b, err := SettledView(got.status, got.createdAt, got.view, now)
	if err != nil {
		return nil, time.Time{}, CorruptRow("payments", "id", id, err)
	}
	if at, ok := pinnedNow(ctx); ok {
		now = at // what CurrentTime answers in a fixture's step
	}
	return b, now, nil
}

// viewRow reads the row of viewQuery for k, or answers the one read at the
// state file's present mark.
func (s *State) viewRow(ctx context.Context, k viewKey) (viewRow, error) {
	r := s.reads
	mark, watched := r.watch.mark()
	if watched {
		if got, ok := r.cache.row(mark, k); ok {
			return got, nil
		}
	}
	var row [4]any // status, created_at, view, the clock offset
	err := r.do(ctx, func(ctx context.Context, rd *reader) error {
		return rd.row(ctx, viewStmt, row[:], k.id, k.merchant, k.isTest)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return viewRow{}, edge.ErrNoSuchPayment
	}
	if err != nil {
		return viewRow{}, err
	}
	status, okStatus := row[0].(string)
	createdAt, okCreated := row[1].(int64)
	view, okView := row[2].([]byte)
	if !okStatus || !okCreated || !okView {
		return viewRow{}, CorruptRow("payments", "id", k.id, fmt.Errorf("status %T, created_at %T, view %T", row[0], row[1], row[2]))
	}
	got := viewRow{status: status, createdAt: createdAt, view: view, offset: row[3]}
	if watched {
		r.cache.putRow(mark, k, got)
	}
	return got, nil
}

// SettledView applies record.settle to a stored view.
func SettledView(status string, createdAt int64, view []byte, now time.Time) ([]byte, error) {
	if status != wire.StatusCreated || now.Before(time.Unix(0, createdAt).Add(PaymentTimeout)) {
		return view, nil
	}
	var p wire.Payment
	if err := json.Unmarshal(view, &p); err != nil {
		return nil, fmt.Errorf("corrupt payment in state: %w", err)
	}
	p.Status = wire.StatusExpired
	return json.Marshal(&p)
}

// LoadSession reads the record of a session visible to vis.
func (s *State) LoadSession(ctx context.Context, sessionID string, vis *Visibility) (*Record, error) {
	return s.loadRecordBy(ctx, "session_id", sessionID, vis, edge.ErrNoSuchSession)
}

// ResolvePaymentID accepts a payment id or a session id.
func (s *State) ResolvePaymentID(ctx context.Context, id string) (string, error) {
	var paymentID string
	err := s.DB.QueryRowContext(ctx, `SELECT id FROM payments WHERE id = ? OR session_id = ?`, id, id).Scan(&paymentID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", edge.ErrNoSuchPayment
	}
	return paymentID, err
}

// InsertRecord stores a new checkout, in one transaction with what the
// transaction's observers write of it (a job of the group writer). Creation goes through here and
// nowhere else, so observers hear of every payment.
func (s *State) InsertRecord(ctx context.Context, r *Record, isTest bool) error {
	view, session, err := encodeRecord(r)
	if err != nil {
		return err
	}
	if s.DB == nil {
		return errClosed
	}
	change := r.change("created", "", *r.Payment.CreatedAt)
	var afters []func()
	err = s.writer.do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		insert, err := s.Stmt(ctx, tx, insertRecordQuery)
		if err != nil {
			return err
		}
		_, err = insert.ExecContext(ctx, r.Payment.ID, r.SessionID, r.MerchantCode, isTest, r.Payment.Status,
			r.Payment.CreatedAt.UnixNano(), view, session, newRev())
		if err != nil {
			return err
		}
		afters, err = s.observeInTx(ctx, tx, change)
		return err
	})
	if err != nil {
		return err
	}
	r.View = view
	s.committed(ctx, afters, change)
	return nil
}

// lockLease is how long a payment lock lasts if its holder dies without
// releasing it (a crashed process sharing the state file).
const lockLease = 15 * time.Second

// A moveFunc changes a payment. It answers the event name of the change, ""
// when nothing changed (an idempotent repeat), or an error (an *apiError
// for a refusal) and then must leave r as the stored state it found. It
// may append captures and refunds but never changes one it finds, and it
// never writes through a pointer, slice or map of r it finds (it sets a
// new one instead): the state encodes only the moves a move added, and
// the record cache's copy shares with the record what the move did not
// replace (the view's encoding and the cache keep the rest; race builds
// check both against a full encoding and a decode).
type MoveFunc func(r *Record, now time.Time) (event string, err error)

// Move runs one state change of a payment as a job of the group writer
// (groupcommit.go), in an IMMEDIATE transaction it may share with other
// changes, in a savepoint of its own: it reads the payment and the clock, refuses a payment whose lock another
// holds (a lease row, so it holds across processes; a busy payment answers
// 409 at once instead of waiting, as the service does), applies fn, writes
// the result and what the transaction's observers write of the change
// (TxObserver); once the transaction has committed it tells observers.
// Writers of one process queue for the state's writer goroutine, and
// processes sharing the file queue for its write lock, so two moves of one
// payment never interleave. Every change of an existing payment commits here.
func (s *State) Move(ctx context.Context, paymentID string, vis *Visibility, fn MoveFunc) (*Record, error) {
	if s.DB == nil {
		return nil, errClosed
	}
	var rec *Record
	var change *Change
	var afters []func()
	var moveErr error
	var wrote wroteRecord
	err := s.writer.do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		rec, change, afters, moveErr, err = s.apply(ctx, tx, paymentID, vis, fn, &wrote)
		return err
	})
	if err != nil {
		return nil, err
	}
	if wrote.size > 0 {
		// Committed: the next move of the payment may start from a copy of
		// what this one wrote. The copy is made here, in the request's
		// goroutine, rather than by the writer, which every move waits for.
		s.cache.put(paymentID, wrote, rec)
	}
	if change != nil {
		s.committed(ctx, afters, change)
	}
	return rec, moveErr
}

// Acquire takes a payment's lock for owner for a lease, across processes;
// a move of the payment answers ErrLocked until Release (or the lease's
// end).
func (s *State) Acquire(ctx context.Context, paymentID string, vis *Visibility, owner string) error {
	wallNow := time.Now()
	query := `UPDATE payments SET lock_owner = ?, lock_until = ? WHERE id = ? AND lock_until < ?`
	args := []any{owner, wallNow.Add(lockLease).UnixNano(), paymentID, wallNow.UnixNano()}
	if vis != nil {
		query += ` AND merchant_code = ? AND is_test = ?`
		args = append(args, vis.MerchantCode, vis.IsTest)
	}
	res, err := s.DB.ExecContext(ctx, query, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	// Nothing taken: either the payment is not there for this key, or
	// someone holds it.
	if _, err := s.loadPayment(ctx, paymentID, vis); err != nil {
		return err
	}
	return edge.ErrLocked
}

// Release drops a lock without changing the payment; it must work even when
// the request's context is gone, or the payment stays locked for a lease.
func (s *State) Release(paymentID, owner string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = s.DB.ExecContext(ctx, `UPDATE payments SET lock_owner = '', lock_until = 0 WHERE id = ? AND lock_owner = ?`, paymentID, owner)
}

// apply is Move's change, in tx (a job of the group writer, in a
// savepoint of its own). It answers the move's outcome (moveErr: a
// refusal, which still commits what the move kept beside the payment) or
// err, which rolls the move back. What the move left stored of the
// payment (written, or found as it was) is left in *wrote.
func (s *State) apply(ctx context.Context, tx *sql.Tx, paymentID string, vis *Visibility, fn MoveFunc, wrote *wroteRecord) (rec *Record, change *Change, afters []func(), moveErr, err error) {
	*wrote = wroteRecord{} // a run again after its transaction broke starts afresh
	loaded, was, now, err := s.loadForMove(ctx, ctx, tx, paymentID, vis)
	if err != nil {
		// Not found, locked, or not read: nothing written.
		return nil, nil, nil, nil, beforeWriting(err)
	}
	rec = loaded
	found := *loaded // what the move found, field by field (cacheCopyAfter)
	found.Tx, found.Asked = nil, nil
	loaded.Tx = tx
	defer func() { loaded.Tx, loaded.Asked = nil, nil }()
	before := rec.Payment.Status
	settled := rec.Settle(now)
	event, moveErr := fn(rec, now)
	if moveErr != nil && settled {
		event = "expired"
	}
	if event != "" || settled {
		if event == "" {
			event = "expired"
		}
		var is recordState
		if is, err = s.writeRecord(ctx, tx, paymentID, rec, was, &found); err != nil {
			return nil, nil, nil, nil, err // rolled back: the payment stays as it was
		}
		change = rec.change(event, before, now)
		if afters, err = s.observeInTx(ctx, tx, change); err != nil {
			return nil, nil, nil, nil, err
		}
		*wrote = wroteRecord{recordState: is, found: &found}
		return rec, change, afters, moveErr, nil
	}
	// Committed even when the payment is unchanged: a move may keep state
	// beside it in the transaction (a dispute opened, evidence added). The
	// record is as stored (a move that changes nothing, an idempotent
	// repeat or a refusal, leaves it as it found it): it goes back to the
	// cache, and its answer is the view stored, when the cache kept it.
	rec.View = was.view
	*wrote = wroteRecord{recordState: was, found: &found}
	return rec, change, afters, moveErr, nil
}

// loadForMove reads, in the move's transaction, the payment visible to vis
// and the sandbox's time; a payment whose lock another holds is ErrLocked.
// ctx is the request's (a fixture step pins its time there). It answers
// what is stored of the record too: its rev and size, and when the record
// came from the cache, its view and where that holds its moves.
func (s *State) loadForMove(txCtx, ctx context.Context, tx *sql.Tx, paymentID string, vis *Visibility) (*Record, recordState, time.Time, error) {
	var rev int64
	var merchant string
	var isTest bool
	var lockOwner string
	var lockUntil int64
	load, err := s.Stmt(txCtx, tx, s.moveLoad)
	if err != nil {
		return nil, recordState{}, time.Time{}, err
	}
	var storedOffset any
	var listed listing
	asked := make([]int64, s.moveAsked) // as many as the statement was prepared with
	into := []any{&rev, &merchant, &isTest, &lockOwner, &lockUntil, &storedOffset,
		&listed.status, &listed.captures, &listed.refunds, &listed.fullyRefunded}
	for i := range asked {
		into = append(into, &asked[i])
	}
	err = load.QueryRowContext(txCtx, paymentID).Scan(into...)
	if errors.Is(err, sql.ErrNoRows) || err == nil && vis != nil && (merchant != vis.MerchantCode || isTest != vis.IsTest) {
		return nil, recordState{}, time.Time{}, edge.ErrNoSuchPayment
	}
	if err != nil {
		return nil, recordState{}, time.Time{}, err
	}
	if lockOwner != "" && lockUntil >= time.Now().UnixNano() {
		return nil, recordState{}, time.Time{}, edge.ErrLocked
	}
	now, ok := pinnedNow(ctx)
	if !ok {
		offset, err := ClockOffsetFrom(storedOffset)
		if err != nil {
			return nil, recordState{}, time.Time{}, err
		}
		now = s.Clock.Now().Add(offset).UTC()
	}
	cached, stored := s.cache.take(paymentID, rev)
	stored.listed = listed
	if cached != nil && !verifyRecordCache {
		cached.Asked = asked
		return cached, stored, now, nil
	}
	var doc []byte
	read, err := s.Stmt(txCtx, tx, moveDocQuery)
	if err != nil {
		return nil, recordState{}, time.Time{}, err
	}
	if err := read.QueryRowContext(txCtx, paymentID).Scan(&doc); err != nil {
		return nil, recordState{}, time.Time{}, err
	}
	if cached != nil {
		mustDecodeAlike(cached, doc, paymentID)
		cached.Asked = asked
		return cached, stored, now, nil
	}
	rec, err := DecodeRecord(doc, "id", paymentID)
	if err == nil {
		rec.Asked = asked
	}
	return rec, recordState{rev: rev, size: len(doc), listed: listed}, now, err
}

// recordState is what the state holds of a record: its rev, the length
// of its doc, its listing columns (as read by the move that loaded it, or
// written by the one that stored it), and when known, its view and where
// that holds its moves.
type recordState struct {
	rev    int64
	size   int
	listed listing
	view   []byte
	moves  *movesEncoding
}

// listing is what the payments table keeps of a payment's record in
// columns of its own for payments_listing to index, beside its merchant,
// mode and creation, which never change.
type listing struct {
	status                           string
	captures, refunds, fullyRefunded bool
}

// listingOf answers the listing columns of p.
func listingOf(p *wire.Payment) listing {
	refunded, captured := p.Refunded(), p.Captured()
	return listing{
		status:        p.Status,
		captures:      len(p.Captures) > 0,
		refunds:       len(p.Refunds) > 0,
		fullyRefunded: captured.IsPositive() && refunded.GreaterThanOrEqual(captured),
	}
}

// wroteRecord is what a move left stored of its payment, and a shallow
// copy of the record the move found (as decoding, or the cache's copy,
// made it).
type wroteRecord struct {
	recordState
	found *Record
}

// newRev answers a rev for a payment's next write: random, so that a
// revision never comes back, whichever process writes (two writes of one
// payment get the same one once in 2^63).
func newRev() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1)
}

// writeRecord stores a moved record, in tx, and sets its View; was is
// what the move found stored (its listing columns, and where its view
// held its moves, if known), and found the record as loaded (a shallow
// copy made before the move).
func (s *State) writeRecord(ctx context.Context, tx *sql.Tx, paymentID string, rec *Record, was recordState, found *Record) (recordState, error) {
	view, session, moves, err := encodeRecordAfter(rec, was.moves, found)
	if err != nil {
		return recordState{}, err
	}
	size := docLen(view, session)
	if err := checkRecordBounds(rec, size); err != nil {
		return recordState{}, err
	}
	rev := newRev()
	listed := listingOf(&rec.Payment)
	if listed == was.listed {
		err = s.exec(ctx, tx, moveSavePartsQuery, view, session, rev, paymentID)
	} else {
		err = s.exec(ctx, tx, moveSaveQuery, listed.status, listed.captures, listed.refunds, listed.fullyRefunded,
			view, session, rev, paymentID)
	}
	if err != nil {
		return recordState{}, err
	}
	rec.View = view
	return recordState{rev: rev, size: size, listed: listed, view: view, moves: moves}, nil
}

// exec runs a prepared write-path statement in tx.
func (s *State) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) error {
	st, err := s.Stmt(ctx, tx, query)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, args...)
	return err
}

func NewLockOwner() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Reset forgets every payment (and whatever later areas registered in
// resetTables), and the clock offset.
func (s *State) Reset(ctx context.Context) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range resetTables {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.Scrub(ctx)
	return nil
}
