// Package sandbox is a stateful, local stand-in for the installment payment
// service: one http.Handler per region that answers the checkout and payment
// endpoints with the service's paths, authentication, statuses, error bodies
// and messages, keeps its state in SQLite (in memory or in a file several
// processes may share), and adds what a real customer would do (approve,
// reject or cancel at checkout) through /_sandbox endpoints and a hosted
// payment page.
//
// This package is the sandbox's public face (New, Options, Handler,
// Transport, Serve, and the names the rest of the program uses); the work is
// done in its rooms, each a package whose imports point down only:
//
//	extras       control endpoints, hosted page, dashboard, health
//	service      the service's endpoints: checkout, payments, disputes, webhooks
//	middleware   faults and latency, rate limit, browser guard, loopback check
//	reqlog       the request log
//	outbox       webhook registrations, the outbox and its one deliverer
//	store        the state: database, schema, clock, merchants, payment moves
//	edge         error bodies, JSON answers, bounded request bodies
//
// Endpoints beyond the service's own, on every regional handler (all
// answered by extras):
//
//	GET  /_sandbox/hpp/{session_id}                  hosted payment page (HTML)
//	POST /_sandbox/hpp/{session_id}/{approve|reject|cancel}
//	                                                 the page's buttons; 303 to the merchant URL
//	POST /_sandbox/checkout/{id}/{approve|reject|cancel}
//	POST /_sandbox/payments/{id}/{approve|reject|cancel}
//	                                                 id is a session id or a payment id
//	POST /_sandbox/payments/{id}/expire-auth         make the authorization lapse now
//	GET  /_sandbox/payments/{id}/times               when it was authorized and closed (sandbox clock)
//	POST /_sandbox/reset                             forget every payment
//	GET  /_sandbox/clock                             {"now": ..., "offset": ...}
//	POST /_sandbox/clock/advance?by=DURATION         or a body {"by": "1h30m"}
//	POST /_sandbox/payments/{id}/dispute             the customer opens a dispute
//	POST /_sandbox/disputes/{id}/resolve             support moves it: {"status": ...}
//	GET  /_sandbox/deliveries                        webhook deliveries
//	GET  /_sandbox/delivery-attempts                 each attempt; ?payment= ?dispute= ?status=failed|delivered ?after=
//	GET  /_sandbox/pending-deliveries                the outbox: deliveries waiting for an attempt
//	POST /_sandbox/pending-deliveries/drop           end them unsent; ?payment= ?dispute=
//	POST /_sandbox/deliveries/{id}/resend            send a delivery again now
//	GET  /_sandbox/logs                              the request log; ?status= ?path= ?since= ?after=
//	GET  /_sandbox/health                            readiness: 200 with version, state, uptime; 503
//
// The /_sandbox control endpoints need no key but answer only requests whose
// RemoteAddr is a loopback address (the in-process Transport uses
// 127.0.0.1:0), unless Options.AllowRemoteControl opens them (a sandbox in a
// container, whose clients come through the container's network); the
// hosted page and the health check are open to any client because a phone
// that scans the QR code plays the customer. Control endpoints answer the payment
// as JSON, or the service's error body.
//
// Time: the sandbox's "now" is the Options.Clock plus an offset stored in the
// state, so /_sandbox/clock/advance works with the real clock and is seen by
// every process sharing the state file. With a FakeClock the offset still
// applies on top of it; tests usually call FakeClock.Advance directly.
// With Options.ClockStart the clock is fixed instead: it follows no machine
// and moves one second per write request (store.SteppingClock).
package sandbox

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/extras"
	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/sandbox/reqlog"
	"github.com/bnpl-cli/bnpl/internal/sandbox/service"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/webhook"
)

