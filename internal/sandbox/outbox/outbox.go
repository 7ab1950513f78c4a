package outbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

const (
	// outboxPoll is the longest a deliverer sleeps between looks at the
	// outbox: rows another process recorded are sent within it.
	outboxPoll = 200 * time.Millisecond
	// ClaimLease is how long a claimed row stays its claimer's unless
	// renewed: the claimer renews its claims every claimRenew while its
	// attempts run (an attempt may take deliveryTimeout), so the claims of
	// a process killed mid-attempt lapse within ClaimLease and another
	// process sends them.
	ClaimLease = 10 * time.Second
	claimRenew = 2 * time.Second
	// closeDrain bounds what Close spends delivering what is due, when no
	// server holds the state.
	closeDrain = 2 * time.Second
)

// outboxRow is one claimed delivery: what an attempt needs.
type outboxRow struct {
	Delivery
	tries int
	held  bool
}

// wake tells the poll loop to look at the outbox now.
func (d *Deliverer) wake() {
	select {
	case d.wakeCh <- struct{}{}:
	default:
	}
}

// run is the poll loop: claim what is due while attempts are free, then
// sleep until the next row is due, a wake, or outboxPoll.
func (d *Deliverer) run() {
	defer d.wg.Done()
	for {
		wait := d.nextWait()
		if free := deliveryWorkers - int(d.inflight.Load()); free > 0 && wait <= time.Millisecond && d.mayClaim() {
			rows, err := d.claim(free)
			if err != nil && d.ctx.Err() == nil {
				d.logf("reading the outbox: %v", err)
			}
			for _, row := range rows {
				d.inflight.Add(1)
				d.wg.Add(1)
				go d.attemptRow(row)
			}
		}
		if wait <= time.Millisecond {
			wait = d.nextWait()
		}
		t := time.NewTimer(wait)
		select {
		case <-d.ctx.Done():
			t.Stop()
			return
		case <-d.wakeCh:
		case <-t.C:
		}
		t.Stop()
	}
}

// mayClaim tells whether this process should claim rows now: a server
// always does; any other process only while no server holds the state,
// so that what a short-lived command recorded is left to the server.
func (d *Deliverer) mayClaim() bool {
	if d.rules.serving {
		return true
	}
	_, served := ServedBy(d.ctx, d.s.DB, d.owner)
	return !served
}

// nextWait is how long the loop may sleep: until the next row is due,
// at most outboxPoll.
func (d *Deliverer) nextWait() time.Duration {
	var next sql.NullInt64
	err := d.s.DB.QueryRowContext(d.ctx, `SELECT MIN(MAX(next_at, lease_until)) FROM deliveries WHERE status = 'pending'`).Scan(&next)
	if err != nil || !next.Valid {
		return outboxPoll
	}
	wait := time.Until(time.Unix(0, next.Int64))
	return min(max(wait, time.Millisecond), outboxPoll) // 1ms: due now
}

