package outbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/netguard"
	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/webhook"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// Webhook delivery. A change (of a payment, through OnPaymentChangeInTx,
// or of a dispute) is recorded in the outbox of the state (record.go), in
// the transaction of a payment's change, before the request answers; a
// deliverer polls the outbox, POSTs each notification to
// its webhook with the webhook's static header, and retries a delivery that
// did not get a 200 four times, after 1, 2, 3 and 4 minutes (times the
// state's retry scale). Every delivery is kept in the deliveries table
// (GET /_sandbox/deliveries) and reported to Options.OnDelivery.

// Delivery is one notification to one webhook, as it stands after its
// latest attempt. It never holds the header value.
type Delivery struct {
	ID           string          `json:"id"`
	Kind         string          `json:"kind"` // payment or dispute
	WebhookID    string          `json:"webhook_id"`
	MerchantCode string          `json:"merchant_code"`
	IsTest       bool            `json:"is_test"`
	URL          string          `json:"url"`
	Event        string          `json:"event"`      // the change: captured, refunded, ...; a dispute's new status
	SubjectID    string          `json:"subject_id"` // the payment id or the dispute id
	Attempts     int             `json:"attempts"`
	Status       string          `json:"status"` // pending, delivered or failed
	HTTPStatus   int             `json:"http_status,omitempty"`
	Error        string          `json:"error,omitempty"`
	CreatedAt    time.Time       `json:"created_at"`
	UpdatedAt    time.Time       `json:"updated_at"`
	Payload      json.RawMessage `json:"payload"`
}

const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"

	HookKindPayment = "payment"
	HookKindDispute = "dispute"

	// deliveryWorkers is how many attempts a deliverer makes at once.
	deliveryWorkers = 4
	// The service expects its answer within a minute.
	deliveryTimeout = time.Minute
)

// retryDelays are the waits before the 2nd to 5th attempts.
var retryDelays = []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute, 4 * time.Minute}

// paymentEvents are the payment changes the service notifies.
var paymentEvents = map[string]bool{
	"authorized": true, "captured": true, "closed": true, "rejected": true,
	"refunded": true, "updated": true, "expired": true, "auth_expired": true,
}

// Deliverer sends what the outbox holds, by the state's rules.
type Deliverer struct {
	s          *store.State
	rules      DeliveryRules
	allowLocal bool
	resolver   webhook.Resolver
	scale      float64
	chaos      *deliveryChaos // nil: no delivery faults
	onDelivery func(Delivery)
	log        io.Writer
	logMu      sync.Mutex
	client     *http.Client
	owner      string // this process's name on the rows it claims

	wakeCh   chan struct{}
	inflight atomic.Int64 // attempts under way
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	mu      sync.Mutex
	stopped bool
}

type hookEvent struct {
	kind         string
	merchantCode string
	isTest       bool
	event        string
	subjectID    string
	payload      []byte
	encode       func() ([]byte, error) // the payload, when it is nil
}

func StartDelivery(s *store.State, rules DeliveryRules, resolver webhook.Resolver, onDelivery func(Delivery), log io.Writer) *Deliverer {
	d := &Deliverer{
		s:          s,
		rules:      rules,
		allowLocal: rules.AllowLocalWebhooks,
		resolver:   resolver,
		scale:      rules.RetryScale,
		chaos:      newDeliveryChaos(rules.Faults, rules.Seed),
		onDelivery: onDelivery,
		log:        log,
		owner:      store.NewLockOwner(),
		wakeCh:     make(chan struct{}, 1),
	}
	if d.scale <= 0 {
		d.scale = 1
	}
	if d.log == nil {
		d.log = io.Discard
	}
	if d.resolver == nil && rules.ResolveHosts {
		d.resolver = net.DefaultResolver
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: d.checkDial}
	d.client = &http.Client{
		Timeout: deliveryTimeout,
		Transport: &http.Transport{
			Proxy:               nil, // the receiver is reached directly, as the rules judged it
			DialContext:         d.dialContext(dialer),
			TLSHandshakeTimeout: 10 * time.Second,
			MaxIdleConnsPerHost: 2,
			IdleConnTimeout:     30 * time.Second,
		},
		// A redirect is not a 200: the delivery is retried, never sent on
		// to an address the rules did not see.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	d.wg.Add(2)
	go d.run()
	go d.renewClaims()
	d.settleParked(d.ctx, nil) // what a process killed after a commit left parked
	s.OnPaymentChangeInTx(d.onPaymentChange)
	return d
}

// dialContext connects to a receiver. A hermetic sandbox (no resolver)
// looks no name up: it dials raw addresses and localhost only, and a
// delivery to any other name fails with an error that says how to turn
// lookups on.
func (d *Deliverer) dialContext(dialer *net.Dialer) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		switch {
		case net.ParseIP(host) != nil:
		case strings.EqualFold(strings.TrimSuffix(host, "."), "localhost"):
			address = net.JoinHostPort("127.0.0.1", port)
		case d.resolver == nil:
			return nil, fmt.Errorf("%s (start it with --resolve-hosts to deliver to %s)", noLookups, host)
		default:
			// The rules' resolver, so that what was judged is what is dialled.
			addrs, err := d.resolver.LookupIPAddr(ctx, host)
			if err != nil {
				return nil, err
			}
			if len(addrs) == 0 {
				return nil, fmt.Errorf("%s has no address", host)
			}
			address = net.JoinHostPort(addrs[0].IP.String(), port)
		}
		return dialer.DialContext(ctx, network, address)
	}
}