// Options configure a Sandbox; the zero value is a usable in-memory sandbox.
type Options struct {
	StatePath  string            // "" = in memory; else an SQLite file
	Merchants  []store.Merchant  // nil = BuiltinMerchants()
	Clock      store.Clock       // nil = real clock
	AuthExpiry time.Duration     // lifetime of an authorization (default 7*24h)
	PublicURLs map[string]string // region -> base URL for web_url and qr_code; default: the request's host

	// ClockStart, when set and Clock is nil, gives the sandbox a fixed
	// clock that starts there and moves only by ClockStep per write
	// request and by advances (store.SteppingClock).
	ClockStart time.Time

	// Faults injects failures on the service's paths (see the middleware package);
	// Seed makes their draws repeatable (0 picks a seed, see FaultSeed).
	Faults middleware.FaultSpec
	Seed   int64
	// RateLimit enforces the service's test-key limits (see the middleware package).
	RateLimit bool

	// Webhooks (see the outbox package). AllowLocalWebhooks admits loopback
	// receivers (http://127.0.0.1:PORT/...), which the service refuses.
	// WebhookRetryScale multiplies the 1-4 minute retry delays (0 = 1).
	// ResolveHosts looks webhook hosts up with the system's resolver
	// (Resolver, when set, is used instead); without either the sandbox is
	// hermetic: it judges URLs without DNS and delivers only to addresses
	// and localhost. OnDelivery
	// hears every delivery attempt's outcome. DeliveryLog receives a line
	// per failed or dropped delivery (nil = discarded).
	AllowLocalWebhooks bool
	WebhookRetryScale  float64
	ResolveHosts       bool
	Resolver           webhook.Resolver
	OnDelivery         func(outbox.Delivery)
	DeliveryLog        io.Writer

	// NoRequestLog turns off the request log (see the reqlog package).
	NoRequestLog bool

	// AllowHosts are host names (the name other containers reach a
	// sandbox container by) that the Host guard of /_sandbox/ paths
	// accepts besides addresses, localhost and the public URLs' hosts
	// (see middleware.GuardSandboxPaths).
	AllowHosts []string
	// AllowRemoteControl opens the control endpoints and the dashboard
	// to clients that are not loopback (see loopbackOnly).
	AllowRemoteControl bool
	// Serve marks the process that serves the state (bnpl sandbox serve):
	// its delivery rules (AllowLocalWebhooks, ResolveHosts,
	// WebhookRetryScale, the delivery faults) become the state's, and it
	// announces itself so that short-lived processes on the same state
	// leave their deliveries to it (see the outbox package).
	Serve bool
}

// Sandbox is the emulated service. It is safe for concurrent use.
type Sandbox struct {
	*extras.Local

	handlersOnce sync.Once
	handlers     map[string]http.Handler

	faults *middleware.FaultInjector // nil: no faults
	limits *middleware.RateLimiter   // nil: no rate limit

	allowHosts    map[string]bool // AllowHosts, lower case
	remoteControl bool            // AllowRemoteControl
	statePath     string          // StatePath, named by a state that fails
	closeOnce     sync.Once
	closeReport   outbox.DrainReport
	closeErr      error
	seeding       chan struct{} // one seed of this process at a time (fixture_lock.go)
}

// New opens (or creates) the state and prepares the handlers.
func New(opts Options) (*Sandbox, error) {
	merchants := opts.Merchants
	if merchants == nil {
		merchants = store.BuiltinMerchants()
	}
	clock := opts.Clock
	if clock == nil && !opts.ClockStart.IsZero() {
		clock = store.NewSteppingClock(opts.ClockStart)
	}
	st, err := store.OpenState(opts.StatePath, clock, opts.AuthExpiry, merchants, opts.Seed)
	if err != nil {
		return nil, err
	}
	if err := st.SettleFixedClock(context.Background()); err != nil {
		st.Close()
		return nil, store.NewStateError(opts.StatePath, err)
	}
	rules, err := outbox.SettleRules(context.Background(), st.DB, rulesFromOptions(opts), opts.Serve)
	if err != nil {
		st.Close()
		return nil, store.NewStateError(opts.StatePath, err)
	}
	hooks := outbox.StartDelivery(st, rules, opts.Resolver, opts.OnDelivery, opts.DeliveryLog)
	publicURLs := map[string]string{}
	for region, u := range opts.PublicURLs {
		publicURLs[region] = strings.TrimRight(u, "/")
	}
	var log *reqlog.Log
	if !opts.NoRequestLog {
		log = reqlog.Start(st)
	}
	s := &Sandbox{
		Local:         extras.NewLocal(service.NewService(st, hooks, publicURLs), log, opts.StatePath != ""),
		allowHosts:    map[string]bool{},
		remoteControl: opts.AllowRemoteControl,
		statePath:     opts.StatePath,
		seeding:       make(chan struct{}, 1),
	}
	for _, h := range opts.AllowHosts {
		if h = middleware.NormalHost(h); h != "" {
			s.allowHosts[h] = true
		}
	}
	if opts.Faults.Enabled() {
		s.faults = middleware.NewFaultInjector(opts.Faults, opts.Seed)
	}
	if opts.RateLimit {
		s.limits = middleware.NewRateLimiter(store.MachineClock(st.Clock))
	}
	return s, nil
}

// Close releases the state. Handlers must not be used afterwards.
func (s *Sandbox) Close() error {
	_, err := s.Shutdown()
	return err
}

// Shutdown is Close, answering what it left in the outbox: unless another
// process serves the state, what is due is delivered first, for at most
// two seconds.
func (s *Sandbox) Shutdown() (outbox.DrainReport, error) { return s.shutdown(false) }

// ShutdownTelling is Shutdown for a caller that shows the report's notice
// (DrainReport.Notice): the state remembers it as told, so that the next
// process tells it only when there is news.
func (s *Sandbox) ShutdownTelling() (outbox.DrainReport, error) { return s.shutdown(true) }

