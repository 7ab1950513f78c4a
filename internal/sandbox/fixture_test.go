package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/fixture"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/google/uuid"
)

func everyState(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../testdata/fixtures/every-state.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The example of docs/sandbox.md ("The format"), which names every field,
// seeds as written and reaches the status it states.
func TestFixtureFormatExampleOfTheDocsSeeds(t *testing.T) {
	doc, err := os.ReadFile("../../docs/sandbox.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "\n### The format\n")
	if !ok {
		t.Fatal(`docs/sandbox.md has no "### The format" section`)
	}
	_, rest, ok = strings.Cut(rest, "```yaml\n")
	block, _, closed := strings.Cut(rest, "\n```")
	if !ok || !closed {
		t.Fatal("the format section of docs/sandbox.md has no yaml block")
	}
	e := newEnv(t, Options{})
	got, err := e.sb.SeedFixture(context.Background(), "sandbox.md", []byte(block), 0)
	if err != nil {
		t.Fatalf("the format example does not seed: %v", err)
	}
	if len(got.Payments) != 1 || got.Payments[0].Status != "CLOSED" || len(got.Payments[0].Disputes) != 1 {
		t.Fatalf("seeded %+v", got.Payments)
	}
}

// The shipped fixture reaches every state, and the export of the seeded
// state is the fixture's normalised form.
func TestFixtureEveryStateSeedsAndExportsItsNormalisedForm(t *testing.T) {
	e := newEnv(t, Options{})
	ctx := context.Background()
	fx, err := e.sb.SeedFixture(ctx, "every-state.yaml", everyState(t), 7)
	if err != nil {
		t.Fatal(err)
	}
	want, err := MarshalFixture(fx, false)
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.sb.ExportFixture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := MarshalFixture(out, false)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("export differs from the normalised fixture:\n--- export\n%s\n--- normalised\n%s", got, want)
	}
	t.Logf("%s", got)
}

// Each payment of the shipped fixture reaches its state, read back through
// the API as a merchant would.
func TestFixtureEachState(t *testing.T) {
	e := newEnv(t, Options{})
	if _, err := e.sb.SeedFixture(context.Background(), "every-state.yaml", everyState(t), 0); err != nil {
		t.Fatal(err)
	}
	id := func(n int) string { return fmt.Sprintf("f1a7e000-0000-4000-8000-%012d", n) }
	cases := []struct {
		n                          int
		key, status                string
		captured, refunded         string
		authExpired, closedByClose bool
	}{
		{1, aeTest, wire.StatusCreated, "0", "0", false, false},
		{2, aeTest, wire.StatusAuthorized, "0", "0", false, false},
		{3, aeTest, wire.StatusAuthorized, "200", "0", false, false},
		{4, aeTest, wire.StatusClosed, "400", "0", false, false},
		{5, aeTest, wire.StatusClosed, "300", "100", false, false},
		{6, kwTest, wire.StatusClosed, "80", "80", false, false},
		{7, saTest, wire.StatusClosed, "350", "0", false, true},
		{8, aeTest, wire.StatusClosed, "0", "0", false, true},
		{9, aeTest, wire.StatusExpired, "0", "0", false, false},
		{10, aeTest, wire.StatusExpired, "0", "0", false, false},
		{11, aeTest, wire.StatusAuthorized, "0", "0", true, false},
		{12, aeTest, wire.StatusRejected, "0", "0", false, false},
		{13, aeTest, wire.StatusRejected, "0", "0", false, false},
	}
	for _, c := range cases {
		r := e.do(regionOfKey(c.key), "GET", "/api/v2/payments/"+id(c.n), c.key, nil)
		if r.status != 200 {
			t.Fatalf("payment %d: %d %s", c.n, r.status, r.body)
		}
		p := r.payment(t)
		if p.Status != c.status || p.Captured().String() != c.captured || p.Refunded().String() != c.refunded {
			t.Errorf("payment %d: %s captured %s refunded %s, want %s %s %s", c.n, p.Status, p.Captured(), p.Refunded(), c.status, c.captured, c.refunded)
		}
		if c.authExpired {
			// The authorization lapsed: a capture is refused as the service does.
			r := e.do("ae", "POST", "/api/v2/payments/"+id(c.n)+"/captures", c.key, map[string]any{"amount": "1.00"})
			wantError(t, r, 400, "bad_data", "could not capture: payment was already expired")
		}
	}
	// Disputes in each status the interface has, on live payments.
	mc := map[string]string{"X-Merchant-Code": "ae-sandbox"}
	for k, status := range wire.DisputeStatuses {
		r := e.doRaw("ae", "GET", "/api/v1/disputes/"+fmt.Sprintf("f1a7e000-0000-4000-8000-0000000d%04d", k), mergeAuth(mc, aeLive), nil)
		if d, _ := r.json(t)["dispute"].(map[string]any); r.status != 200 || d["status"] != status {
			t.Errorf("dispute %d: %d %s, want %s", k, r.status, r.body, status)
		}
	}
	refunded := e.do("ae", "GET", "/api/v2/payments/"+id(20), aeLive, nil).payment(t)
	if refunded.Refunded().String() != "200" {
		t.Errorf("the refunded dispute refunded %s, want 200", refunded.Refunded())
	}
}

func regionOfKey(key string) string {
	if strings.HasPrefix(key, "sk_test_sa") {
		return "sa"
	}
	return "ae"
}

func mergeAuth(h map[string]string, key string) map[string]string {
	out := map[string]string{"Authorization": "Bearer " + key}
	for k, v := range h {
		out[k] = v
	}
	return out
}

// Parse errors name the file, the line and the field.
func TestParseFixtureErrorsNameLineAndField(t *testing.T) {
	cases := []struct{ src, want string }{
		{"payments:\n  - amount: \"1\"\n    captures:\n      - amount: \"1\"\n        colour: red\n",
			"f.yaml:5: payments[0].captures[0].colour: unknown field; the fields here are id, amount, reference_id, reason, at"},
		{"payments:\n  - amount: \"1\"\n    captures: {amount: \"1\"}\n", "f.yaml:3: payments[0].captures: want a list"},
		{"payments:\n  - amount: [1, 2]\n", "f.yaml:2: payments[0].amount: want a single value, not a list or an object"},
		{"payments:\n  - amount: \"1\"\n    order:\n      items:\n        - quantity: two\n", "f.yaml:5: payments[0].order.items[0].quantity: \"two\" is not a whole number this field can hold"},
		{"payments:\n  - amount: \"1\"\n    order: {reference_id: X, items: [{title: Lamp, quantity: 9223372036854775808, unit_price: \"1\"}]}\n",
			"f.yaml:3: payments[0].order.items[0].quantity: \"9223372036854775808\" is not a whole number this field can hold (at most 9223372036854775807)"},
		{"{\"payments\": [{\"amount\": \"1\", \"test\": \"maybe\"}]}", "f.yaml:1: payments[0].test: \"maybe\": want true or false"},
		{"[1, 2]\n", "f.yaml:1: want an object with a \"payments\" list (and optionally \"webhooks\")"},
		{"", "f.yaml: the file is empty: want an object with a \"payments\" list"},
		{"payments:\n  - amount: \"1\n", "f.yaml:2: found unexpected end of stream"},
		{"{\"payments\": [{\"amount\": \"1\",\n \"nope\": 1}]}", "f.yaml:2: payments[0].nope: unknown field"},
	}
	for _, c := range cases {
		_, err := fixture.ParseFixture("f.yaml", []byte(c.src))
		var fe *fixture.FixtureError
		if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}

// A fixture the state machine refuses changes nothing, and its error
// names the move's line.
func TestSeedFixtureAllOrNothing(t *testing.T) {
	e := newEnv(t, Options{})
	ctx := context.Background()
	good := "payments:\n  - id: 0b0e0000-0000-4000-8000-000000000001\n    amount: \"50.00\"\n    order: {reference_id: G-1}\n"
	if _, err := e.sb.SeedFixture(ctx, "good.yaml", []byte(good), 0); err != nil {
		t.Fatal(err)
	}
	before := e.exported(ctx)
	bad := `payments:
  - amount: "100.00"
    order: {reference_id: A-1}
    captures: [{amount: "100.00"}]
  - amount: "100.00"
    order: {reference_id: A-2}
    captures:
      - amount: "40.00"
    closed_at: now
    refunds:
      - amount: "30.00"
      - amount: "20.00"
`
	_, err := e.sb.SeedFixture(ctx, "fixtures.yaml", []byte(bad), 0)
	want := "fixtures.yaml:12: payments[1].refunds[1].amount: refund amount should be less or equal than billed amount"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v, want %s", err, want)
	}
	if after := e.exported(ctx); !bytes.Equal(after, before) {
		t.Fatalf("the refused fixture changed the state:\n%s\n---\n%s", before, after)
	}
	// An id already in the state is refused before anything is applied.
	_, err = e.sb.SeedFixture(ctx, "again.yaml", []byte(good), 0)
	if err == nil || !strings.HasPrefix(err.Error(), "again.yaml:2: payments[0].id: 0b0e0000-0000-4000-8000-000000000001 is already in the sandbox") {
		t.Fatalf("got %v", err)
	}
}

// A webhook URL the state already holds for the merchant, or one webhook
// too many, is refused before the file's payments go in: the state is left
// as it was.
func TestSeedFixtureWebhookCollisions(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, Options{})
	first := "webhooks:\n  - url: https://shop.example.com/hooks\n"
	if _, err := e.sb.SeedFixture(ctx, "first.yaml", []byte(first), 0); err != nil {
		t.Fatal(err)
	}
	before := e.exported(ctx)
	cases := []struct{ src, want string }{
		{"payments:\n  - amount: \"10\"\n    order: {reference_id: X}\nwebhooks:\n  - url: https://shop.example.com/hooks\n",
			"again.yaml:5: webhooks[0].url: https://shop.example.com/hooks is already a webhook of ae-sandbox in the sandbox"},
		{"payments:\n  - amount: \"10\"\n    order: {reference_id: X}\nwebhooks:\n" +
			"  - url: https://shop.example.com/1\n  - url: https://shop.example.com/2\n  - url: https://shop.example.com/3\n" +
			"  - url: https://shop.example.com/4\n  - url: https://shop.example.com/5\n",
			"again.yaml:9: webhooks[4]: ae-sandbox already has 5 webhooks in the sandbox"},
	}
	for _, c := range cases {
		_, err := e.sb.SeedFixture(ctx, "again.yaml", []byte(c.src), 0)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("got %v\nwant %s", err, c.want)
		}
		if after := e.exported(ctx); !bytes.Equal(after, before) {
			t.Errorf("the refused fixture changed the state:\n%s\n---\n%s", before, after)
		}
	}
	// Live webhooks are another merchant mode's: the same URL goes in.
	live := "webhooks:\n  - url: https://shop.example.com/hooks\n    test: false\n"
	if _, err := e.sb.SeedFixture(ctx, "live.yaml", []byte(live), 0); err != nil {
		t.Fatal(err)
	}
}

