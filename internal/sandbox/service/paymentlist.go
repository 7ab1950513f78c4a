package service

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// statusCond is the status filter of the payments list as a condition on
// the indexed columns. A reader sees a CREATED payment older than the
// payment timeout as EXPIRED (record.settle) before anyone stores that, so
// the filters that tell CREATED from EXPIRED take the cutoff (now minus the
// timeout) as their one argument, and their set changes with the clock.
type statusCond struct {
	sql     string
	clocked bool
}

// statusConds holds the service's three API statuses, the dashboard's four,
// and the default set ("") of a list without a status.
var statusConds = map[string]statusCond{
	"":           {sql: `status IN ('AUTHORIZED', 'CLOSED')`},
	"authorized": {sql: `status = 'AUTHORIZED'`},
	"closed":     {sql: `status = 'CLOSED'`},
	"rejected":   {sql: `status = 'REJECTED'`},
	"new":        {sql: `(status = 'CREATED' AND created_at > ?)`, clocked: true},
	"captured":   {sql: `(has_captures = 1 AND fully_refunded = 0)`},
	"refunded":   {sql: `has_refunds = 1`},
	"cancelled": {sql: `(status = 'EXPIRED' OR (status = 'CREATED' AND created_at <= ?)
		OR (status = 'CLOSED' AND has_captures = 0))`, clocked: true},
}

// listQuery is one list as a caller asked for it, without its page.
type listQuery struct {
	merchant string
	isTest   bool
	status   string // a key of statusConds
	gte, lte *int64 // created_at bounds in Unix nanoseconds, nil: none
}

func (q listQuery) key() listKey {
	k := listKey{merchant: q.merchant, isTest: q.isTest, status: q.status}
	if q.gte != nil {
		k.hasGTE, k.gte = true, *q.gte
	}
	if q.lte != nil {
		k.hasLTE, k.lte = true, *q.lte
	}
	return k
}

// where is the query's condition and its arguments at the given cutoff.
func (q listQuery) where(cutoff int64) (string, []any) {
	cond := statusConds[q.status]
	conds := []string{"merchant_code = ?", "is_test = ?", cond.sql}
	args := []any{q.merchant, q.isTest}
	if cond.clocked {
		args = append(args, cutoff)
	}
	if q.gte != nil {
		conds = append(conds, "created_at >= ?")
		args = append(args, *q.gte)
	}
	if q.lte != nil {
		conds = append(conds, "created_at <= ?")
		args = append(args, *q.lte)
	}
	return strings.Join(conds, " AND "), args
}

// listPayments answers one page of a list, newest first, and the number of
// payments in the whole list. Everything it reads comes from one snapshot
// of the state (a read transaction), so the generation it checks is the
// one the page is computed from.
func (s *Service) listPayments(ctx context.Context, q listQuery, limit, offset int) ([]json.RawMessage, int, error) {
	tx, err := s.DB.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // a deferred BEGIN: readers never queue for the write lock
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback()
	var gen int64
	var storedOffset any
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT v FROM list_gen),
		COALESCE((SELECT v FROM meta WHERE k = 'clock_offset'), 0)`).Scan(&gen, &storedOffset); err != nil {
		return nil, 0, err
	}
	clockOffset, err := store.ClockOffsetFrom(storedOffset)
	if err != nil {
		return nil, 0, err
	}
	now := s.Clock.Now().Add(clockOffset).UTC()
	cutoff := now.Add(-store.PaymentTimeout).UnixNano()
	where, args := q.where(cutoff)
	key := q.key()

	known, err := s.lists.lookup(ctx, tx, key, gen, cutoff, offset)
	if err != nil {
		return nil, 0, err
	}
	total := known.total
	if !known.ok {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM payments INDEXED BY payments_listing WHERE `+where,
			args...).Scan(&total); err != nil {
			return nil, 0, err
		}
		s.lists.start(key, gen, cutoff, total)
	}
	if offset >= total {
		return []json.RawMessage{}, total, nil
	}

	// The ids of the page, from the index alone: an index seek to the
	// nearest position already known, then at most the rows between it and
	// the offset.
	pageWhere, pageArgs := where, args
	skip := offset
	if known.hasAnchor {
		pageWhere += " AND (created_at, seq) < (?, ?)"
		pageArgs = append(append([]any(nil), args...), known.anchor.createdAt, known.anchor.seq)
		skip = offset - known.anchorOffset
	}
	rows, err := tx.QueryContext(ctx, `SELECT seq, created_at FROM payments INDEXED BY payments_listing WHERE `+pageWhere+
		` ORDER BY created_at DESC, seq DESC LIMIT ? OFFSET ?`, append(pageArgs, limit, skip)...)
	if err != nil {
		return nil, 0, err
	}
	seqs := make([]int64, 0, limit)
	var last listAnchor
	for rows.Next() {
		if err := rows.Scan(&last.seq, &last.createdAt); err != nil {
			rows.Close()
			return nil, 0, err
		}
		seqs = append(seqs, last.seq)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if len(seqs) == 0 {
		return []json.RawMessage{}, total, nil
	}
	s.lists.remember(key, gen, offset+len(seqs), last)

	views, err := pageViews(ctx, tx, seqs, now)
	if err != nil {
		return nil, 0, err
	}
	return views, total, nil
}

