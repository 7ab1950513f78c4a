package outbox

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// Recording a notification. A change's notifications are written in the
// transaction of the change (store.TxObserver), so a process killed at any
// instant leaves the change with its notifications or neither. The URL
// rules are applied to each webhook's URL then too, unless judging it
// would look a host name up: no lookup runs while the state's write
// connection waits. Such a row is written parked (not claimed, listed as
// pending); after the commit its URL is judged and the row made pending,
// or failed as an attempt refused by the rules. A process that opens the
// state settles what a killed one left parked.

// deliveryParked is a row whose URL is judged after its commit.
const deliveryParked = "parked"

const (
	listHooksQuery      = `SELECT ` + HookColumns + ` FROM webhooks WHERE kind = ? AND merchant_code = ? AND is_test = ? ORDER BY seq`
	insertDeliveryQuery = `INSERT INTO deliveries (id, kind, webhook_id, merchant_code, is_test, url, event,
		subject_id, payload, attempts, status, http_status, error, created_at, updated_at, next_at, tries)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

func init() {
	store.PrepareOnOpen(listHooksQuery)
	store.PrepareOnOpen(insertDeliveryQuery)
}

// refusedURL is the error of an attempt the URL rules refused.
func refusedURL(err error) string { return "the URL no longer passes the rules: " + err.Error() }

// hooksOf names the webhooks of one kind of one merchant in one mode, for
// store.Memo.
type hooksOf struct {
	kind, merchant string
	isTest         bool
}

// recordInTx fans an event out to the matching webhooks, in tx: one
// pending row per webhook, due now; a failed one with its attempt when
// the rules refuse the URL (a state whose rules no longer admit loopback);
// a parked one when judging the URL needs a lookup. It answers what to do
// after the commit.
func (d *Deliverer) recordInTx(ctx context.Context, tx *sql.Tx, ev *hookEvent) (func(), error) {
	// The webhooks are read once for all the moves of a group: no move
	// registers one, so the list holds for the whole transaction.
	hooks, err := store.Memo(ctx, tx, hooksOf{ev.kind, ev.merchantCode, ev.isTest}, func() ([]*HookRow, error) {
		list, err := d.s.Stmt(ctx, tx, listHooksQuery)
		if err != nil {
			return nil, err
		}
		rows, err := list.QueryContext(ctx, ev.kind, ev.merchantCode, ev.isTest)
		if err != nil {
			return nil, err
		}
		return scanHooks(rows)
	})
	if err != nil {
		return nil, err
	}
	if len(hooks) == 0 {
		return nil, nil
	}
	if ev.payload == nil && ev.encode != nil {
		if ev.payload, err = ev.encode(); err != nil {
			return nil, err
		}
	}
	insert, err := d.s.Stmt(ctx, tx, insertDeliveryQuery)
	if err != nil {
		return nil, err
	}
	var failed, parked []*Delivery
	pending := false
	for _, h := range hooks {
		now := time.Now().UTC()
		del := &Delivery{ID: d.s.NewID(ctx), Kind: ev.kind, WebhookID: h.ID, MerchantCode: ev.merchantCode,
			IsTest: ev.isTest, URL: h.URL, Event: ev.event, SubjectID: ev.subjectID, Status: DeliveryPending,
			CreatedAt: now, UpdatedAt: now, Payload: ev.payload}
		if d.needsLookup(h.URL) {
			del.Status = deliveryParked
			parked = append(parked, del)
		} else if _, urlErr := d.CheckWebhookURL(ctx, h.URL, false); urlErr != nil {
			// An attempt that failed before it could connect.
			del.Status, del.Error, del.Attempts = DeliveryFailed, refusedURL(urlErr), 1
			failed = append(failed, del)
		} else {
			pending = true
		}
		if err := insertDelivery(ctx, insert, del, now.Add(d.chaos.lateBy())); err != nil {
			return nil, err
		}
		if del.Status == DeliveryFailed {
			if _, err := insertAttempt(ctx, tx, del.ID, now, 0, errors.New(del.Error), 0, false, h.URL, ""); err != nil {
				return nil, err
			}
		}
	}
	return func() {
		for _, del := range failed {
			d.report(del)
			d.logf("%s webhook %s: %s", del.Kind, del.WebhookID, del.Error)
		}
		if len(parked) > 0 {
			d.settleParked(d.ctx, parked)
		}
		if pending {
			d.wake()
		}
	}, nil
}

// needsLookup tells whether judging u by the rules may look a name up.
func (d *Deliverer) needsLookup(raw string) bool {
	if d.resolver == nil {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return false // refused on its syntax
	}
	return !(d.allowLocal && loopbackHost(u.Hostname()))
}

func insertDelivery(ctx context.Context, insert *sql.Stmt, del *Delivery, due time.Time) error {
	_, err := insert.ExecContext(ctx, del.ID, del.Kind, del.WebhookID, del.MerchantCode, del.IsTest, del.URL,
		del.Event, del.SubjectID, []byte(del.Payload), del.Attempts, del.Status, del.HTTPStatus, del.Error,
		del.CreatedAt.UnixNano(), del.UpdatedAt.UnixNano(), due.UnixNano(), del.Attempts)
	return err
}

// recordEvent records an event's notifications in a transaction of their
// own (a dispute's change).
func (d *Deliverer) recordEvent(ctx context.Context, ev *hookEvent) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err := func() error {
		tx, err := d.s.DB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		after, err := d.recordInTx(ctx, tx, ev)
		if err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		if after != nil {
			after()
		}
		return nil
	}()
	if err != nil {
		d.logf("recording the %s notification of %s: %v", ev.event, ev.subjectID, err)
	}
}

// settleParked judges the URL of each parked row (all the state's when
// rows is nil) and makes it pending, or failed with the rules' refusal.
// A row another process settled first is left to it.
func (d *Deliverer) settleParked(ctx context.Context, rows []*Delivery) {
	if rows == nil {
		var err error
		if rows, err = d.parkedRows(ctx); err != nil {
			d.logf("reading the outbox: %v", err)
			return
		}
	}
	woke := false
	for _, del := range rows {
		_, urlErr := d.CheckWebhookURL(ctx, del.URL, false)
		if urlErr == nil {
			_, err := d.s.DB.ExecContext(ctx, `UPDATE deliveries SET status = 'pending' WHERE id = ? AND status = 'parked'`, del.ID)
			if err != nil {
				d.logf("recording delivery %s: %v", del.ID, err)
			}
			woke = true
			continue
		}
		del.Status, del.Error, del.Attempts, del.UpdatedAt = DeliveryFailed, refusedURL(urlErr), 1, time.Now().UTC()
		if won, err := d.failParked(ctx, del); err != nil {
			d.logf("recording delivery %s: %v", del.ID, err)
		} else if won {
			d.report(del)
			d.logf("%s webhook %s: %s", del.Kind, del.WebhookID, del.Error)
		}
	}
	if woke {
		d.wake()
	}
}

// failParked marks a parked row failed by the rules, with its attempt, in
// one transaction; it answers false when the row was no longer parked.
func (d *Deliverer) failParked(ctx context.Context, del *Delivery) (bool, error) {
	tx, err := d.s.DB.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE deliveries SET status = ?, error = ?, attempts = 1, tries = 1, updated_at = ?
		WHERE id = ? AND status = 'parked'`, del.Status, del.Error, del.UpdatedAt.UnixNano(), del.ID)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	if _, err := insertAttempt(ctx, tx, del.ID, del.UpdatedAt, 0, errors.New(del.Error), 0, false, del.URL, ""); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

// parkedRows reads the rows left parked.
func (d *Deliverer) parkedRows(ctx context.Context) ([]*Delivery, error) {
	rows, err := d.s.DB.QueryContext(ctx, `SELECT id, kind, webhook_id, merchant_code, is_test, url, event, subject_id, payload, created_at
		FROM deliveries WHERE status = 'parked' ORDER BY seq`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Delivery{}
	for rows.Next() {
		del := &Delivery{}
		var payload []byte
		var created int64
		if err := rows.Scan(&del.ID, &del.Kind, &del.WebhookID, &del.MerchantCode, &del.IsTest, &del.URL, &del.Event,
			&del.SubjectID, &payload, &created); err != nil {
			return nil, err
		}
		del.Payload, del.CreatedAt = payload, time.Unix(0, created).UTC()
		out = append(out, del)
	}
	return out, rows.Err()
}
