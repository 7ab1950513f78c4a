package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/fixture"
	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/sandbox/service"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/google/uuid"
)

// Applying a fixture. Every payment is built by the requests a merchant and
// its customer would make (checkout, the /_sandbox customer moves,
// captures, close, expire-auth, refunds, disputes), sent to the sandbox's
// own handlers with the clock pinned at the file's date of each move and
// the ids the file gives; so a fixture can only make states the service can
// reach, and each refusal names the move's line. All or nothing: the file
// is first applied to a scratch sandbox in memory (same merchants, same
// time) and only then to the state, which is checked first for ids it
// already holds.
//
// It reaches the rest of the sandbox through routes (its requests), now,
// Merchants, resolvePaymentID, loadDispute and the webhooks table (ids in
// use), and newID/now's fixture step (fixtureids.go).

// fixtureStep is one request of the plan, run at its date.
type fixtureStep struct {
	at   time.Time
	rank int    // order of moves at the same instant
	path string // the field a refusal names
	ids  []string
	run  func(ctx context.Context, s *Sandbox) error
}

// Ranks: at one instant, moves run in the order a payment can take them.
const (
	rankCreate = iota
	rankCheckout
	rankCapture
	rankExpireAuth
	rankClose
	rankRefund
	rankDisputeOpen
	rankDisputeResolve
)

// fixturePlan is a normalised fixture and the requests that build it.
type fixturePlan struct {
	doc      *fixture.Doc
	payments [][]fixtureStep // per payment, in date order
	checks   []func(ctx context.Context, s *Sandbox) error
	webhooks []fixtureStep
}

// SeedFixture applies a fixture file (name is what errors call it) to the
// state and answers its normalised form: every default filled in, as
// ExportFixture would write it. seed makes the ids the file leaves out
// reproducible (0: random). A *FixtureError names the file, line and field
// at fault; the state is then unchanged.
func (s *Sandbox) SeedFixture(ctx context.Context, name string, data []byte, seed int64) (*fixture.Fixture, error) {
	if len(data) > fixture.MaxFileSize {
		return nil, &fixture.FixtureError{File: name, Msg: fmt.Sprintf("the file is larger than %d MiB", fixture.MaxFileSize>>20)}
	}
	doc, err := fixture.ParseFixture(name, data)
	if err != nil {
		return nil, err
	}
	now, err := s.CurrentTime(ctx)
	if err != nil {
		return nil, err
	}
	plan, err := s.planFixture(doc, now.Truncate(time.Millisecond), seed)
	if err != nil {
		return nil, err
	}
	if err := s.fixtureCollisions(ctx, doc); err != nil {
		return nil, err
	}
	scratch, err := New(Options{Merchants: s.Merchants(), Clock: NewFakeClock(now), AuthExpiry: s.AuthExpiry, NoRequestLog: true})
	if err != nil {
		return nil, err
	}
	err = plan.run(ctx, scratch)
	scratch.Close()
	if err != nil {
		return nil, err
	}
	// The scratch run normalised the webhooks' URLs as the service does,
	// so they compare with the state's as its own uniqueness check would.
	if err := s.fixtureHookCollisions(ctx, doc); err != nil {
		return nil, err
	}
	// Once the scratch run passed, the file goes in whole even if the
	// client stops waiting: a half-seeded state helps no one.
	if err := plan.run(context.WithoutCancel(ctx), s); err != nil {
		return nil, fmt.Errorf("the fixture applied to a scratch sandbox but not to this one, which may now hold part of it: %w", err)
	}
	return &doc.Fixture, nil
}