// claim takes up to n rows that are due and not leased to a live attempt.
func (d *Deliverer) claim(n int) ([]*outboxRow, error) {
	now := time.Now()
	rows, err := d.s.DB.QueryContext(d.ctx, `UPDATE deliveries SET lease_owner = ?, lease_until = ?
		WHERE seq IN (SELECT seq FROM deliveries WHERE status = 'pending' AND next_at <= ? AND lease_until < ?
			ORDER BY next_at, seq LIMIT ?)
		RETURNING id, kind, webhook_id, merchant_code, is_test, url, event, subject_id, payload, attempts, tries, held, created_at`,
		d.owner, now.Add(ClaimLease).UnixNano(), now.UnixNano(), now.UnixNano(), n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*outboxRow
	for rows.Next() {
		r := &outboxRow{}
		var payload []byte
		var created int64
		if err := rows.Scan(&r.ID, &r.Kind, &r.WebhookID, &r.MerchantCode, &r.IsTest, &r.URL, &r.Event, &r.SubjectID,
			&payload, &r.Attempts, &r.tries, &r.held, &created); err != nil {
			return out, err
		}
		r.Payload, r.Status, r.CreatedAt = payload, DeliveryPending, time.Unix(0, created).UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}

// attemptRow makes one attempt of a claimed row, to the webhook as it is
// registered now (its URL and header), and writes the outcome.
func (d *Deliverer) attemptRow(row *outboxRow) {
	defer d.wg.Done()
	defer func() {
		d.inflight.Add(-1)
		d.wake()
	}()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(d.ctx), 10*time.Second)
	hook, err := GetHook(ctx, d.s.DB, row.Kind, row.MerchantCode, row.IsTest, row.WebhookID)
	cancel()
	if errors.Is(err, ErrHookNotFound) {
		d.finish(row, time.Now(), 0, fmt.Errorf("the %s webhook %s was removed", row.Kind, row.WebhookID), 0, "", false)
		return
	}
	if err != nil {
		d.releaseRow(row.ID)
		return
	}
	if hook.URL != row.URL {
		ctx, cancel := context.WithTimeout(d.ctx, 10*time.Second)
		_, urlErr := d.CheckWebhookURL(ctx, hook.URL, false)
		cancel()
		row.URL = hook.URL
		if urlErr != nil {
			d.finish(row, time.Now(), 0, errors.New("the URL no longer passes the rules: "+urlErr.Error()), 0, "", false)
			return
		}
	}
	d.sendWithFaults(row, hook.Header)
}

// finish writes an attempt's outcome: delivered; failed when it was the
// last try (or final); else pending until its retry is due.
func (d *Deliverer) finish(row *outboxRow, start time.Time, status int, sendErr error, latency time.Duration, fault string, final bool) {
	if d.ctx.Err() != nil && sendErr != nil {
		d.releaseRow(row.ID) // cut short by Close: another process, or the next run, tries again
		return
	}
	row.tries++
	row.Attempts = d.recordAttempt(row.ID, start, status, sendErr, latency, false, row.URL, fault)
	row.HTTPStatus, row.Error, row.UpdatedAt = status, "", time.Now().UTC()
	next := time.Time{}
	switch {
	case sendErr == nil && status == http.StatusOK:
		row.Status = DeliveryDelivered
	default:
		row.Error = attemptError(status, sendErr)
		if final || row.tries > len(retryDelays) {
			row.Status = DeliveryFailed
		} else {
			next = time.Now().Add(time.Duration(float64(retryDelays[row.tries-1]) * d.scale))
		}
	}
	d.saveOutcome(row, next)
	d.report(&row.Delivery)
	if row.Status == DeliveryFailed {
		d.logf("%s notification %s of %s to webhook %s failed after %d attempt(s): %s",
			row.Kind, row.Event, row.SubjectID, row.WebhookID, row.tries, row.Error)
	}
}

func attemptError(status int, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("answered %d, want 200", status)
}

// saveOutcome writes the row after an attempt and gives its lease back.
func (d *Deliverer) saveOutcome(row *outboxRow, next time.Time) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(d.ctx), 10*time.Second)
	defer cancel()
	nextAt := int64(0)
	if !next.IsZero() {
		nextAt = next.UnixNano()
	}
	_, err := d.s.DB.ExecContext(ctx, `UPDATE deliveries SET attempts = MAX(?, (SELECT COUNT(*) FROM delivery_attempts WHERE delivery_id = ?)),
		tries = ?, status = ?, http_status = ?, error = ?, updated_at = ?, url = ?, next_at = ?, held = ?,
		lease_owner = '', lease_until = 0 WHERE id = ?`,
		row.Attempts, row.ID, row.tries, row.Status, row.HTTPStatus, row.Error, row.UpdatedAt.UnixNano(), row.URL,
		nextAt, row.held, row.ID)
	if err != nil {
		d.logf("recording delivery %s: %v", row.ID, err)
	}
}

// renewClaims keeps this process's claims while its attempts run, until
// the deliverer stops.
func (d *Deliverer) renewClaims() {
	defer d.wg.Done()
	t := time.NewTicker(claimRenew)
	defer t.Stop()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-t.C:
		}
		if d.inflight.Load() == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(d.ctx, claimRenew)
		_, err := d.s.DB.ExecContext(ctx, `UPDATE deliveries SET lease_until = ? WHERE lease_owner = ? AND status = 'pending'`,
			time.Now().Add(ClaimLease).UnixNano(), d.owner)
		cancel()
		if err != nil && d.ctx.Err() == nil {
			d.logf("renewing the claims of attempts under way: %v", err)
		}
	}
}

// releaseRow gives a claimed row back untouched, due at once.
func (d *Deliverer) releaseRow(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = d.s.DB.ExecContext(ctx, `UPDATE deliveries SET lease_owner = '', lease_until = 0 WHERE id = ? AND lease_owner = ?`, id, d.owner)
}

// dueCount counts the rows that are due now (leased ones included).
func (d *Deliverer) dueCount(ctx context.Context) (int, error) {
	var n int
	err := d.s.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM deliveries WHERE status = 'pending' AND next_at <= ?`,
		time.Now().UnixNano()).Scan(&n)
	return n, err
}

// PendingDeliveries counts the deliveries of the state still waiting for
// an attempt: due now, or a retry to come.
func (d *Deliverer) PendingDeliveries(ctx context.Context) (int, error) {
	var n int
	err := d.s.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM deliveries WHERE status = 'pending'`).Scan(&n)
	return n, err
}

