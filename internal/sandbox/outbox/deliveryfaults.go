package outbox

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/wire"
)

// Webhook chaos: the service delivers at least once and in no promised
// order, so a receiver must cope with a notification twice, late, or after
// a later one. These faults make that happen on purpose, on the outbox's
// attempts (they never touch the service's paths):
//
//	dup=P      the attempt is sent twice; both are recorded
//	reorder=P  a first attempt is held back and sent after the next
//	           delivery of the same payment (or dispute) to the same
//	           webhook, or after reorderHold if none comes
//	fail=P     the attempt is not sent and counts as failed: it is retried
//	           on the schedule, as a receiver's 500 would be
//	late=D     every notification's first attempt waits D
//
// One draw per first attempt picks at most one of dup, reorder and fail
// (their rates share the unit interval); retries are not drawn again,
// except for fail, so that a fail=1 delivery gives up as the service
// would. The draws come from the fault seed (--seed), on a stream of
// their own, so a seeded run repeats. Every attempt a fault touched names
// it in its fault field (sandbox deliveries shows it).

// DeliveryFaults are the delivery kinds of a FaultSpec.
type DeliveryFaults struct {
	Dup, Reorder, Fail float64
	Late               time.Duration
}

// The delivery fault names, as the --faults syntax and attempts say them.
const (
	DeliveryFaultDup     = "dup"
	DeliveryFaultReorder = "reorder"
	DeliveryFaultFail    = "fail"
	DeliveryFaultLate    = "late"
)

const (
	// maxLateFault bounds late=: how long a new notification may wait.
	maxLateFault = 10 * time.Minute
	// reorderHold is how long a held notification waits for the next one
	// of its payment before it goes out anyway.
	reorderHold = 30 * time.Second
)

func IsDeliveryFault(name string) bool {
	switch name {
	case DeliveryFaultDup, DeliveryFaultReorder, DeliveryFaultFail, DeliveryFaultLate:
		return true
	}
	return false
}

// Enabled reports whether any delivery fault is asked for.
func (f DeliveryFaults) Enabled() bool {
	return f.Dup > 0 || f.Reorder > 0 || f.Fail > 0 || f.Late > 0
}

func (f DeliveryFaults) RateSum() float64 { return f.Dup + f.Reorder + f.Fail }

func (f *DeliveryFaults) Set(name, value string) error {
	if name == DeliveryFaultLate {
		d, err := time.ParseDuration(value)
		if err != nil || d < 0 || d > maxLateFault {
			return fmt.Errorf("late=%s is not a duration from 0 to %s such as 2s", value, maxLateFault)
		}
		f.Late = d
		return nil
	}
	r, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(r) || r < 0 || r > 1 {
		return fmt.Errorf("%s=%s is not a rate from 0 to 1", name, value)
	}
	switch name {
	case DeliveryFaultDup:
		f.Dup = r
	case DeliveryFaultReorder:
		f.Reorder = r
	default:
		f.Fail = r
	}
	return nil
}

// Parts are the delivery kinds in the --faults syntax.
func (f DeliveryFaults) Parts() []string {
	var out []string
	for _, k := range []struct {
		name string
		rate float64
	}{{DeliveryFaultDup, f.Dup}, {DeliveryFaultReorder, f.Reorder}, {DeliveryFaultFail, f.Fail}} {
		if k.rate > 0 {
			out = append(out, k.name+"="+strconv.FormatFloat(k.rate, 'g', -1, 64))
		}
	}
	if f.Late > 0 {
		out = append(out, DeliveryFaultLate+"="+f.Late.String())
	}
	return out
}

// Spec is the faults in the --faults syntax, as the state stores them.
func (f DeliveryFaults) Spec() string { return strings.Join(f.Parts(), ",") }

// parseDeliveryFaults reads delivery faults in the --faults syntax, as the
// state stores them (Spec).
func parseDeliveryFaults(spec string) (DeliveryFaults, error) {
	var f DeliveryFaults
	for _, part := range strings.Split(spec, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || !IsDeliveryFault(name) {
			return DeliveryFaults{}, fmt.Errorf("%q is not a delivery fault", part)
		}
		if err := f.Set(name, value); err != nil {
			return DeliveryFaults{}, err
		}
	}
	if f.RateSum() > 1 {
		return DeliveryFaults{}, errors.New("the rates of dup, reorder and fail sum to more than 1")
	}
	return f, nil
}