func (p *fixturePlan) run(ctx context.Context, s *Sandbox) error {
	ctx = withFixtureHandlers(ctx, s)
	for i, steps := range p.payments {
		for _, st := range steps {
			if err := st.run(store.WithPinnedStep(ctx, st.at, st.ids...), s); err != nil {
				var fr *fixtureRefusal
				if errors.As(err, &fr) && st.rank == rankCreate && strings.HasPrefix(fr.field, "$.payment.") {
					// The checkout's fields are the fixture's, by name.
					return p.doc.Fail(st.path+"."+strings.TrimPrefix(fr.field, "$.payment."), "%s", fr.msg)
				}
				return p.doc.Fail(st.path, "%v", err)
			}
		}
		if err := p.checks[i](ctx, s); err != nil {
			return err
		}
	}
	for _, st := range p.webhooks {
		if err := st.run(store.WithPinnedStep(ctx, st.at, st.ids...), s); err != nil {
			return p.doc.Fail(st.path, "%v", err)
		}
	}
	return nil
}

// fixtureCollisions refuses ids the state already holds.
func (s *Sandbox) fixtureCollisions(ctx context.Context, doc *fixture.Doc) error {
	for i, p := range doc.Fixture.Payments {
		for _, f := range []struct{ field, id string }{{"id", p.ID}, {"session_id", p.SessionID}} {
			if _, err := s.ResolvePaymentID(ctx, f.id); err == nil {
				return doc.Fail(fmt.Sprintf("payments[%d].%s", i, f.field), "%s is already in the sandbox: reset it first (bnpl sandbox reset), or leave the id out", f.id)
			}
		}
		for k, d := range p.Disputes {
			if _, err := service.LoadDispute(ctx, s.DB, d.ID, ""); err == nil {
				return doc.Fail(fmt.Sprintf("payments[%d].disputes[%d].id", i, k), "%s is already in the sandbox: reset it first (bnpl sandbox reset), or leave the id out", d.ID)
			}
		}
	}
	for i, w := range doc.Fixture.Webhooks {
		var n int
		if err := s.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhooks WHERE id = ?`, w.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return doc.Fail(fmt.Sprintf("webhooks[%d].id", i), "%s is already in the sandbox: reset it first (bnpl sandbox reset), or leave the id out", w.ID)
		}
	}
	return nil
}

// fixtureHookCollisions refuses a webhook whose URL the state already holds
// for its merchant and mode, or more webhooks than a merchant's mode may
// have, before anything of the file goes in: the service would refuse the
// webhook after the file's payments were made.
func (s *Sandbox) fixtureHookCollisions(ctx context.Context, doc *fixture.Doc) error {
	type slot struct {
		merchant string
		test     bool
	}
	held := map[slot][]*outbox.HookRow{}
	for i, w := range doc.Fixture.Webhooks {
		k := slot{w.Merchant, *w.Test}
		hooks, ok := held[k]
		if !ok {
			var err error
			if hooks, err = outbox.ListHooks(ctx, s.DB, outbox.HookKindPayment, k.merchant, k.test); err != nil {
				return err
			}
		}
		for _, h := range hooks {
			if h.URL == w.URL {
				return doc.Fail(fmt.Sprintf("webhooks[%d].url", i), "%s is already a webhook of %s in the sandbox (id %s): reset it first (bnpl sandbox reset), or leave this webhook out", w.URL, k.merchant, h.ID)
			}
		}
		if len(hooks) >= outbox.MaxPaymentWebhooks {
			return doc.Fail(fmt.Sprintf("webhooks[%d]", i), "%s already has %d webhooks in the sandbox, the most a merchant may have: reset it first (bnpl sandbox reset), or leave webhooks out", k.merchant, outbox.MaxPaymentWebhooks)
		}
		held[k] = append(hooks, &outbox.HookRow{ID: w.ID, URL: w.URL})
	}
	return nil
}

// fixtureNorm fills in a fixture's defaults and checks its values.
type fixtureNorm struct {
	doc       *fixture.Doc
	now       time.Time
	rng       *store.IDSource
	merchants []Merchant
	seen      map[string]string // id -> path of its first use
}

func (s *Sandbox) planFixture(doc *fixture.Doc, now time.Time, seed int64) (*fixturePlan, error) {
	n := &fixtureNorm{doc: doc, now: now, rng: store.NewIDSource(seed), merchants: s.Merchants(), seen: map[string]string{}}
	if seed == 0 {
		n.rng = store.NewRandomIDSource()
	}
	plan := &fixturePlan{doc: doc}
	if doc.Fixture.Payments == nil {
		doc.Fixture.Payments = []fixture.FixturePayment{}
	}
	for i := range doc.Fixture.Payments {
		steps, check, err := n.payment(i)
		if err != nil {
			return nil, err
		}
		plan.payments = append(plan.payments, steps)
		plan.checks = append(plan.checks, check)
	}
	for i := range doc.Fixture.Webhooks {
		st, err := n.webhook(i)
		if err != nil {
			return nil, err
		}
		plan.webhooks = append(plan.webhooks, st)
	}
	return plan, nil
}

// id checks an id the file gives (a UUID, used once) or makes one.
func (n *fixtureNorm) id(v *string, path string) error {
	if *v == "" {
		*v = n.rng.Next()
	} else {
		u, err := uuid.Parse(*v)
		if err != nil || len(*v) != 36 {
			return n.doc.Fail(path, "%q is not a UUID (such as 3fa85f64-5717-4562-b3fc-2c963f66afa6); leave it out to have one made", *v)
		}
		*v = u.String()
	}
	if first, dup := n.seen[*v]; dup {
		return n.doc.Fail(path, "%s is used twice (first at %s)", *v, first)
	}
	n.seen[*v] = path
	return nil
}

// date reads a date of the file: RFC 3339, "now", or "now-DURATION"
// (now-90m, now-3d) before the sandbox's clock; "" is def.
func (n *fixtureNorm) date(v *string, path string, def time.Time, notBefore time.Time) (time.Time, error) {
	t := def
	switch raw := strings.TrimSpace(*v); {
	case raw == "":
	case raw == "now":
		t = n.now
	case strings.HasPrefix(raw, "now-"):
		d, err := store.ParseDuration(strings.TrimPrefix(raw, "now-"))
		if err != nil || d < 0 {
			return t, n.doc.Fail(path, "%q: want now-DURATION such as now-90m or now-3d", raw)
		}
		t = n.now.Add(-d)
	default:
		p, err := time.Parse(time.RFC3339Nano, raw)
		if err != nil {
			return t, n.doc.Fail(path, "%q is not a date: want RFC 3339 (2026-11-20T10:00:00Z), now, or now-DURATION (now-2h, now-3d)", raw)
		}
		t = p
	}
	t = t.UTC()
	if t.After(n.now) {
		return t, n.doc.Fail(path, "%s is after the sandbox's clock (%s): fixtures record the past; advance the clock first (bnpl sandbox clock --advance DURATION)", fixtureTime(t), fixtureTime(n.now))
	}
	if t.Before(notBefore) {
		return t, n.doc.Fail(path, "%s is before the move it follows (%s)", fixtureTime(t), fixtureTime(notBefore))
	}
	*v = fixtureTime(t)
	return t, nil
}

func fixtureTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func (n *fixtureNorm) merchant(code *string, test **bool, path string) (*Merchant, string, error) {
	if len(n.merchants) == 0 {
		return nil, "", n.doc.Fail(path, "this sandbox has no merchants")
	}
	if *code == "" {
		*code = n.merchants[0].Code
		for _, m := range n.merchants {
			if m.Code == "ae-sandbox" {
				*code = m.Code
			}
		}
	}
	var m *Merchant
	var codes []string
	for i := range n.merchants {
		codes = append(codes, n.merchants[i].Code)
		if n.merchants[i].Code == *code {
			m = &n.merchants[i]
		}
	}
	if m == nil {
		return nil, "", n.doc.Fail(path+".merchant", "no merchant %q in this sandbox; it has %s", *code, strings.Join(codes, ", "))
	}
	if *test == nil {
		t := true
		*test = &t
	}
	key := m.LiveKey
	if **test {
		key = m.TestKey
	}
	if key == "" {
		mode := "live"
		if **test {
			mode = "test"
		}
		return nil, "", n.doc.Fail(path+".test", "merchant %s has no %s key", m.Code, mode)
	}
	return m, key, nil
}

// amount checks an amount in the payment's currency and writes it with the
// currency's places.
func (n *fixtureNorm) amount(v *string, currency, path string, zeroOK bool) error {
	d, why := service.ParseAmount(strings.TrimSpace(*v), currency)
	switch {
	case strings.TrimSpace(*v) == "":
		why = "is required"
	case why == "" && d.IsNegative(), why == "" && !zeroOK && d.IsZero():
		why = "must be positive"
	}
	if why != "" {
		return n.doc.Fail(path, "%q: %s", *v, why)
	}
	*v = money.Format(d, currency)
	return nil
}

func (n *fixtureNorm) payment(i int) ([]fixtureStep, func(context.Context, *Sandbox) error, error) {
	p := &n.doc.Fixture.Payments[i]
	path := fmt.Sprintf("payments[%d]", i)
	m, key, err := n.merchant(&p.Merchant, &p.Test, path)
	if err != nil {
		return nil, nil, err
	}
	if err := n.id(&p.ID, path+".id"); err != nil {
		return nil, nil, err
	}
	if err := n.id(&p.SessionID, path+".session_id"); err != nil {
		return nil, nil, err
	}
	if p.Currency == "" {
		p.Currency = m.Currency
	}
	if p.Currency = strings.ToUpper(p.Currency); p.Currency != m.Currency {
		return nil, nil, n.doc.Fail(path+".currency", "%s is not the currency of merchant %s (%s)", p.Currency, m.Code, m.Currency)
	}
	if err := n.amount(&p.Amount, p.Currency, path+".amount", false); err != nil {
		return nil, nil, err
	}
	created, err := n.date(&p.CreatedAt, path+".created_at", n.now, time.Time{})
	if err != nil {
		return nil, nil, err
	}
	// The sandbox keeps a checkout's time to the millisecond.
	created = created.Truncate(time.Millisecond)
	p.CreatedAt = fixtureTime(created)
	if err := n.checkoutDefaults(p, m, path); err != nil {
		return nil, nil, err
	}
	steps := []fixtureStep{{at: created, rank: rankCreate, path: path, ids: []string{p.ID, p.SessionID},
		run: func(ctx context.Context, s *Sandbox) error { return s.fixtureCheckout(ctx, m, key, p) }}}
	more, err := n.moves(p, path, created)
	if err != nil {
		return nil, nil, err
	}
	steps = append(steps, more...)
	sort.SliceStable(steps, func(a, b int) bool {
		if !steps[a].at.Equal(steps[b].at) {
			return steps[a].at.Before(steps[b].at)
		}
		return steps[a].rank < steps[b].rank
	})
	want := strings.ToUpper(strings.TrimSpace(p.Status))
	if want != "" && !slices.Contains([]string{wire.StatusCreated, wire.StatusAuthorized, wire.StatusClosed, wire.StatusRejected, wire.StatusExpired}, want) {
		return nil, nil, n.doc.Fail(path+".status", "%q is not a payment status: CREATED, AUTHORIZED, CLOSED, REJECTED or EXPIRED", p.Status)
	}
	check := func(ctx context.Context, s *Sandbox) error {
		var got wire.Payment
		if err := s.fixtureCall(ctx, m.Region, key, http.MethodGet, "/api/v2/payments/"+p.ID, nil, &got); err != nil {
			return n.doc.Fail(path, "%v", err)
		}
		if want != "" && got.Status != want {
			return n.doc.Fail(path+".status", "the moves of this payment leave it %s, not %s", got.Status, want)
		}
		p.Status = got.Status
		if p.Checkout == "approved" && got.Status == wire.StatusRejected {
			// The OTP-rejected test buyer: approving was a rejection,
			// which is how the state (and so export) tells it.
			p.Checkout, p.ApprovedAt = "rejected", ""
		}
		return nil
	}
	return steps, check, nil
}

// checkoutDefaults fills what a checkout needs and the file left out.
func (n *fixtureNorm) checkoutDefaults(p *fixture.FixturePayment, m *Merchant, path string) error {
	city, phone := "Dubai", "+971500000001"
	if m.Region == "sa" {
		city, phone = "Riyadh", "+966500000001"
	}
	if p.Buyer == nil {
		p.Buyer = &fixture.FixtureBuyer{}
	}
	if p.Buyer.Name == "" {
		p.Buyer.Name = "Fixture Buyer"
	}
	if p.Buyer.Email == "" {
		p.Buyer.Email = "otp.success@tabby.ai"
	}
	if p.Buyer.Phone == "" {
		p.Buyer.Phone = phone
	}
	if p.ShippingAddress == nil {
		p.ShippingAddress = &fixture.FixtureShippingAddress{City: city}
	}
	if p.Order == nil {
		p.Order = &fixture.FixtureOrder{}
	}
	if len(p.Order.Items) == 0 {
		title := p.Description
		if title == "" {
			title = "Item"
		}
		p.Order.Items = []fixture.FixtureItem{{Title: title, Quantity: 1, UnitPrice: p.Amount, Category: "general"}}
	}
	for k := range p.Order.Items {
		it := &p.Order.Items[k]
		ip := fmt.Sprintf("%s.order.items[%d]", path, k)
		if it.Quantity == 0 {
			it.Quantity = 1
		}
		if it.Quantity < 0 {
			return n.doc.Fail(ip+".quantity", "must be positive")
		}
		if it.Category == "" {
			it.Category = "general"
		}
		if strings.TrimSpace(it.Title) == "" {
			return n.doc.Fail(ip+".title", "is required")
		}
		if err := n.amount(&it.UnitPrice, p.Currency, ip+".unit_price", true); err != nil {
			return err
		}
	}
	return nil
}

// moves plans the payment's moves after its checkout. A date left out is
// the date of the move before it.
func (n *fixtureNorm) moves(p *fixture.FixturePayment, path string, created time.Time) ([]fixtureStep, error) {
	var steps []fixtureStep
	last := created
	add := func(at time.Time, rank int, field string, ids []string, run func(context.Context, *Sandbox) error) {
		steps = append(steps, fixtureStep{at: at, rank: rank, path: field, ids: ids, run: run})
	}
	st, err := n.checkout(p, path, created)
	if err != nil {
		return nil, err
	}
	if st != nil {
		steps = append(steps, *st)
		last = st.at
	}
	for k := range p.Captures {
		c := &p.Captures[k]
		cp := fmt.Sprintf("%s.captures[%d]", path, k)
		if c.Reason != "" {
			return nil, n.doc.Fail(cp+".reason", "a capture has no reason")
		}
		if err := n.move(c, p.Currency, cp); err != nil {
			return nil, err
		}
		at, err := n.date(&c.At, cp+".at", last, created)
		if err != nil {
			return nil, err
		}
		last = at
		body := map[string]any{"amount": c.Amount, "reference_id": c.ReferenceID}
		add(at, rankCapture, cp+".amount", []string{c.ID}, paymentPost(p, "/captures", body))
	}
	if p.AuthExpiredAt != "" {
		at, err := n.date(&p.AuthExpiredAt, path+".auth_expired_at", last, created)
		if err != nil {
			return nil, err
		}
		add(at, rankExpireAuth, path+".auth_expired_at", nil, func(ctx context.Context, s *Sandbox) error {
			return s.fixtureControl(ctx, "/_sandbox/payments/"+p.ID+"/expire-auth", nil, nil)
		})
	}
	if p.ClosedAt != "" {
		at, err := n.date(&p.ClosedAt, path+".closed_at", last, created)
		if err != nil {
			return nil, err
		}
		last = at
		add(at, rankClose, path+".closed_at", nil, paymentPost(p, "/close", nil))
	}
	for k := range p.Refunds {
		r := &p.Refunds[k]
		rp := fmt.Sprintf("%s.refunds[%d]", path, k)
		if err := n.move(r, p.Currency, rp); err != nil {
			return nil, err
		}
		at, err := n.date(&r.At, rp+".at", last, created)
		if err != nil {
			return nil, err
		}
		last = at
		body := map[string]any{"amount": r.Amount, "reference_id": r.ReferenceID, "reason": r.Reason}
		add(at, rankRefund, rp+".amount", []string{r.ID}, paymentPost(p, "/refunds", body))
	}
	for k := range p.Disputes {
		more, err := n.dispute(p, k, path, last, created)
		if err != nil {
			return nil, err
		}
		steps = append(steps, more...)
	}
	return steps, nil
}

// checkout plans the customer's move at checkout, nil when the checkout
// stays open. It is approved when the file gives any later move.
func (n *fixtureNorm) checkout(p *fixture.FixturePayment, path string, created time.Time) (*fixtureStep, error) {
	p.Checkout = strings.ToLower(strings.TrimSpace(p.Checkout))
	if p.Checkout == "" && (p.ApprovedAt != "" || len(p.Captures) > 0 || p.ClosedAt != "" || p.AuthExpiredAt != "" || len(p.Refunds) > 0 || len(p.Disputes) > 0) {
		p.Checkout = "approved"
	}
	verb, ok := map[string]string{"approved": "approve", "rejected": "reject", "cancelled": "cancel", "": ""}[p.Checkout]
	if !ok {
		return nil, n.doc.Fail(path+".checkout", "%q: want approved, rejected or cancelled (or leave it out: the checkout stays open)", p.Checkout)
	}
	if p.ApprovedAt != "" && p.Checkout != "approved" {
		return nil, n.doc.Fail(path+".approved_at", "only an approved checkout has approved_at")
	}
	if verb == "" {
		return nil, nil
	}
	at := created
	if p.Checkout == "approved" {
		t, err := n.date(&p.ApprovedAt, path+".approved_at", created, created)
		if err != nil {
			return nil, err
		}
		at = t
	}
	field := path + ".checkout"
	if _, given := n.doc.Lines[field]; !given && p.ApprovedAt != "" {
		field = path + ".approved_at" // the checkout was implied by it
	}
	return &fixtureStep{at: at, rank: rankCheckout, path: field, run: func(ctx context.Context, s *Sandbox) error {
		return s.fixtureControl(ctx, "/_sandbox/payments/"+p.ID+"/"+verb, nil, nil)
	}}, nil
}

// paymentPost is a step that posts to one of the payment's API paths with its
// merchant's key.
func paymentPost(p *fixture.FixturePayment, suffix string, body any) func(context.Context, *Sandbox) error {
	return func(ctx context.Context, s *Sandbox) error {
		m := s.MerchantsByCode[p.Merchant]
		key := m.LiveKey
		if *p.Test {
			key = m.TestKey
		}
		return s.fixtureCall(ctx, m.Region, key, http.MethodPost, "/api/v2/payments/"+p.ID+suffix, body, nil)
	}
}

func (n *fixtureNorm) move(mv *fixture.FixtureMove, currency, path string) error {
	if err := n.id(&mv.ID, path+".id"); err != nil {
		return err
	}
	return n.amount(&mv.Amount, currency, path+".amount", false)
}

func (n *fixtureNorm) dispute(p *fixture.FixturePayment, k int, path string, last, created time.Time) ([]fixtureStep, error) {
	d := &p.Disputes[k]
	dp := fmt.Sprintf("%s.disputes[%d]", path, k)
	if err := n.id(&d.ID, dp+".id"); err != nil {
		return nil, err
	}
	if d.Reason == "" {
		d.Reason = "product_issue"
	}
	if !slices.Contains(wire.DisputeReasons, d.Reason) {
		return nil, n.doc.Fail(dp+".reason", "%q: want one of %s", d.Reason, strings.Join(wire.DisputeReasons, ", "))
	}
	if d.Status == "" {
		d.Status = service.StatusNew
	}
	if !slices.Contains(wire.DisputeStatuses, d.Status) {
		return nil, n.doc.Fail(dp+".status", "%q: want one of %s", d.Status, strings.Join(wire.DisputeStatuses, ", "))
	}
	body := map[string]any{"reason": d.Reason}
	if d.Amount != "" {
		if err := n.amount(&d.Amount, p.Currency, dp+".amount", false); err != nil {
			return nil, err
		}
		body["amount"] = d.Amount
	}
	opened, err := n.date(&d.OpenedAt, dp+".opened_at", last, created)
	if err != nil {
		return nil, err
	}
	steps := []fixtureStep{{at: opened, rank: rankDisputeOpen, path: dp, ids: []string{d.ID},
		run: func(ctx context.Context, s *Sandbox) error {
			var got wire.Dispute
			if err := s.fixtureControl(ctx, "/_sandbox/payments/"+p.ID+"/dispute", body, &got); err != nil {
				return err
			}
			d.Amount = money.Format(got.Amount, p.Currency)
			return nil
		}}}
	if d.Status == service.StatusNew {
		if d.ResolvedAt != "" || d.RefundID != "" {
			return nil, n.doc.Fail(dp+".resolved_at", "a new dispute has no resolved_at or refund_id")
		}
		return steps, nil
	}
	if d.Status == service.StatusRefunded {
		if err := n.id(&d.RefundID, dp+".refund_id"); err != nil {
			return nil, err
		}
	} else if d.RefundID != "" {
		return nil, n.doc.Fail(dp+".refund_id", "only a refunded dispute has a refund")
	}
	resolved, err := n.date(&d.ResolvedAt, dp+".resolved_at", opened, opened)
	if err != nil {
		return nil, err
	}
	status := d.Status
	steps = append(steps, fixtureStep{at: resolved, rank: rankDisputeResolve, path: dp + ".status", ids: []string{d.RefundID},
		run: func(ctx context.Context, s *Sandbox) error {
			return s.fixtureControl(ctx, "/_sandbox/disputes/"+d.ID+"/resolve?status="+url.QueryEscape(status), nil, nil)
		}})
	return steps, nil
}

func (n *fixtureNorm) webhook(i int) (fixtureStep, error) {
	w := &n.doc.Fixture.Webhooks[i]
	path := fmt.Sprintf("webhooks[%d]", i)
	m, key, err := n.merchant(&w.Merchant, &w.Test, path)
	if err != nil {
		return fixtureStep{}, err
	}
	if err := n.id(&w.ID, path+".id"); err != nil {
		return fixtureStep{}, err
	}
	if strings.TrimSpace(w.URL) == "" {
		return fixtureStep{}, n.doc.Fail(path+".url", "is required")
	}
	return fixtureStep{at: n.now, path: path + ".url", ids: []string{w.ID},
		run: func(ctx context.Context, s *Sandbox) error {
			var got struct {
				URL string `json:"url"`
			}
			if err := s.fixtureCall(ctx, m.Region, key, http.MethodPost, "/api/v1/webhooks", map[string]any{"url": w.URL, "is_test": *w.Test}, &got); err != nil {
				return err
			}
			w.URL = got.URL
			return nil
		}}, nil
}

// fixtureCheckout creates the payment's checkout as the merchant would.
func (s *Sandbox) fixtureCheckout(ctx context.Context, m *Merchant, key string, p *fixture.FixturePayment) error {
	items := make([]map[string]any, 0, len(p.Order.Items))
	for _, it := range p.Order.Items {
		item := map[string]any{"title": it.Title, "quantity": it.Quantity, "unit_price": it.UnitPrice, "category": it.Category}
		if it.ReferenceID != "" {
			item["reference_id"] = it.ReferenceID
		}
		items = append(items, item)
	}
	body := map[string]any{
		"merchant_code": m.Code,
		"lang":          "en",
		"payment": map[string]any{
			"amount": p.Amount, "currency": p.Currency, "description": p.Description,
			"buyer":            map[string]any{"name": p.Buyer.Name, "email": p.Buyer.Email, "phone": p.Buyer.Phone},
			"shipping_address": map[string]any{"city": p.ShippingAddress.City, "address": p.ShippingAddress.Address, "zip": p.ShippingAddress.Zip},
			"order":            map[string]any{"reference_id": p.Order.ReferenceID, "items": items},
			"buyer_history":    map[string]any{"registered_since": nil, "loyalty_level": 0},
			"order_history":    []any{},
		},
	}
	var got wire.CheckoutSession
	if err := s.fixtureCall(ctx, m.Region, key, http.MethodPost, "/api/v2/checkout", body, &got); err != nil {
		return err
	}
	return nil
}

// fixtureHandlers are the routes of each region without the middleware
// (faults, rate limit, request log, Host guard): a fixture's moves meet the
// state machine, not the chaos a served sandbox may have been asked for.
type fixtureHandlers struct {
	s  *Sandbox
	by map[string]http.Handler
}

type fixtureHandlersKey struct{}

func withFixtureHandlers(ctx context.Context, s *Sandbox) context.Context {
	h := &fixtureHandlers{s: s, by: map[string]http.Handler{}}
	for _, region := range []string{"ae", "sa"} {
		mux := http.NewServeMux()
		s.routes(mux, region)
		h.by[region] = mux
	}
	return context.WithValue(ctx, fixtureHandlersKey{}, h)
}

func fixtureHandler(ctx context.Context, s *Sandbox, region string) http.Handler {
	if h, ok := ctx.Value(fixtureHandlersKey{}).(*fixtureHandlers); ok && h.s == s {
		return h.by[region]
	}
	return s.Handler(region)
}

// fixtureRefusal is the service's field-validation answer: the field (a
// JSON path such as $.payment.order.reference_id) and its message.
type fixtureRefusal struct{ field, msg string }

func (e *fixtureRefusal) Error() string { return e.field + ": " + e.msg }

// fixtureControl posts to a /_sandbox control path (any region's handler
// serves them all).
func (s *Sandbox) fixtureControl(ctx context.Context, path string, body, out any) error {
	return s.fixtureCall(ctx, "ae", "", http.MethodPost, path, body, out)
}

// fixtureCall sends one request to the region's handler, in process, and
// answers the service's refusal as an error in its words.
func (s *Sandbox) fixtureCall(ctx context.Context, region, key, method, path string, body, out any) error {
	var rd io.Reader = http.NoBody
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1"+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.RemoteAddr = "127.0.0.1:0" // the control paths answer loopback only
	rec := httptest.NewRecorder()
	fixtureHandler(ctx, s, region).ServeHTTP(rec, req)
	resp := rec.Result()
	raw := rec.Body.Bytes()
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error  string            `json:"error"`
			Errors []edge.FieldError `json:"errors"`
		}
		_ = json.Unmarshal(raw, &e)
		if len(e.Errors) > 0 {
			f := e.Errors[0]
			return &fixtureRefusal{field: f.Field, msg: fmt.Sprintf("%s (the sandbox answered %d)", f.Message, resp.StatusCode)}
		}
		msg := e.Error
		if msg == "" {
			msg = strings.TrimSpace(string(raw))
		}
		return fmt.Errorf("%s (the sandbox answered %d)", msg, resp.StatusCode)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}