// exported is the sandbox's state as the fixture file export writes.
func (e *env) exported(ctx context.Context) []byte {
	e.t.Helper()
	fx, err := e.sb.ExportFixture(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	b, err := MarshalFixture(fx, false)
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

// Values the service would refuse, and dates out of order, name their
// field.
func TestSeedFixtureRefusals(t *testing.T) {
	cases := []struct{ src, want string }{
		{"payments:\n  - amount: \"1.005\"\n    order: {reference_id: X}\n", "f.yaml:2: payments[0].amount: \"1.005\": money supports only 2 decimal places"},
		{"payments:\n  - amount: \"10\"\n    merchant: nope\n", "f.yaml:3: payments[0].merchant: no merchant \"nope\" in this sandbox"},
		{"payments:\n  - amount: \"10\"\n    currency: SAR\n", "f.yaml:3: payments[0].currency: SAR is not the currency of merchant ae-sandbox (AED)"},
		{"payments:\n  - amount: \"10\"\n    created_at: 2999-01-01T00:00:00Z\n", "f.yaml:3: payments[0].created_at: 2999-01-01T00:00:00Z is after the sandbox's clock"},
		{"payments:\n  - amount: \"10\"\n    id: nope\n", "f.yaml:3: payments[0].id: \"nope\" is not a UUID"},
		{"payments:\n  - amount: \"10\"\n    order: {reference_id: X}\n    checkout: maybe\n", "f.yaml:4: payments[0].checkout: \"maybe\": want approved, rejected or cancelled"},
		{"payments:\n  - amount: \"10\"\n    order: {reference_id: X}\n    status: CLOSED\n", "f.yaml:4: payments[0].status: the moves of this payment leave it CREATED, not CLOSED"},
		{"payments:\n  - amount: \"10\"\n    order: {reference_id: X}\n    created_at: now-1h\n    approved_at: now\n", "f.yaml:5: payments[0].approved_at: only CREATED payments can be approved; this one is EXPIRED"},
		{"payments:\n  - amount: \"10\"\n    order: {reference_id: X}\n    created_at: now-1h\n    captures: [{amount: \"5\"}]\n    closed_at: now-30m\n    auth_expired_at: now-40m\n",
			"f.yaml:6: payments[0].closed_at: could not cancel payment: payment was already expired"},
		{"payments:\n  - amount: \"10\"\n    order: {reference_id: X}\n    test: false\n    captures: [{amount: \"10\"}]\n    disputes: [{status: refunded, refund_id: x}]\n", "f.yaml:6: payments[0].disputes[0].refund_id: \"x\" is not a UUID"},
	}
	for _, c := range cases {
		e := newEnv(t, Options{})
		_, err := e.sb.SeedFixture(context.Background(), "f.yaml", []byte(c.src), 0)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}

// Seeded, the state's generator gives the same ids on every run; unseeded
// they differ.
func TestIDSourceSeeded(t *testing.T) {
	a, b, c := store.NewIDSource(42), store.NewIDSource(42), store.NewIDSource(0)
	for i := 0; i < 5; i++ {
		x, y, z := a.Next(), b.Next(), c.Next()
		if x != y || x == z || !edge.ValidUUID(x) {
			t.Fatalf("%s %s %s", x, y, z)
		}
		if u, _ := uuid.Parse(x); u.Version() != 4 {
			t.Fatalf("%s is not a version-4 UUID", x)
		}
	}
	ids := func() []string {
		e := newEnv(t, Options{Seed: 9})
		s := e.createSession(checkoutBody("ae-sandbox", "AED", "100.00"), aeTest)
		return []string{s.ID, s.Payment.ID}
	}
	first, second := ids(), ids()
	if first[0] != second[0] || first[1] != second[1] {
		t.Fatalf("the same seed gave %v and %v", first, second)
	}
}

// A sandbox served with faults and the rate limit still seeds a fixture:
// its moves meet the state machine, not the chaos.
func TestSeedFixtureIgnoresFaultsAndRateLimit(t *testing.T) {
	spec, err := ParseFaultSpec("500-before=1")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{Faults: spec, Seed: 3, RateLimit: true})
	fx, err := e.sb.SeedFixture(context.Background(), "every-state.yaml", everyState(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(fx.Payments) != 20 {
		t.Fatalf("%d payments", len(fx.Payments))
	}
	// The API itself still fails as asked.
	r := e.do("ae", "GET", "/api/v2/payments/"+fx.Payments[0].ID, aeTest, nil)
	if r.status != 500 {
		t.Fatalf("the fault spec was not applied to the API: %d", r.status)
	}
}

// BenchmarkSeedFixture seeds the every-state fixture (20 payments, 58
// requests, applied twice: scratch then state) into a fresh in-memory
// sandbox per iteration.
func BenchmarkSeedFixture(b *testing.B) {
	data, err := os.ReadFile("../../testdata/fixtures/every-state.yaml")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		sb, err := New(Options{NoRequestLog: true})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := sb.SeedFixture(ctx, "every-state.yaml", data, 1); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		sb.Close()
		b.StartTimer()
	}
}

// BenchmarkExportFixture exports the every-state fixture's state.
func BenchmarkExportFixture(b *testing.B) {
	data, err := os.ReadFile("../../testdata/fixtures/every-state.yaml")
	if err != nil {
		b.Fatal(err)
	}
	sb, err := New(Options{NoRequestLog: true})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	ctx := context.Background()
	if _, err := sb.SeedFixture(ctx, "every-state.yaml", data, 1); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fx, err := sb.ExportFixture(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := MarshalFixture(fx, false); err != nil {
			b.Fatal(err)
		}
	}
}