func (s *Sandbox) shutdown(tell bool) (outbox.DrainReport, error) {
	if s.DB == nil {
		return outbox.DrainReport{}, nil
	}
	s.closeOnce.Do(func() {
		s.Log.Stop() // both write to the state: stop them first
		s.closeReport = s.Outbox.Stop(tell)
		s.closeErr = s.State.Close()
	})
	return s.closeReport, s.closeErr
}

// Handler is the service of one region, "ae" (UAE and Kuwait) or "sa" (KSA).
// Any other region answers every request with 404.
func (s *Sandbox) Handler(region string) http.Handler {
	s.handlersOnce.Do(func() {
		s.handlers = map[string]http.Handler{}
		for _, r := range []string{"ae", "sa"} {
			s.handlers[r] = s.buildHandler(r)
		}
	})
	if h, ok := s.handlers[region]; ok {
		return h
	}
	return http.NotFoundHandler()
}

// DeliveryRules answers the rules this sandbox judges and delivers by.
func (s *Sandbox) DeliveryRules() outbox.DeliveryRules { return s.Outbox.DeliveryRules() }

// ServedBy answers the URL of another live process serving this state,
// "" when none does.
func (s *Sandbox) ServedBy(ctx context.Context) (string, bool) { return s.Outbox.ServedBy(ctx) }

// Deliveries lists the most recent deliveries, newest first, optionally
// only those of one payment or dispute (subject) or of one kind.
func (s *Sandbox) Deliveries(ctx context.Context, kind, subject string, limit int) ([]outbox.Delivery, error) {
	return s.Outbox.Deliveries(ctx, kind, subject, limit)
}

// DeliveryAttempts lists delivery attempts: the latest Limit, newest
// first; or, with After, the next Limit after that cursor, oldest first.
func (s *Sandbox) DeliveryAttempts(ctx context.Context, f outbox.DeliveryFilter) ([]outbox.DeliveryAttempt, error) {
	return s.Outbox.DeliveryAttempts(ctx, f)
}

// CountDeliveryAttempts counts the attempts the filter's payment,
// dispute and status select (its cursors aside).
func (s *Sandbox) CountDeliveryAttempts(ctx context.Context, f outbox.DeliveryFilter) (int, error) {
	return s.Outbox.CountDeliveryAttempts(ctx, f)
}

// PendingAttempts lists the deliveries waiting for an attempt, soonest
// first, shaped as the attempt to come.
func (s *Sandbox) PendingAttempts(ctx context.Context, f outbox.DeliveryFilter) ([]outbox.DeliveryAttempt, error) {
	return s.Outbox.PendingAttempts(ctx, f)
}

// PendingDeliveries counts the deliveries of the state still waiting for
// an attempt: due now, or a retry to come.
func (s *Sandbox) PendingDeliveries(ctx context.Context) (int, error) {
	return s.Outbox.PendingDeliveries(ctx)
}

// Resend sends a delivery's notification again, now, and answers the
// attempt (see the outbox's Resend).
func (s *Sandbox) Resend(ctx context.Context, deliveryID string) (*outbox.DeliveryAttempt, error) {
	return s.Outbox.Resend(ctx, deliveryID)
}

// RequestLog answers logged requests, newest first (see LogFilter).
func (s *Sandbox) RequestLog(ctx context.Context, f reqlog.LogFilter) ([]reqlog.LogEntry, error) {
	return s.logReader().RequestLog(ctx, f)
}

// RequestLogCount is RequestLog with the number of entries the filter
// selects.
func (s *Sandbox) RequestLogCount(ctx context.Context, f reqlog.LogFilter) ([]reqlog.LogEntry, int, error) {
	return s.logReader().RequestLogCount(ctx, f)
}

// logReader reads the request log of the state, which other processes may
// write when this one keeps none.
func (s *Sandbox) logReader() *reqlog.Log {
	if s.Log != nil {
		return s.Log
	}
	return reqlog.NewReader(s.State)
}

// RequestLogDropped counts the entries the request log could not keep.
func (s *Sandbox) RequestLogDropped() int64 { return s.Log.RequestLogDropped() }

// rulesFromOptions are the rules a process's options ask for.
func rulesFromOptions(opts Options) outbox.DeliveryRules {
	r := outbox.DeliveryRules{AllowLocalWebhooks: opts.AllowLocalWebhooks, ResolveHosts: opts.ResolveHosts,
		RetryScale: opts.WebhookRetryScale, Faults: opts.Faults.Deliveries}
	if r.RetryScale <= 0 {
		r.RetryScale = 1
	}
	if r.Faults.Enabled() {
		r.FaultSpec = r.Faults.Spec()
		r.Seed = opts.Seed
		if r.Seed == 0 {
			r.Seed = time.Now().UnixNano()
		}
	}
	return r
}
