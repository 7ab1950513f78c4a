package outbox

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// Why deliveries wait, told once. A command that ends with deliveries
// still pending says why, so that the person knows what would send them:
// a receiver that failed and is retried later, notifications due later (a
// late or reorder fault), or host names a hermetic sandbox never looks
// up, which no amount of waiting sends. It says so once per cause and
// change of the outbox: a command that added nothing new to a cause
// already told (a read, an error, Ctrl-C) says nothing.

// noLookups begins the error of an attempt to a host name that a hermetic
// sandbox does not look up.
const noLookups = "not sent: this sandbox looks no host names up"

// Causes of a pending delivery.
const (
	causeUnresolved = "unresolved" // a host name, and the rules look none up
	causeFailing    = "failing"    // the receiver failed; a retry is due later
	causeWaiting    = "waiting"    // not tried yet: due later
)

// settingPendingNotice keeps, per cause, the newest delivery a notice told.
const settingPendingNotice = "pending_notice"

// pendingCauses counts the pending deliveries by cause, and the newest
// delivery (its seq) of each.
type pendingCauses struct {
	count  map[string]int
	newest map[string]int64
}

func (d *Deliverer) pendingCauses(ctx context.Context) (pendingCauses, error) {
	pc := pendingCauses{count: map[string]int{}, newest: map[string]int64{}}
	rows, err := d.s.DB.QueryContext(ctx, `SELECT seq, tries, error FROM deliveries WHERE status = 'pending'`)
	if err != nil {
		return pc, err
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		var tries int
		var msg string
		if err := rows.Scan(&seq, &tries, &msg); err != nil {
			return pc, err
		}
		cause := causeWaiting
		switch {
		case strings.Contains(msg, noLookups) && !d.rules.ResolveHosts:
			cause = causeUnresolved
		case tries > 0:
			cause = causeFailing
		}
		pc.count[cause]++
		pc.newest[cause] = max(pc.newest[cause], seq)
	}
	return pc, rows.Err()
}

// tellPending fills the report's causes and decides whether they are news:
// a cause no process served would act on (unresolved host names always;
// the others when no server holds the state) with a delivery newer than
// the last notice told. With tell, news is remembered as told.
func (d *Deliverer) tellPending(ctx context.Context, rep *DrainReport, tell bool) {
	pc, err := d.pendingCauses(ctx)
	if err != nil {
		return
	}
	rep.Unresolved = pc.count[causeUnresolved]
	if !rep.Served {
		rep.Failing, rep.Waiting = pc.count[causeFailing], pc.count[causeWaiting]
	}
	told := map[string]int64{}
	if _, err := store.ReadSetting(ctx, d.s.DB, settingPendingNotice, &told); err != nil {
		return
	}
	for cause, n := range map[string]int{causeUnresolved: rep.Unresolved, causeFailing: rep.Failing, causeWaiting: rep.Waiting} {
		if n > 0 && pc.newest[cause] > told[cause] {
			rep.News = true
		}
	}
	if rep.News && tell {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = store.WriteSetting(wctx, d.s.DB, settingPendingNotice, pc.newest)
	}
}

// Notice is what to tell a person of the deliveries left pending in the
// state at where, "" when there is nothing new to tell: why each waits,
// and the command that sends or drops them.
func (r DrainReport) Notice(where string) string {
	if !r.News {
		return ""
	}
	var why []string
	if r.Unresolved > 0 {
		why = append(why, fmt.Sprintf("%d to host names this sandbox does not look up, which it never sends (`bnpl sandbox serve --resolve-hosts` sends them, `bnpl sandbox deliveries drop` drops them)", r.Unresolved))
	}
	if r.Failing > 0 {
		why = append(why, fmt.Sprintf("%d to receivers that failed, retried later by `bnpl sandbox serve` or the next command", r.Failing))
	}
	if r.Waiting > 0 {
		why = append(why, fmt.Sprintf("%d due later, sent by `bnpl sandbox serve` or the next command", r.Waiting))
	}
	n := r.Unresolved + r.Failing + r.Waiting
	what := fmt.Sprintf("%d webhook deliveries are", n)
	if n == 1 {
		what = "1 webhook delivery is"
	}
	return fmt.Sprintf("%s pending in %s: %s; `bnpl sandbox deliveries --status pending` lists them", what, where, strings.Join(why, "; "))
}

// dropped is the error a dropped delivery keeps.
const dropped = "dropped by hand (bnpl sandbox deliveries drop): never sent"

// DropPending ends the pending deliveries the filter's payment or dispute
// select (every one when it selects none) without sending them: each is
// failed, with an attempt that says it was dropped. It answers how many.
func (d *Deliverer) DropPending(ctx context.Context, f DeliveryFilter) (int, error) {
	conds, args := f.conditions()
	rows, err := d.s.DB.QueryContext(ctx, `UPDATE deliveries SET status = 'failed', error = ?, updated_at = ?,
		lease_owner = '', lease_until = 0
		WHERE id IN (SELECT d.id FROM deliveries d WHERE d.status = 'pending' AND `+strings.Join(conds, " AND ")+`)
		RETURNING id, url`, append([]any{dropped, time.Now().UnixNano()}, args...)...)
	if err != nil {
		return 0, err
	}
	type row struct{ id, url string }
	var ended []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.url); err != nil {
			rows.Close()
			return 0, err
		}
		ended = append(ended, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, r := range ended {
		d.recordAttempt(r.id, time.Now(), 0, fmt.Errorf("%s", dropped), 0, false, r.url, "")
	}
	return len(ended), nil
}