// checkDial refuses to connect to an address the URL rules would refuse,
// whatever the name resolved to by the time of the delivery.
func (d *Deliverer) checkDial(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return fmt.Errorf("webhook delivery: %s is not an address", host)
	}
	if publicIP(ip) || d.allowLocal && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("webhook delivery: refusing to connect to %s, which is not a public address", host)
}

// publicIP: an address in no block of the special-purpose registries.
func publicIP(ip net.IP) bool { return netguard.AllowedIP(ip) }

func (d *Deliverer) logf(format string, args ...any) {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	fmt.Fprintf(d.log, "sandbox: "+format+"\n", args...)
}

// onPaymentChange runs in the transaction of the change, in the request's
// goroutine: it records the notifications due in the outbox, so that they
// commit with the change or not at all.
func (d *Deliverer) onPaymentChange(ctx context.Context, tx *sql.Tx, c *store.Change) (func(), error) {
	if !paymentEvents[c.Event] {
		return nil, nil
	}
	// Encoded only when a webhook hears of it: most changes have none.
	encode := func() ([]byte, error) {
		body, err := json.Marshal(paymentNotification(*c))
		if err != nil {
			return nil, fmt.Errorf("payment %s: could not encode the notification: %w", c.Payment.ID, err)
		}
		return body, nil
	}
	return d.recordInTx(ctx, tx, &hookEvent{kind: HookKindPayment, merchantCode: c.MerchantCode, isTest: c.Payment.IsTest,
		event: c.Event, subjectID: c.Payment.ID, encode: encode})
}

// DisputeChanged records the notification of a dispute's new status.
func (d *Deliverer) DisputeChanged(n wire.DisputeNotification, merchantCode string) {
	body, err := json.Marshal(n)
	if err != nil {
		return
	}
	d.recordEvent(context.Background(), &hookEvent{kind: HookKindDispute, merchantCode: merchantCode,
		event: n.Status, subjectID: n.DisputeID, payload: body})
}

func paymentNotification(c store.Change) wire.PaymentNotification {
	p := c.Payment
	n := wire.PaymentNotification{
		ID: p.ID, CreatedAt: p.CreatedAt, ExpiresAt: p.ExpiresAt, ClosedAt: c.ClosedAt,
		Status: strings.ToLower(p.Status), IsTest: p.IsTest, IsExpired: c.IsExpired,
		Amount: money.Format(p.Amount, p.Currency), Currency: p.Currency,
		Captures: p.Captures, Refunds: p.Refunds, Meta: p.Meta, Token: c.Token,
	}
	if p.Order != nil {
		n.Order.ReferenceID = p.Order.ReferenceID
	}
	if n.Captures == nil {
		n.Captures = []wire.Capture{}
	}
	if n.Refunds == nil {
		n.Refunds = []wire.Refund{}
	}
	if n.Meta == nil {
		n.Meta = map[string]any{"order_id": nil, "customer": nil}
	}
	return n
}

// post sends one attempt; the header goes on the wire as registered.
func (d *Deliverer) post(del *Delivery, header *wire.WebhookHeader) (int, error) {
	req, err := http.NewRequestWithContext(d.ctx, http.MethodPost, del.URL, strings.NewReader(string(del.Payload)))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "bnpl-sandbox-webhooks/1")
	// Not a header of the service: the sandbox names the change, which
	// the body alone does not always tell (bnpl listen shows it).
	req.Header.Set(EventHeader, del.Event)
	req.Header.Set(DeliveryHeader, del.ID)
	if header != nil && header.Title != "" {
		req.Header.Set(header.Title, header.Value)
	}
	res, err := d.client.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) {
			err = ue.Unwrap() // drop the repeated method and URL
		}
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
	return res.StatusCode, nil
}