// pageViews reads the views of one page's payments, in the page's order.
// The stored views are spliced in as they are, to spare a decode and an
// encode per payment.
func pageViews(ctx context.Context, tx *sql.Tx, seqs []int64, now time.Time) ([]json.RawMessage, error) {
	marks := strings.Repeat("?, ", len(seqs))
	args := make([]any, len(seqs))
	at := make(map[int64]int, len(seqs))
	for i, seq := range seqs {
		args[i] = seq
		at[seq] = i
	}
	rows, err := tx.QueryContext(ctx, `SELECT seq, status, created_at, view FROM payments WHERE seq IN (`+
		marks[:len(marks)-2]+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	views := make([]json.RawMessage, len(seqs))
	for rows.Next() {
		var seq, createdAt int64
		var status string
		var stored []byte
		if err := rows.Scan(&seq, &status, &createdAt, &stored); err != nil {
			return nil, err
		}
		v, err := store.SettledView(status, createdAt, stored, now)
		if err != nil {
			return nil, err
		}
		views[at[seq]] = v
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, v := range views {
		if v == nil {
			return nil, fmt.Errorf("payments list: a payment of the page vanished from the snapshot")
		}
	}
	return views, nil
}

// listKey names one list: who asks and with which filters.
type listKey struct {
	merchant       string
	isTest         bool
	status         string
	hasGTE, hasLTE bool
	gte, lte       int64
}

// listAnchor is the position of one payment in the list's order.
type listAnchor struct{ createdAt, seq int64 }

// listState is what is known of one list at one generation: its count, and
// the position of the last payment before each offset served so far.
type listState struct {
	gen     int64
	cutoff  int64
	total   int
	anchors map[int]listAnchor // offset -> the payment just before it
}

// Bounds of the cache, so that it stays small whatever the callers do.
const (
	maxListStates  = 64
	maxListAnchors = 256
)

// listCache remembers, per list, what listState says, in this process. It
// is only a shortcut: an entry is used only while the state's list_gen is
// the one it was made at (and, for the clocked filters, while no CREATED
// payment crossed the expiry cutoff since), so whatever it answers is what
// a full count and skip would answer.
type listCache struct {
	mu     sync.Mutex
	states map[listKey]*listState
}

func newListCache() *listCache { return &listCache{states: map[listKey]*listState{}} }

// known is what the cache tells of a list at a page's offset.
type known struct {
	ok           bool // total is true for this snapshot
	total        int
	hasAnchor    bool
	anchorOffset int
	anchor       listAnchor
}

// lookup answers what is known of the list at offset, checking with the
// snapshot that the clock did not expire a CREATED payment in or out of a
// clocked list since the entry was made.
func (c *listCache) lookup(ctx context.Context, tx *sql.Tx, key listKey, gen, cutoff int64, offset int) (known, error) {
	c.mu.Lock()
	st := c.states[key]
	if st == nil || st.gen != gen {
		c.mu.Unlock()
		return known{}, nil
	}
	k := known{ok: true, total: st.total}
	for off, a := range st.anchors {
		if off <= offset && (!k.hasAnchor || off > k.anchorOffset) {
			k.hasAnchor, k.anchorOffset, k.anchor = true, off, a
		}
	}
	entryCutoff := st.cutoff
	c.mu.Unlock()

	if !statusConds[key.status].clocked || entryCutoff == cutoff {
		return k, nil
	}
	lo, hi := min(entryCutoff, cutoff), max(entryCutoff, cutoff)
	var crossed bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM payments INDEXED BY payments_listing
		WHERE merchant_code = ? AND is_test = ? AND created_at > ? AND created_at <= ? AND status = 'CREATED')`,
		key.merchant, key.isTest, lo, hi).Scan(&crossed); err != nil {
		return known{}, err
	}
	if crossed {
		return known{}, nil
	}
	c.mu.Lock()
	if c.states[key] == st {
		st.cutoff = cutoff
	}
	c.mu.Unlock()
	return k, nil
}

// start records a list's count at a generation, forgetting its positions.
func (c *listCache) start(key listKey, gen, cutoff int64, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.states) >= maxListStates {
		if _, ok := c.states[key]; !ok {
			for k := range c.states { // any one: the cache is a shortcut
				delete(c.states, k)
				break
			}
		}
	}
	c.states[key] = &listState{gen: gen, cutoff: cutoff, total: total, anchors: map[int]listAnchor{}}
}

// remember records that the payment at a is the last one before offset.
func (c *listCache) remember(key listKey, gen int64, offset int, a listAnchor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.states[key]
	if st == nil || st.gen != gen {
		return
	}
	if len(st.anchors) >= maxListAnchors {
		// Drop the position nearest the start: walks go forward.
		lowest := -1
		for off := range st.anchors {
			if lowest < 0 || off < lowest {
				lowest = off
			}
		}
		delete(st.anchors, lowest)
	}
	st.anchors[offset] = a
}
