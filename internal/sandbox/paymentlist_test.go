package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// naivePage is the payments list computed the plain way, every payment's
// effective status worked out and the rows before the offset skipped: the
// reference the indexed list with its remembered positions must match.
func naivePage(t *testing.T, e *env, status string, limit, offset int) ([]string, int) {
	t.Helper()
	ctx := context.Background()
	now, err := e.sb.CurrentTime(ctx)
	if err != nil {
		t.Fatal(err)
	}
	eff := map[string]string{
		"":           `eff IN ('AUTHORIZED', 'CLOSED')`,
		"authorized": `eff = 'AUTHORIZED'`,
		"closed":     `eff = 'CLOSED'`,
		"rejected":   `eff = 'REJECTED'`,
		"new":        `eff = 'CREATED'`,
		"captured":   `has_captures = 1 AND fully_refunded = 0`,
		"refunded":   `has_refunds = 1`,
		"cancelled":  `(eff = 'EXPIRED' OR (eff = 'CLOSED' AND has_captures = 0))`,
	}[status]
	from := `(SELECT *, CASE WHEN status = 'CREATED' AND created_at <= ? THEN 'EXPIRED' ELSE status END AS eff FROM payments)`
	where := `merchant_code = 'ae-sandbox' AND is_test = 1 AND ` + eff
	cutoff := now.Add(-store.PaymentTimeout).UnixNano()
	var total int
	if err := e.sb.DB.QueryRow(`SELECT count(*) FROM `+from+` WHERE `+where, cutoff).Scan(&total); err != nil {
		t.Fatal(err)
	}
	rows, err := e.sb.DB.Query(`SELECT id FROM `+from+` WHERE `+where+` ORDER BY created_at DESC, seq DESC LIMIT ? OFFSET ?`, cutoff, limit, offset)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids, total
}

// TestListPaymentsMatchesNaive walks every status filter page by page while
// payments are created, moved and expired by the clock, and checks every
// page and count against the plain computation.
func TestListPaymentsMatchesNaive(t *testing.T) {
	for _, mode := range []string{"memory", "file"} {
		t.Run(mode, func(t *testing.T) {
			opts := Options{}
			if mode == "file" {
				opts.StatePath = t.TempDir() + "/state.db"
			}
			e := newEnv(t, opts)
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(7, 11))
			var authorized []string
			mutate := func() {
				switch rng.IntN(6) {
				case 0:
					e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest)
				case 1, 2:
					authorized = append(authorized, e.authorized("10.00"))
				case 3:
					if len(authorized) > 0 {
						id := authorized[rng.IntN(len(authorized))]
						e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, map[string]any{"amount": "5"})
					}
				case 4:
					if len(authorized) > 0 {
						id := authorized[rng.IntN(len(authorized))]
						e.do("ae", "POST", "/api/v2/payments/"+id+"/close", aeTest, nil)
					}
				case 5:
					e.clock.Advance(time.Duration(rng.IntN(20)) * time.Minute)
				}
				// Several payments share one created_at when the clock
				// stands still: the order then falls back on seq.
			}
			for range 60 {
				mutate()
			}
			for round := range 40 {
				status := []string{"", "authorized", "closed", "rejected", "new", "captured", "refunded", "cancelled"}[round%8]
				limit := 1 + rng.IntN(20)
				for offset := 0; offset < 200; offset += limit - rng.IntN(min(limit, 3)) {
					q := fmt.Sprintf("limit=%d&offset=%d", limit, offset)
					if status != "" {
						q += "&status=" + status
					}
					r := e.do("ae", "GET", "/api/v2/payments?"+q, aeTest, nil)
					if r.status != 200 {
						t.Fatalf("%s: %d %s", q, r.status, r.body)
					}
					var l wire.PaymentList
					if err := json.Unmarshal(r.body, &l); err != nil {
						t.Fatal(err)
					}
					got := make([]string, len(l.Payments))
					for i, p := range l.Payments {
						got[i] = p.ID
						if p.Status == wire.StatusCreated {
							if now, _ := e.sb.CurrentTime(ctx); !now.Before(p.CreatedAt.Add(store.PaymentTimeout)) {
								t.Fatalf("%s: %s listed CREATED after its timeout", q, p.ID)
							}
						}
					}
					want, total := naivePage(t, e, status, limit, offset)
					if strings.Join(got, " ") != strings.Join(want, " ") || l.Pagination.TotalCount != total {
						t.Fatalf("round %d %s: got %v (total %d), want %v (total %d)", round, q, got, l.Pagination.TotalCount, want, total)
					}
					if rng.IntN(4) == 0 {
						mutate()
					}
					if len(got) == 0 {
						break
					}
				}
			}
			if err := e.sb.Reset(ctx); err != nil {
				t.Fatal(err)
			}
			if want, total := naivePage(t, e, "", 20, 0); total != 0 || len(want) != 0 {
				t.Fatalf("after reset: %v", want)
			}
			r := e.do("ae", "GET", "/api/v2/payments", aeTest, nil)
			if !strings.Contains(string(r.body), `"total_count":0`) {
				t.Fatalf("after reset the list still answers: %s", r.body)
			}
		})
	}
}