func (d *Deliverer) report(del *Delivery) {
	if d.onDelivery != nil {
		d.onDelivery(*del)
	}
}

// Deliveries lists the most recent deliveries, newest first, optionally
// only those of one payment or dispute (subject) or of one kind.
func (d *Deliverer) Deliveries(ctx context.Context, kind, subject string, limit int) ([]Delivery, error) {
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	conds, args := []string{"1 = 1"}, []any{}
	if kind != "" {
		conds, args = append(conds, "kind = ?"), append(args, kind)
	}
	if subject != "" {
		conds, args = append(conds, "subject_id = ?"), append(args, subject)
	}
	rows, err := d.s.DB.QueryContext(ctx, `SELECT id, kind, webhook_id, merchant_code, is_test, url, event, subject_id, payload,
		attempts, status, http_status, error, created_at, updated_at FROM deliveries WHERE `+strings.Join(conds, " AND ")+
		` ORDER BY seq DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Delivery{}
	for rows.Next() {
		var del Delivery
		var payload []byte
		var created, updated int64
		if err := rows.Scan(&del.ID, &del.Kind, &del.WebhookID, &del.MerchantCode, &del.IsTest, &del.URL, &del.Event,
			&del.SubjectID, &payload, &del.Attempts, &del.Status, &del.HTTPStatus, &del.Error, &created, &updated); err != nil {
			return nil, err
		}
		del.Payload = json.RawMessage(payload)
		if del.Status == deliveryParked {
			del.Status = DeliveryPending // for the instant between its commit and its URL check
		}
		del.CreatedAt, del.UpdatedAt = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
		out = append(out, del)
	}
	return out, rows.Err()
}

// Headers the sandbox adds to every delivery. The service sends neither:
// they name the change and the delivery, for `bnpl listen` and for
// `bnpl sandbox deliveries resend`.
const (
	EventHeader    = webhook.EventHeader
	DeliveryHeader = "Bnpl-Sandbox-Delivery"
)

// DeliveryAttempt is one attempt to deliver a notification to a webhook:
// what `bnpl sandbox deliveries` lists. Seq orders attempts and is the
// cursor of GET /_sandbox/deliveries/attempts?after=.
type DeliveryAttempt struct {
	Seq          int64     `json:"seq"`
	DeliveryID   string    `json:"delivery_id"`
	Attempt      int       `json:"attempt"`
	At           time.Time `json:"at"`
	Kind         string    `json:"kind"`
	Event        string    `json:"event"`
	URL          string    `json:"url"`
	WebhookID    string    `json:"webhook_id"`
	MerchantCode string    `json:"merchant_code"`
	IsTest       bool      `json:"is_test"`
	PaymentID    string    `json:"payment_id,omitempty"`
	DisputeID    string    `json:"dispute_id,omitempty"`
	// Outcome is delivered (answered 200) or failed; pending for a
	// delivery waiting for this attempt (PendingAttempts).
	Outcome    string  `json:"outcome"`
	HTTPStatus int     `json:"http_status,omitempty"`
	Error      string  `json:"error,omitempty"`
	LatencyMS  float64 `json:"latency_ms"`
	Resend     bool    `json:"resend,omitempty"`
	// Fault names the delivery fault that touched the attempt: dup,
	// reorder, fail or late=DURATION (see deliveryfaults.go).
	Fault string `json:"fault,omitempty"`
}

// DeliveryFilter selects attempts. Zero fields select everything; After
// (a Seq) answers the attempts after it, oldest first, for following.
type DeliveryFilter struct {
	PaymentID string
	DisputeID string
	Failed    bool // only attempts not answered 200
	Delivered bool // only attempts answered 200
	After     int64
	Forward   bool  // set: the entries after After, oldest first
	Before    int64 // set (> 0): only attempts older than this Seq
	Limit     int   // default 100, at most 1000
}

// recordAttempt adds an attempt's row. Its number is counted in the same
// statement, so that concurrent attempts (a resend and a retry) differ.
// url is where it was sent; fault names the delivery fault that touched it.
func (d *Deliverer) recordAttempt(deliveryID string, at time.Time, status int, sendErr error, latency time.Duration, resend bool, url, fault string) int {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(d.ctx), 10*time.Second)
	defer cancel()
	n, err := insertAttempt(ctx, d.s.DB, deliveryID, at, status, sendErr, latency, resend, url, fault)
	if err != nil && d.ctx.Err() == nil {
		d.logf("recording an attempt of delivery %s: %v", deliveryID, err)
	}
	return n
}

// insertAttempt adds an attempt's row through q (the state, or a
// transaction) and answers its number.
func insertAttempt(ctx context.Context, q store.Querier, deliveryID string, at time.Time, status int, sendErr error, latency time.Duration, resend bool, url, fault string) (int, error) {
	msg := ""
	if sendErr != nil {
		msg = sendErr.Error()
	} else if status != http.StatusOK {
		msg = fmt.Sprintf("answered %d, want 200", status)
	}
	var n int
	err := q.QueryRowContext(ctx, `INSERT INTO delivery_attempts (delivery_id, attempt, at, http_status, error, latency_ns, resend, url, fault)
		SELECT ?, COALESCE(MAX(attempt), 0) + 1, ?, ?, ?, ?, ?, ?, ? FROM delivery_attempts WHERE delivery_id = ?
		RETURNING attempt`, deliveryID, at.UnixNano(), status, msg, latency.Nanoseconds(), resend, url, fault, deliveryID).Scan(&n)
	return n, err
}

// attemptColumns read an attempt with its delivery; the URL is the one the
// attempt was sent to (attempts recorded before that was kept show the
// delivery's).
const attemptColumns = `a.seq, a.delivery_id, a.attempt, a.at, a.http_status, a.error, a.latency_ns, a.resend,
	d.kind, d.event, CASE WHEN a.url != '' THEN a.url ELSE d.url END, d.webhook_id, d.merchant_code, d.is_test,
	d.subject_id, d.payload, a.fault`

func scanAttempt(sc interface{ Scan(...any) error }) (DeliveryAttempt, error) {
	var a DeliveryAttempt
	var at, latency int64
	var subject string
	var payload []byte
	if err := sc.Scan(&a.Seq, &a.DeliveryID, &a.Attempt, &at, &a.HTTPStatus, &a.Error, &latency, &a.Resend,
		&a.Kind, &a.Event, &a.URL, &a.WebhookID, &a.MerchantCode, &a.IsTest, &subject, &payload, &a.Fault); err != nil {
		return a, err
	}
	a.At = time.Unix(0, at).UTC()
	a.LatencyMS = float64(latency/1000) / 1000
	a.Outcome = DeliveryFailed
	if a.HTTPStatus == http.StatusOK && a.Error == "" {
		a.Outcome = DeliveryDelivered
	}
	a.setSubject(subject, payload)
	return a, nil
}

// setSubject fills the payment and dispute of an attempt from its
// delivery's subject and payload.
func (a *DeliveryAttempt) setSubject(subject string, payload []byte) {
	if a.Kind == HookKindDispute {
		a.DisputeID = subject
		var n struct {
			PaymentID string `json:"payment_id"`
		}
		if json.Unmarshal(payload, &n) == nil {
			a.PaymentID = n.PaymentID
		}
	} else {
		a.PaymentID = subject
	}
}

// DeliveryAttempts lists delivery attempts: the latest Limit, newest
// first; or, with After, the next Limit after that cursor, oldest first.
func (d *Deliverer) DeliveryAttempts(ctx context.Context, f DeliveryFilter) ([]DeliveryAttempt, error) {
	if f.Limit <= 0 {
		f.Limit = 100
	}
	f.Limit = min(f.Limit, 1000)
	conds, args := f.conditions()
	if f.Before > 0 && !f.Forward && f.After == 0 {
		conds, args = append(conds, "a.seq < ?"), append(args, f.Before)
	}
	order := "DESC"
	if f.Forward || f.After > 0 {
		conds, args, order = append(conds, "a.seq > ?"), append(args, f.After), "ASC"
	}
	rows, err := d.s.DB.QueryContext(ctx, `SELECT `+attemptColumns+` FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
		WHERE `+strings.Join(conds, " AND ")+` ORDER BY a.seq `+order+` LIMIT ?`, append(args, f.Limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []DeliveryAttempt{}
	for rows.Next() {
		a, err := scanAttempt(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// CountDeliveryAttempts counts the attempts the filter's payment,
// dispute and status select (its cursors aside).
func (d *Deliverer) CountDeliveryAttempts(ctx context.Context, f DeliveryFilter) (int, error) {
	conds, args := f.conditions()
	var n int
	err := d.s.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
		WHERE `+strings.Join(conds, " AND "), args...).Scan(&n)
	return n, err
}

