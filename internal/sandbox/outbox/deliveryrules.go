package outbox

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/webhook"
)

// The rules that decide what may be delivered are settings of the state,
// not of the process: `bnpl sandbox serve` writes the ones its flags chose
// when it starts, and every other process that opens the state (the
// embedded default of a command, a second server) judges and delivers by
// them, so a webhook accepted by the server is delivered by whoever
// records its notification. A state no server ever set up uses the
// Options of the process that opened it.

// DeliveryRules are the state's delivery settings.
type DeliveryRules struct {
	// AllowLocalWebhooks admits loopback receivers.
	AllowLocalWebhooks bool `json:"allow_local_webhooks"`
	// ResolveHosts looks webhook hosts up in DNS.
	ResolveHosts bool `json:"resolve_hosts"`
	// RetryScale multiplies the 1-4 minute retry delays.
	RetryScale float64 `json:"retry_scale"`
	// Faults are the webhook chaos faults; Seed their seed.
	Faults DeliveryFaults `json:"-"`
	Seed   int64          `json:"seed,omitempty"`
	// FaultSpec is Faults in the --faults syntax, as stored.
	FaultSpec string `json:"faults,omitempty"`
	// Stored tells whether the rules came from the state (a server set
	// them) rather than from the options of the process.
	Stored bool `json:"-"`
	// serving: this process serves the state (Options.Serve).
	serving bool
}

// String is the rules in one line, as serve and doctor show them.
func (r DeliveryRules) String() string {
	local := "refused (--allow-local-webhooks admits them)"
	if r.AllowLocalWebhooks {
		local = "admitted"
	}
	dns := "no lookups (hermetic; --resolve-hosts looks names up)"
	if r.ResolveHosts {
		dns = "looked up in DNS"
	}
	out := fmt.Sprintf("loopback receivers %s; host names %s; retry scale %s", local, dns,
		strconv.FormatFloat(r.RetryScale, 'g', -1, 64))
	if r.FaultSpec != "" {
		out += fmt.Sprintf("; faults %s (seed %d)", r.FaultSpec, r.Seed)
	}
	return out
}

const settingDeliveryRules = "delivery_rules"

// SettleRules decides the delivery rules of a newly opened state: a
// serving process stores its own; any other takes the stored ones.
// own are the rules the process's options ask for.
func SettleRules(ctx context.Context, db *sql.DB, own DeliveryRules, serve bool) (DeliveryRules, error) {
	if serve {
		own.Stored, own.serving = true, true
		return own, store.WriteSetting(ctx, db, settingDeliveryRules, own)
	}
	stored, ok, err := ReadRules(ctx, db)
	if err != nil || !ok {
		return own, err
	}
	return stored, nil
}

// ReadRules reads the stored rules; ok is false when none were stored.
func ReadRules(ctx context.Context, q store.Querier) (DeliveryRules, bool, error) {
	var r DeliveryRules
	ok, err := store.ReadSetting(ctx, q, settingDeliveryRules, &r)
	if err != nil || !ok {
		return r, ok, err
	}
	if r.FaultSpec != "" {
		faults, err := parseDeliveryFaults(r.FaultSpec)
		if err != nil {
			return r, false, fmt.Errorf("the state's delivery faults %q: %w", r.FaultSpec, err)
		}
		r.Faults = faults
	}
	if r.RetryScale <= 0 {
		r.RetryScale = 1
	}
	r.Stored = true
	return r, true, nil
}

// DeliveryRules answers the rules this sandbox judges and delivers by.
func (d *Deliverer) DeliveryRules() DeliveryRules { return d.rules }

// Resolver answers the resolver the rules look hosts up with (nil: none,
// the sandbox is hermetic).
func (d *Deliverer) Resolver() webhook.Resolver { return d.resolver }

// serverLease is how a serving process announces itself in the state.
type serverLease struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host,omitempty"` // the machine's name, where PID means something
	Owner string    `json:"owner"`
	URL   string    `json:"url,omitempty"`
	Until time.Time `json:"until"`
}

// gone tells a lease whose process is known to have ended: on this
// machine, no process has its PID. A killed server's lease is then
// ignored at once rather than when it lapses.
func (l serverLease) gone() bool {
	return l.PID > 0 && l.Host != "" && l.Host == hostname() && !processAlive(l.PID)
}

var hostname = sync.OnceValue(func() string {
	h, _ := os.Hostname()
	return h
})

const (
	settingServer = "server"
	// serverBeat is how often a server renews its lease, serverLeaseFor
	// how long the lease lasts if it dies without giving it up.
	serverBeat     = 2 * time.Second
	serverLeaseFor = 3 * serverBeat
)

// Announce writes this process's server lease, so that processes opening
// the state from now on leave their deliveries to it, and answers keep,
// which renews the lease until its ctx ends, then gives it up.
func (d *Deliverer) Announce(url string) (keep func(ctx context.Context)) {
	lease := serverLease{PID: os.Getpid(), Host: hostname(), Owner: d.owner, URL: url}
	write := func() {
		lease.Until = time.Now().Add(serverLeaseFor)
		wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = store.WriteSetting(wctx, d.s.DB, settingServer, lease)
		cancel()
	}
	write()
	return func(ctx context.Context) {
		t := time.NewTicker(serverBeat)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				_, _ = d.s.DB.ExecContext(wctx, `DELETE FROM settings WHERE k = ? AND json_extract(v, '$.owner') = ?`, settingServer, lease.Owner)
				cancel()
				return
			case <-t.C:
				write()
			}
		}
	}
}

// ServedBy answers the URL of another live process serving this state,
// "" when none does.
func (d *Deliverer) ServedBy(ctx context.Context) (string, bool) {
	return ServedBy(ctx, d.s.DB, d.owner)
}

// A sandbox serving a state file runs on it for as long as it serves:
// one older than the bnpl about to change the file's layout would fail
// every write after it, so the upgrade waits for it to stop.
func init() {
	store.GuardUpgrade(func(ctx context.Context, q store.Querier) error {
		if url, ok := ServedBy(ctx, q, ""); ok {
			return &store.UpgradeRefused{By: url}
		}
		return nil
	})
}

func ServedBy(ctx context.Context, q store.Querier, self string) (string, bool) {
	var lease serverLease
	ok, err := store.ReadSetting(ctx, q, settingServer, &lease)
	if err != nil || !ok || lease.Owner == self || time.Now().After(lease.Until) || lease.gone() {
		return "", false
	}
	return lease.URL, true
}
