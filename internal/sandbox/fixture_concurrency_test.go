package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/fixture"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
)

// seedFile is a fixture of five payments: four of its own and one it
// shares with the files of the same shared group, so that seeds of those
// files overlap.
func seedFile(k, shared int) ([]byte, []string) {
	var b strings.Builder
	var own []string
	b.WriteString("payments:\n")
	for i := 0; i < 5; i++ {
		id := fmt.Sprintf("5eed%04x-0000-4000-8000-%012x", k, i)
		if i == 4 {
			id = fmt.Sprintf("5eedffff-0000-4000-8000-%012x", shared)
		} else {
			own = append(own, id)
		}
		fmt.Fprintf(&b, "  - id: %s\n    amount: \"100.00\"\n    order: {reference_id: F%d-%d}\n    captures: [{amount: \"40.00\"}]\n    closed_at: now\n    refunds: [{amount: \"10.00\"}]\n", id, k, i)
	}
	return []byte(b.String()), own
}

// Many seeds at once on one state, from two sandboxes sharing its file (as
// two processes would), with overlapping ids: each is wholly applied or
// wholly absent, and each refusal is the file's (an id already there),
// never a failure half-way.
func TestSeedFixtureConcurrentSeedsAreAllOrNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	a := newEnv(t, Options{StatePath: path})
	b := newEnv(t, Options{StatePath: path})
	const files = 12
	errs := make([]error, files)
	owns := make([][]string, files)
	var wg sync.WaitGroup
	for k := 0; k < files; k++ {
		data, own := seedFile(k, k%4)
		owns[k] = own
		sb := a.sb
		if k%2 == 1 {
			sb = b.sb
		}
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			_, errs[k] = sb.SeedFixture(context.Background(), fmt.Sprintf("f%d.yaml", k), data, 0)
		}(k)
	}
	wg.Wait()
	applied := map[int]bool{}
	for k, err := range errs {
		var fe *fixture.FixtureError
		switch {
		case err == nil:
			applied[k] = true
		case errors.As(err, &fe) && strings.Contains(err.Error(), "is already in the sandbox"):
		default:
			t.Errorf("seed %d: %v", k, err)
		}
		for _, id := range owns[k] {
			r := a.do("ae", "GET", "/api/v2/payments/"+id, aeTest, nil)
			switch {
			case applied[k] && (r.status != 200 || r.payment(t).Status != "CLOSED"):
				t.Errorf("seed %d applied, its payment %s reads %d %s", k, id, r.status, r.body)
			case !applied[k] && r.status != 404:
				t.Errorf("seed %d refused, its payment %s is there: %d", k, id, r.status)
			}
		}
	}
	// One seed per shared id went in.
	for group := 0; group < 4; group++ {
		n := 0
		for k := group; k < files; k += 4 {
			if applied[k] {
				n++
			}
		}
		if n != 1 {
			t.Errorf("group %d: %d seeds applied, want 1", group, n)
		}
	}
}

// A seed under way holds the state's seed lease: another process's seed
// waits for it, and one that waits too long is refused naming it (409),
// with nothing changed.
func TestSeedLeaseNamesItsHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	a := newEnv(t, Options{StatePath: path})
	ctx := context.Background()
	release, err := a.sb.lockSeeding(ctx, "first.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	b := newEnv(t, Options{StatePath: path})
	short, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := b.sb.lockSeeding(short, "second.yaml"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait: %v", err)
	}
	holder, ok, err := b.sb.TakeLease(ctx, seedLease, b.sb.newHolderForTest("second.yaml"), seedLeaseFor)
	if err != nil || ok {
		t.Fatalf("the lease was free to another process: %v %v", ok, err)
	}
	var r *edge.Refusal
	if err := seedBusy(holder); !errors.As(err, &r) || r.Status != http.StatusConflict ||
		!strings.Contains(r.Message, "seeding first.yaml") || !strings.Contains(r.Message, "nothing was changed") {
		t.Fatalf("refusal: %v", err)
	}
}

// A seed the state refuses half-way (its scratch run passed) is taken
// back: nothing of the file stays, and the answer says so (409, not a
// 500, not a partial state).
func TestSeedTakenBackWhenTheStateRefusesHalfWay(t *testing.T) {
	e := newEnv(t, Options{AllowLocalWebhooks: true})
	ctx := context.Background()
	if r := e.call("POST", "/api/v1/webhooks", aeTest, nil, map[string]any{"url": "http://127.0.0.1:9/hook", "is_test": true}); r.status != 200 {
		t.Fatalf("webhook: %d %s", r.status, r.body)
	}
	data, own := seedFile(1, 1)
	doc, err := fixture.ParseFixture("f.yaml", append(data, []byte("webhooks: [{url: \"https://shop.example.com/h\"}]\n")...))
	if err != nil {
		t.Fatal(err)
	}
	now, _ := e.sb.CurrentTime(ctx)
	plan, err := fixture.NewPlan(doc, now, 0, e.sb.Merchants())
	if err != nil {
		t.Fatal(err)
	}
	// The state refuses the 20th request: three payments are in by then.
	runErr := plan.Run(ctx, &failingTarget{Target: newFixtureTarget(e.sb), after: 20})
	if runErr == nil {
		t.Fatal("the failing target took the plan")
	}
	if r := e.do("ae", "GET", "/api/v2/payments/"+own[0], aeTest, nil); r.status != 200 {
		t.Fatalf("nothing was applied before the failure: %d", r.status)
	}
	err = e.sb.takeBack(plan.IDs(), runErr)
	var r *edge.Refusal
	if !errors.As(err, &r) || r.Status != http.StatusConflict || !strings.Contains(r.Message, "nothing of the file is in the sandbox") {
		t.Fatalf("take back: %v", err)
	}
	for _, id := range plan.IDs().Payments {
		if res := e.do("ae", "GET", "/api/v2/payments/"+id, aeTest, nil); res.status != 404 {
			t.Errorf("payment %s is still there: %d", id, res.status)
		}
	}
	var deliveries int
	if err := e.sb.DB.QueryRow(`SELECT COUNT(*) FROM deliveries`).Scan(&deliveries); err != nil || deliveries != 0 {
		t.Fatalf("deliveries left: %d %v", deliveries, err)
	}
	var hooks int
	if err := e.sb.DB.QueryRow(`SELECT COUNT(*) FROM webhooks`).Scan(&hooks); err != nil || hooks != 1 {
		t.Fatalf("webhooks: %d %v (want the one registered before)", hooks, err)
	}
}

// failingTarget answers a 500 from the after-th call on.
type failingTarget struct {
	fixture.Target
	after, calls int
}

func (f *failingTarget) Call(ctx context.Context, region, key, method, path string, body, out any) error {
	if f.calls++; f.calls >= f.after {
		return errors.New("disk I/O error (the sandbox answered 500)")
	}
	return f.Target.Call(ctx, region, key, method, path, body, out)
}

func (s *Sandbox) newHolderForTest(what string) store.LeaseHolder {
	return store.NewLeaseHolder("seeding " + what)
}