// conditions are the SQL conditions of the filter's payment, dispute and
// status, over delivery_attempts a joined to deliveries d.
func (f DeliveryFilter) conditions() ([]string, []any) {
	conds, args := []string{"1 = 1"}, []any{}
	if f.PaymentID != "" {
		conds = append(conds, "((d.kind = 'payment' AND d.subject_id = ?) OR (d.kind = 'dispute' AND json_extract(d.payload, '$.payment_id') = ?))")
		args = append(args, f.PaymentID, f.PaymentID)
	}
	if f.DisputeID != "" {
		conds, args = append(conds, "d.kind = 'dispute' AND d.subject_id = ?"), append(args, f.DisputeID)
	}
	if f.Failed {
		conds = append(conds, "(a.http_status != 200 OR a.error != '')")
	}
	if f.Delivered {
		conds = append(conds, "a.http_status = 200 AND a.error = ''")
	}
	return conds, args
}

var errNoSuchDelivery = &edge.Refusal{Status: 404, ErrorType: "not_found", Message: "no such delivery"}

// Resend sends a delivery's notification again, now, to the webhook it
// was for, with the webhook's current header, and answers the attempt.
// It waits for the answer; a failed resend is not retried. The delivery's
// status becomes delivered when the receiver answers 200.
func (d *Deliverer) Resend(ctx context.Context, deliveryID string) (*DeliveryAttempt, error) {
	if !edge.ValidUUID(deliveryID) {
		return nil, edge.BadData("invalid delivery id")
	}
	deliveryID = strings.ToLower(deliveryID) // ids are case-insensitive, as the service's are
	var del Delivery
	var payload []byte
	err := d.s.DB.QueryRowContext(ctx, `SELECT id, kind, webhook_id, merchant_code, is_test, url, event, subject_id, payload, status
		FROM deliveries WHERE id = ?`, deliveryID).Scan(&del.ID, &del.Kind, &del.WebhookID, &del.MerchantCode, &del.IsTest,
		&del.URL, &del.Event, &del.SubjectID, &payload, &del.Status)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoSuchDelivery
	}
	if err != nil {
		return nil, err
	}
	del.Payload = payload
	hook, err := GetHook(ctx, d.s.DB, del.Kind, del.MerchantCode, del.IsTest, del.WebhookID)
	if errors.Is(err, ErrHookNotFound) {
		return nil, &edge.Refusal{Status: 409, ErrorType: "conflict",
			Message: fmt.Sprintf("the %s webhook %s of this delivery was removed; nothing to send it to", del.Kind, del.WebhookID)}
	}
	if err != nil {
		return nil, err
	}
	// To the URL as registered now, judged by the rules now.
	del.URL = hook.URL
	start := time.Now()
	var status int
	var sendErr error
	if _, urlErr := d.CheckWebhookURL(ctx, hook.URL, false); urlErr != nil {
		sendErr = errors.New("the URL no longer passes the rules: " + urlErr.Error())
	} else {
		status, sendErr = d.post(&del, hook.Header)
	}
	latency := time.Since(start)
	n := d.recordAttempt(del.ID, start, status, sendErr, latency, true, del.URL, "")
	del.HTTPStatus, del.Error, del.UpdatedAt, del.Attempts = status, "", time.Now().UTC(), n
	switch {
	case sendErr == nil && status == http.StatusOK:
		del.Status = DeliveryDelivered
	case sendErr != nil:
		del.Error = sendErr.Error()
	default:
		del.Error = fmt.Sprintf("answered %d, want 200", status)
	}
	if err := d.saveResend(ctx, &del); err != nil {
		return nil, err
	}
	d.report(&del)
	a, err := scanAttempt(d.s.DB.QueryRowContext(ctx, `SELECT `+attemptColumns+` FROM delivery_attempts a
		JOIN deliveries d ON d.id = a.delivery_id WHERE a.delivery_id = ? AND a.attempt = ?`, del.ID, n))
	if err != nil {
		return nil, fmt.Errorf("the resend of delivery %s was sent but could not be read back: %w", del.ID, err)
	}
	return &a, nil
}