// deliveryChaos draws the delivery faults of one deliverer.
type deliveryChaos struct {
	spec DeliveryFaults
	mu   sync.Mutex
	rng  *rand.Rand
}

func newDeliveryChaos(spec DeliveryFaults, seed int64) *deliveryChaos {
	if !spec.Enabled() {
		return nil
	}
	if seed == 0 {
		seed = rand.Int64()
	}
	return &deliveryChaos{spec: spec, rng: rand.New(rand.NewPCG(uint64(seed), 0x64_65_6c_69))}
}

// draw picks the fault of one first attempt: dup, reorder, fail or "".
func (c *deliveryChaos) draw() string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.rng.Float64()
	switch {
	case u < c.spec.Dup:
		return DeliveryFaultDup
	case u < c.spec.Dup+c.spec.Reorder:
		return DeliveryFaultReorder
	case u < c.rateSum():
		return DeliveryFaultFail
	}
	return ""
}

func (c *deliveryChaos) rateSum() float64 { return c.spec.RateSum() }

// lateBy is how long a new notification waits before its first attempt.
func (c *deliveryChaos) lateBy() time.Duration {
	if c == nil {
		return 0
	}
	return c.spec.Late
}

// errFailFault is the error of an attempt the fail fault stopped.
var errFailFault = errors.New("not sent: the fail fault counted this attempt as failed")

// sendWithFaults makes the attempt of a claimed row, through the faults.
func (d *Deliverer) sendWithFaults(row *outboxRow, header *wire.WebhookHeader) {
	fault := ""
	wasHeld := row.held
	switch {
	case wasHeld:
		fault, row.held = DeliveryFaultReorder, false // sent now, after the one it waited for
	case row.tries == 0:
		fault = d.chaos.draw()
	case d.chaos != nil && d.chaos.spec.Fail > 0:
		if d.chaos.draw() == DeliveryFaultFail {
			fault = DeliveryFaultFail
		}
	}
	if fault == "" && row.tries == 0 && d.chaos.lateBy() > 0 {
		fault = DeliveryFaultLate + "=" + d.chaos.lateBy().String()
	}
	switch fault {
	case DeliveryFaultReorder:
		if row.tries == 0 && !wasHeld && d.hold(row) {
			return
		}
	case DeliveryFaultFail:
		d.finish(row, time.Now(), 0, errFailFault, 0, fault, false)
		return
	case DeliveryFaultDup:
		start := time.Now()
		status, err := d.post(&row.Delivery, header)
		d.recordAttemptOnly(row, start, status, err, time.Since(start), fault)
	}
	start := time.Now()
	status, err := d.post(&row.Delivery, header)
	d.finish(row, start, status, err, time.Since(start), fault, false)
	if status == 200 && err == nil {
		d.releaseHeld(row)
	}
}

// hold parks a first attempt for the reorder fault; false if it could not.
func (d *Deliverer) hold(row *outboxRow) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(d.ctx), 10*time.Second)
	defer cancel()
	hold := time.Duration(float64(reorderHold) * d.scale)
	_, err := d.s.DB.ExecContext(ctx, `UPDATE deliveries SET held = 1, next_at = ?, lease_owner = '', lease_until = 0
		WHERE id = ?`, time.Now().Add(max(hold, outboxPoll)).UnixNano(), row.ID)
	return err == nil
}

// releaseHeld makes due now the held notifications of the row's subject
// to its webhook that were recorded before it.
func (d *Deliverer) releaseHeld(row *outboxRow) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(d.ctx), 10*time.Second)
	defer cancel()
	res, err := d.s.DB.ExecContext(ctx, `UPDATE deliveries SET next_at = ? WHERE status = 'pending' AND held = 1
		AND webhook_id = ? AND subject_id = ? AND id != ?`, time.Now().UnixNano(), row.WebhookID, row.SubjectID, row.ID)
	if err == nil {
		if n, _ := res.RowsAffected(); n > 0 {
			d.wake()
		}
	}
}

// recordAttemptOnly records an attempt that does not decide the row (the
// first of a duplicated pair).
func (d *Deliverer) recordAttemptOnly(row *outboxRow, start time.Time, status int, err error, latency time.Duration, fault string) {
	row.Attempts = d.recordAttempt(row.ID, start, status, err, latency, false, row.URL, fault)
}
