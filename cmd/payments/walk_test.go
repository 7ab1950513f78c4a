package payments

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// walkSandbox serves a sandbox whose list pages take a while, so that
// changes made meanwhile land between the pages of a walk.
func walkSandbox(t *testing.T) (*sandbox.Sandbox, *httptest.Server) {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	h := sb.Handler("ae")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/api/v2/payments" {
			time.Sleep(30 * time.Millisecond)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return sb, srv
}

func post(t *testing.T, srv *httptest.Server, path string, body any) []byte {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer sk_test_ae_sandbox")
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer res.Body.Close()
	var out bytes.Buffer
	out.ReadFrom(res.Body)
	if res.StatusCode != 200 {
		t.Errorf("POST %s: %d %s", path, res.StatusCode, out.String())
	}
	return out.Bytes()
}

// authorize creates a checkout and approves it: an AUTHORIZED payment.
func authorize(t *testing.T, sb *sandbox.Sandbox, srv *httptest.Server, i int) string {
	t.Helper()
	body := post(t, srv, "/api/v2/checkout", map[string]any{
		"lang": "en", "merchant_code": "ae-sandbox",
		"payment": map[string]any{
			"amount": "10.00", "currency": "AED",
			"buyer":            map[string]string{"name": "Walk Buyer", "email": "otp.success@tabby.ai", "phone": "+971500000001"},
			"shipping_address": map[string]string{"city": "Dubai", "address": "Walk 1", "zip": "00000"},
			"order": map[string]any{"reference_id": fmt.Sprintf("W-%d", i),
				"items": []map[string]any{{"title": "Item", "quantity": 1, "unit_price": "10.00", "category": "Walk"}}},
			"buyer_history": map[string]any{"registered_since": "2024-01-01T00:00:00Z", "loyalty_level": 1},
		},
	})
	var s struct {
		Payment struct{ ID string } `json:"payment"`
	}
	if err := json.Unmarshal(body, &s); err != nil || s.Payment.ID == "" {
		t.Fatalf("checkout: %v %s", err, body)
	}
	if _, err := sb.Approve(context.Background(), s.Payment.ID); err != nil {
		t.Fatal(err)
	}
	return s.Payment.ID
}

// TestWalkWhilePaymentsChange walks the authorized payments while others
// are created (entering the list in front, pushing every row down) and
// captured in full (leaving it, pulling the rows behind them up): every
// payment authorized for the whole walk is printed exactly once, and no
// payment twice.
func TestWalkWhilePaymentsChange(t *testing.T) {
	sb, srv := walkSandbox(t)
	const n = 240
	var ids []string
	for i := range n {
		ids = append(ids, authorize(t, sb, srv, i))
	}
	// Every third payment may be captured during the walk; the others stay.
	var mortal, stable []string
	for i, id := range ids {
		if i%3 == 0 {
			mortal = append(mortal, id)
		} else {
			stable = append(stable, id)
		}
	}
	rand.Shuffle(len(mortal), func(i, j int) { mortal[i], mortal[j] = mortal[j], mortal[i] })

	ios, _, out, _ := output.Test()
	opts := &ListOptions{
		Statuses: []string{"authorized"}, All: true, Limit: 20, Concurrency: 2,
		ReadDeps: ReadDeps{
			Client: func() (*api.Client, error) {
				return api.New(api.Options{BaseURL: srv.URL, SecretKey: "sk_test_ae_sandbox", Version: "test"})
			},
			Printer: func() (*output.Printer, error) { return output.NewPrinter(ios, output.Options{Format: "jsonl"}) },
		},
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	changes := 0
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			authorize(t, sb, srv, n+i)
			changes++
			if len(mortal) > 0 {
				post(t, srv, "/api/v2/payments/"+mortal[0]+"/captures", map[string]any{"amount": "10.00"})
				mortal = mortal[1:]
				changes++
			}
		}
	}()
	err := listRun(context.Background(), opts)
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if changes < 10 {
		t.Fatalf("only %d changes during the walk: the test tests little", changes)
	}
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var p struct{ ID string }
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if seen[p.ID]++; seen[p.ID] > 1 {
			t.Fatalf("%s printed twice", p.ID)
		}
	}
	for _, id := range stable {
		if seen[id] != 1 {
			t.Fatalf("%s was authorized for the whole walk but printed %d times (%d changes meanwhile)", id, seen[id], changes)
		}
	}
	t.Logf("%d rows printed, %d changes during the walk", len(seen), changes)
}

// TestFindACreatedOrderEarly: a search for one order number walks the
// status sets at once, so a CREATED order behind many authorized payments
// is found after a few pages, not after the whole default set.
func TestFindACreatedOrderEarly(t *testing.T) {
	sb, err := sandbox.New(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	h := sb.Handler("ae")
	var mu sync.Mutex
	lists := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/api/v2/payments" {
			mu.Lock()
			lists++
			mu.Unlock()
			// A page takes a while, as a round trip to the region does, so
			// that what the sets do at once is not a race of the scheduler.
			time.Sleep(20 * time.Millisecond)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	for i := range 200 {
		authorize(t, sb, srv, i)
	}
	post(t, srv, "/api/v2/checkout", map[string]any{
		"lang": "en", "merchant_code": "ae-sandbox",
		"payment": map[string]any{
			"amount": "10.00", "currency": "AED",
			"buyer":            map[string]string{"name": "Walk Buyer", "email": "otp.success@tabby.ai", "phone": "+971500000001"},
			"shipping_address": map[string]string{"city": "Dubai", "address": "Walk 1", "zip": "00000"},
			"order": map[string]any{"reference_id": "FIND-ME",
				"items": []map[string]any{{"title": "Item", "quantity": 1, "unit_price": "10.00", "category": "Walk"}}},
			"buyer_history": map[string]any{"registered_since": "2024-01-01T00:00:00Z", "loyalty_level": 1},
		},
	})
	mu.Lock()
	lists = 0
	mu.Unlock()

	ios, _, out, _ := output.Test()
	opts := &ListOptions{
		Order: "FIND-ME", All: true, Limit: 20, Concurrency: 4,
		ReadDeps: ReadDeps{
			Client: func() (*api.Client, error) {
				return api.New(api.Options{BaseURL: srv.URL, SecretKey: "sk_test_ae_sandbox", Version: "test"})
			},
			Printer: func() (*output.Printer, error) { return output.NewPrinter(ios, output.Options{Format: "jsonl"}) },
		},
	}
	if err := listRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"FIND-ME"`) || strings.Count(strings.TrimSpace(out.String()), "\n") != 0 {
		t.Fatalf("want the one CREATED order, got:\n%s", out.String())
	}
	// The default set alone is 200 authorized payments: 10 pages of 20.
	mu.Lock()
	defer mu.Unlock()
	if lists >= 10 {
		t.Fatalf("%d list pages read to find a CREATED order: the default set was walked first", lists)
	}
}
