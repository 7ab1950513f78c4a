package sandbox

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/fixture"
	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/sandbox/service"
)

// Seeding. A fixture is all or nothing, against everything else that
// holds the state: one seed at a time per state (the seed lease, across
// processes), and under it the check that none of the file's ids or
// webhooks is in the state, a run against a scratch sandbox in memory
// (same merchants, time and webhook rules), and only then the run against
// the state. Should the state refuse a move the scratch run took (its own
// failure, or a request of someone else's in between), what the run had
// made is taken back before the seed answers.

// SeedFixture applies a fixture file (name is what errors call it) to the
// state and answers its normalised form: every default filled in, as
// ExportFixture would write it. seed makes the ids the file leaves out
// reproducible (0: random). A *FixtureError names the file, line and field
// at fault; the state is then unchanged. A seed already under way on the
// state is waited for, at most seedWait, then refused (409, naming it).
func (s *Sandbox) SeedFixture(ctx context.Context, name string, data []byte, seed int64) (*fixture.Fixture, error) {
	if len(data) > fixture.MaxFileSize {
		return nil, &fixture.FixtureError{File: name, Msg: fmt.Sprintf("the file is larger than %d MiB", fixture.MaxFileSize>>20)}
	}
	doc, err := fixture.ParseFixture(name, data)
	if err != nil {
		return nil, err
	}
	release, err := s.lockSeeding(ctx, name)
	if err != nil {
		return nil, err
	}
	defer release()
	now, err := s.CurrentTime(ctx)
	if err != nil {
		return nil, err
	}
	plan, err := fixture.NewPlan(doc, now.Truncate(time.Millisecond), seed, s.Merchants())
	if err != nil {
		return nil, err
	}
	if err := s.fixtureCollisions(ctx, doc); err != nil {
		return nil, err
	}
	if err := s.scratchRun(ctx, plan, now); err != nil {
		return nil, err
	}
	// The scratch run normalised the webhooks' URLs as the service does,
	// so they compare with the state's as its own uniqueness check would.
	if err := s.fixtureHookCollisions(ctx, doc); err != nil {
		return nil, err
	}
	// Once the scratch run passed, the file goes in whole even if the
	// client stops waiting: a half-seeded state helps no one.
	if err := plan.Run(context.WithoutCancel(ctx), newFixtureTarget(s)); err != nil {
		return nil, s.takeBack(plan.IDs(), err)
	}
	return plan.Fixture(), nil
}

// scratchRun applies the plan to a sandbox in memory with the state's
// merchants, clock reading and webhook rules, so that what the state
// would refuse is found before anything of the file is in it.
func (s *Sandbox) scratchRun(ctx context.Context, plan *fixture.Plan, now time.Time) error {
	rules := s.DeliveryRules()
	scratch, err := New(Options{Merchants: s.Merchants(), Clock: NewFakeClock(now), AuthExpiry: s.AuthExpiry, NoRequestLog: true,
		AllowLocalWebhooks: rules.AllowLocalWebhooks, ResolveHosts: rules.ResolveHosts, Resolver: s.Outbox.Resolver()})
	if err != nil {
		return err
	}
	defer scratch.Close()
	return plan.Run(ctx, newFixtureTarget(scratch))
}

// takeBack removes what a seed that failed half-way had made, and says so:
// a conflict when the state is as before (nothing of the file is in it),
// an error naming what may be left when even that failed.
func (s *Sandbox) takeBack(ids fixture.IDs, cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.forgetFixture(ctx, ids); err != nil {
		return fmt.Errorf("the fixture applied to a scratch sandbox but not to this one, and what it had made could not be taken back (%v), so the sandbox may hold part of it: reset it (bnpl sandbox reset): %w", err, cause)
	}
	return &edge.Refusal{Status: http.StatusConflict, ErrorType: "conflict",
		Message: fmt.Sprintf("%v; it applied to a scratch sandbox but not to this one, whose state changed under it, so what it had made was taken back: nothing of the file is in the sandbox", cause)}
}

// forgetFixture deletes, in one transaction, the payments, disputes and
// webhooks of a seed and the notifications they caused.
func (s *Sandbox) forgetFixture(ctx context.Context, ids fixture.IDs) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	subjects := append(append([]string{}, ids.Payments...), ids.Disputes...)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries
			WHERE subject_id IN (SELECT value FROM json_each(?)) OR webhook_id IN (SELECT value FROM json_each(?)))`, []any{jsonList(subjects), jsonList(ids.Webhooks)}},
		{`DELETE FROM deliveries WHERE subject_id IN (SELECT value FROM json_each(?)) OR webhook_id IN (SELECT value FROM json_each(?))`, []any{jsonList(subjects), jsonList(ids.Webhooks)}},
		{`DELETE FROM disputes WHERE id IN (SELECT value FROM json_each(?))`, []any{jsonList(ids.Disputes)}},
		{`DELETE FROM webhooks WHERE id IN (SELECT value FROM json_each(?))`, []any{jsonList(ids.Webhooks)}},
		{`DELETE FROM payments WHERE id IN (SELECT value FROM json_each(?))`, []any{jsonList(ids.Payments)}},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// fixtureCollisions refuses ids the state already holds.
func (s *Sandbox) fixtureCollisions(ctx context.Context, doc *fixture.Doc) error {
	const held = "%s is already in the sandbox: reset it first (bnpl sandbox reset), or leave the id out"
	for i, p := range doc.Fixture.Payments {
		for _, f := range []struct{ field, id string }{{"id", p.ID}, {"session_id", p.SessionID}} {
			if _, err := s.ResolvePaymentID(ctx, f.id); err == nil {
				return doc.Fail(fmt.Sprintf("payments[%d].%s", i, f.field), held, f.id)
			}
		}
		for k, d := range p.Disputes {
			if _, err := service.LoadDispute(ctx, s.DB, d.ID, ""); err == nil {
				return doc.Fail(fmt.Sprintf("payments[%d].disputes[%d].id", i, k), held, d.ID)
			}
		}
	}
	for i, w := range doc.Fixture.Webhooks {
		var n int
		if err := s.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhooks WHERE id = ?`, w.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return doc.Fail(fmt.Sprintf("webhooks[%d].id", i), held, w.ID)
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
