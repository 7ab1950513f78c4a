package sandbox

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/shopspring/decimal"
)

// Many clients capture and refund one payment at once: only 200, 400 and
// 409 may come back, and the money never goes past its bounds.
func TestConcurrentMoves(t *testing.T) {
	for _, mode := range []string{"memory", "file"} {
		t.Run(mode, func(t *testing.T) {
			opts := Options{}
			if mode == "file" {
				opts.StatePath = filepath.Join(t.TempDir(), "state.db")
			}
			e := newEnv(t, opts)
			id := e.authorized("98.00") // 14 captures of 7.00 close it
			var wg sync.WaitGroup
			var mu sync.Mutex
			counts := map[int]int{}
			for g := range 12 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 8 {
						// Like a client, retry a 409 a few times so that the
						// payment really gets captured in full and refunded.
						for range 50 {
							var r resp
							switch (g + i) % 3 {
							case 0, 1:
								r = e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest,
									map[string]any{"amount": "7.00", "reference_id": fmt.Sprintf("c-%d-%d", g, i%4)})
							default:
								r = e.do("ae", "POST", "/api/v2/payments/"+id+"/refunds", aeTest,
									map[string]any{"amount": "3.00", "reference_id": fmt.Sprintf("r-%d-%d", g, i)})
							}
							mu.Lock()
							counts[r.status]++
							mu.Unlock()
							if r.status != 409 {
								break
							}
							runtime.Gosched()
						}
					}
				}()
			}
			wg.Wait()
			for status := range counts {
				if status != 200 && status != 400 && status != 409 {
					t.Fatalf("unexpected status %d (counts %v)", status, counts)
				}
			}
			p := e.get(id)
			if p.Captured().GreaterThan(p.Amount) || p.Refunded().GreaterThan(p.Captured()) {
				t.Fatalf("invariants broken: amount %s captured %s refunded %s", p.Amount, p.Captured(), p.Refunded())
			}
			seen := map[string]bool{}
			for _, c := range p.Captures {
				if c.ReferenceID != "" && seen[c.ReferenceID] {
					t.Fatalf("reference_id %s captured twice", c.ReferenceID)
				}
				seen[c.ReferenceID] = true
			}
			if p.Status == wire.StatusAuthorized && p.Captured().Equal(p.Amount) {
				t.Fatal("fully captured but not closed")
			}
			t.Logf("statuses %v; captured %s refunded %s status %s", counts, p.Captured(), p.Refunded(), p.Status)
		})
	}
}

// A busy payment answers 409 at once rather than queueing.
func TestLockedPaymentAnswers409(t *testing.T) {
	e := newEnv(t, Options{})
	id := e.authorized("10.00")
	if err := e.sb.Acquire(context.Background(), id, nil, "someone-else"); err != nil {
		t.Fatal(err)
	}
	wantError(t, e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, map[string]any{"amount": "1"}), 409, "conflict", "could not acquire lock: payment is locked")
	wantError(t, e.do("ae", "POST", "/api/v2/payments/"+id+"/close", aeTest, nil), 409, "conflict", "could not acquire lock: payment is locked")
	// Another merchant still sees nothing at all.
	wantError(t, e.do("ae", "POST", "/api/v2/payments/"+id+"/close", kwTest, nil), 404, "not_found", "no such payment")
	e.sb.Release(id, "someone-else")
	if r := e.do("ae", "POST", "/api/v2/payments/"+id+"/close", aeTest, nil); r.status != 200 {
		t.Fatalf("after release: %d %s", r.status, r.body)
	}
}

// Two sandboxes on one state file behave as one service: what one writes
// the other reads, and the lock holds across them.
func TestSharedStateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	a := newEnv(t, Options{StatePath: path})
	b := newEnv(t, Options{StatePath: path})
	id := a.authorized("50.00")
	if p := b.get(id); p.Status != wire.StatusAuthorized {
		t.Fatalf("b sees %s", p.Status)
	}
	if err := a.sb.Acquire(context.Background(), id, nil, "holder-in-a"); err != nil {
		t.Fatal(err)
	}
	wantError(t, b.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, map[string]any{"amount": "1"}), 409, "conflict", "could not acquire lock: payment is locked")
	a.sb.Release(id, "holder-in-a")

	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := a
			if i%2 == 1 {
				env = b
			}
			env.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, map[string]any{"amount": "5.00", "reference_id": fmt.Sprint("c", i)})
		}()
	}
	wg.Wait()
	pa, pb := a.get(id), b.get(id)
	if !pa.Captured().Equal(pb.Captured()) || pa.Captured().GreaterThan(decimal.NewFromInt(50)) {
		t.Fatalf("a captured %s, b captured %s", pa.Captured(), pb.Captured())
	}
	// State survives a restart.
	a.sb.Close()
	c := newEnv(t, Options{StatePath: path})
	if p := c.get(id); !p.Captured().Equal(pa.Captured()) {
		t.Fatalf("after reopen captured %s", p.Captured())
	}
	// Reset through one is seen by the other.
	if err := c.sb.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantError(t, b.do("ae", "GET", "/api/v2/payments/"+id, aeTest, nil), 404, "not_found", "no such payment")
}