// saveResend writes a delivery after a resend: the URL it went to, and
// delivered when it was answered 200 (a pending row is then not retried).
func (d *Deliverer) saveResend(ctx context.Context, del *Delivery) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_, err := d.s.DB.ExecContext(ctx, `UPDATE deliveries SET attempts = MAX(?, (SELECT COUNT(*) FROM delivery_attempts WHERE delivery_id = ?)),
		status = ?, http_status = ?, error = ?, updated_at = ?, url = ? WHERE id = ?`,
		del.Attempts, del.ID, del.Status, del.HTTPStatus, del.Error, del.UpdatedAt.UnixNano(), del.URL, del.ID)
	return err
}

// DrainReport says what closing a sandbox left in its outbox.
type DrainReport struct {
	// Pending counts the deliveries still waiting for an attempt.
	Pending int
	// Served is set when another process serves the state: it delivers
	// them (ServedBy is its URL).
	Served   bool
	ServedBy string
	// Why they wait, of those no one would send without being asked:
	// Unresolved to host names the rules look none up (whoever serves);
	// with no server, Failing to receivers that failed and Waiting not
	// tried yet. News is set when a notice should tell them (see Notice).
	Unresolved, Failing, Waiting int
	News                         bool
}

// Stop ends delivery. Unless another process serves the state, what is
// due goes out first, for at most closeDrain; retries to come stay in the
// outbox for the next process that opens the state.
//
// A report whose causes are news (DrainReport.Notice) is remembered as
// told when tell is set: the caller shows its notice.
func (d *Deliverer) Stop(tell bool) DrainReport {
	var rep DrainReport
	if d == nil {
		return rep
	}
	d.mu.Lock()
	if d.stopped {
		d.mu.Unlock()
		return rep
	}
	d.stopped = true
	d.mu.Unlock()
	ctx := context.Background()
	rep.ServedBy, rep.Served = ServedBy(ctx, d.s.DB, d.owner)
	// Attempts under way finish (they are not cut and sent again by
	// someone else); with no server, what is due goes out too.
	deadline := time.Now().Add(closeDrain)
	for time.Now().Before(deadline) {
		if d.inflight.Load() == 0 {
			if rep.Served {
				break
			}
			if n, err := d.dueCount(ctx); err != nil || n == 0 {
				break
			}
		}
		d.wake()
		time.Sleep(5 * time.Millisecond)
	}
	d.cancel()
	d.wg.Wait()
	d.client.CloseIdleConnections()
	rep.Pending, _ = d.PendingDeliveries(ctx)
	if rep.Pending > 0 {
		d.tellPending(ctx, &rep, tell)
	}
	return rep
}

// PendingAttempts lists the deliveries waiting for an attempt, soonest
// first, shaped as the attempt to come: its number, when it is due
// (at), outcome pending, and the error of the attempt before, if any.
func (d *Deliverer) PendingAttempts(ctx context.Context, f DeliveryFilter) ([]DeliveryAttempt, error) {
	if f.Limit <= 0 {
		f.Limit = 100
	}
	conds, args := f.conditions()
	rows, err := d.s.DB.QueryContext(ctx, `SELECT d.id, d.tries + 1, d.next_at, d.kind, d.event, d.url, d.webhook_id,
		d.merchant_code, d.is_test, d.subject_id, d.payload, d.http_status, d.error, d.held
		FROM deliveries d WHERE d.status = 'pending' AND `+strings.Join(conds, " AND ")+
		` ORDER BY d.next_at, d.seq LIMIT ?`, append(args, min(f.Limit, 1000))...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []DeliveryAttempt{}
	for rows.Next() {
		var a DeliveryAttempt
		var next int64
		var subject string
		var payload []byte
		var held bool
		if err := rows.Scan(&a.DeliveryID, &a.Attempt, &next, &a.Kind, &a.Event, &a.URL, &a.WebhookID, &a.MerchantCode,
			&a.IsTest, &subject, &payload, &a.HTTPStatus, &a.Error, &held); err != nil {
			return nil, err
		}
		a.At, a.Outcome = time.Unix(0, next).UTC(), DeliveryPending
		if held {
			a.Fault = DeliveryFaultReorder
		}
		a.setSubject(subject, payload)
		out = append(out, a)
	}
	return out, rows.Err()
}
