package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// hookReceiver records what the sandbox delivers; answer decides the
// status of each delivery (nil answers 200).
type hookReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []received
	answer func(n int, r *http.Request) int
	notify chan struct{}
}

type received struct {
	header http.Header
	body   []byte
	status int
}

func newHookReceiver(t testing.TB, answer func(n int, r *http.Request) int) *hookReceiver {
	t.Helper()
	h := &hookReceiver{answer: answer, notify: make(chan struct{}, 100)}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		n := len(h.got)
		h.mu.Unlock()
		status := 200
		if h.answer != nil {
			status = h.answer(n, r)
		}
		h.mu.Lock()
		h.got = append(h.got, received{header: r.Header.Clone(), body: body, status: status})
		h.mu.Unlock()
		w.WriteHeader(status)
		h.notify <- struct{}{}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// wait returns once n deliveries arrived.
func (h *hookReceiver) wait(t testing.TB, n int) []received {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		h.mu.Lock()
		if len(h.got) >= n {
			out := append([]received(nil), h.got...)
			h.mu.Unlock()
			return out
		}
		h.mu.Unlock()
		select {
		case <-h.notify:
		case <-deadline:
			t.Fatalf("waited for %d deliveries, got %d", n, len(h.got))
		}
	}
}

func (e *env) registerPaymentHook(key, url string, header map[string]any) string {
	e.t.Helper()
	body := map[string]any{"url": url}
	if header != nil {
		body["header"] = header
	}
	return hookID(e.t, e.call("POST", "/api/v1/webhooks", key, nil, body))
}

func TestDeliveryOfPaymentNotificationsWithHeader(t *testing.T) {
	log := &lockedBuffer{}
	e := newDisputeEnv(t, Options{AllowLocalWebhooks: true, DeliveryLog: log})
	rcv := newHookReceiver(t, nil)
	e.registerPaymentHook(aeTest, rcv.srv.URL+"/payments/", map[string]any{"title": "X-Hook", "value": hookSecret})
	// A live-mode hook hears nothing of test payments.
	other := newHookReceiver(t, nil)
	e.registerPaymentHook(aeLive, other.srv.URL+"/live", nil)

	id := e.authorized("100.00")
	rcv.wait(t, 1)
	if r := e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, map[string]any{"amount": "100.00", "reference_id": "c1"}); r.status != 200 {
		t.Fatalf("capture: %s", r.body)
	}
	got := rcv.wait(t, 2)
	for _, g := range got {
		if g.header.Get("X-Hook") != hookSecret || !strings.HasPrefix(g.header.Get("Content-Type"), "application/json") {
			t.Fatalf("headers %v", g.header)
		}
	}
	var n wire.PaymentNotification
	if err := json.Unmarshal(got[0].body, &n); err != nil || n.ID != id || n.Status != "authorized" || !n.IsTest || n.Amount != "100.00" || n.Currency != "AED" {
		t.Fatalf("authorize notification %s", got[0].body)
	}
	var c map[string]any
	if err := json.Unmarshal(got[1].body, &c); err != nil {
		t.Fatal(err)
	}
	if c["status"] != "closed" || c["closed_at"] == nil || c["is_expired"] != false || len(c["captures"].([]any)) != 1 ||
		c["order"].(map[string]any)["reference_id"] != "order-1" || c["meta"].(map[string]any)["order_id"] != "o-1" {
		t.Fatalf("capture notification %s", got[1].body)
	}
	for _, k := range []string{"id", "created_at", "expires_at", "closed_at", "status", "is_test", "is_expired", "amount", "currency", "order", "captures", "refunds", "meta", "token"} {
		if _, ok := c[k]; !ok {
			t.Errorf("notification lacks %s: %s", k, got[1].body)
		}
	}
	// Refund and update notify too; a failed refund does not.
	e.do("ae", "POST", "/api/v2/payments/"+id+"/refunds", aeTest, map[string]any{"amount": "1000.00"})
	e.do("ae", "POST", "/api/v2/payments/"+id+"/refunds", aeTest, map[string]any{"amount": "10.00"})
	e.do("ae", "PUT", "/api/v2/payments/"+id, aeTest, map[string]any{"order": map[string]any{"reference_id": "order-2"}})
	got = rcv.wait(t, 4)
	// Order is not guaranteed (nor is it by the service).
	bodies := string(got[2].body) + string(got[3].body)
	if !strings.Contains(bodies, `"refunds":[{`) || !strings.Contains(bodies, `"reference_id":"order-2"`) {
		t.Fatalf("refund/update: %s", bodies)
	}

	// The deliveries endpoint shows them, never the header value.
	var list struct {
		Deliveries []outbox.Delivery `json:"deliveries"`
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		r := e.ctl("GET", "/_sandbox/deliveries?kind=payment&subject="+id, nil)
		if r.status != 200 || strings.Contains(string(r.body), "s3cret") {
			t.Fatalf("deliveries: %s", r.body)
		}
		if err := json.Unmarshal(r.body, &list); err != nil || len(list.Deliveries) != 4 {
			t.Fatalf("deliveries %s", r.body)
		}
		done := 0
		for _, d := range list.Deliveries {
			if d.Status == outbox.DeliveryDelivered && d.Attempts == 1 && d.HTTPStatus == 200 {
				done++
			}
		}
		if done == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries %+v", list.Deliveries)
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	other.mu.Lock()
	defer other.mu.Unlock()
	if len(other.got) != 0 {
		t.Fatalf("the live hook heard %d test notifications", len(other.got))
	}
	if strings.Contains(log.String(), "s3cret") {
		t.Fatal("the log shows the header value")
	}
}

func TestDeliveryRetriesUntil200(t *testing.T) {
	var mu sync.Mutex
	var seen []outbox.Delivery
	e := newDisputeEnv(t, Options{AllowLocalWebhooks: true, WebhookRetryScale: 0.0001, OnDelivery: func(d outbox.Delivery) {
		mu.Lock()
		seen = append(seen, d)
		mu.Unlock()
	}})
	rcv := newHookReceiver(t, func(n int, _ *http.Request) int {
		if n < 2 {
			return 500
		}
		return 200
	})
	e.registerPaymentHook(aeTest, rcv.srv.URL, nil)
	start := time.Now()
	e.authorized("10.00")
	got := rcv.wait(t, 3)
	if got[0].status != 500 || got[1].status != 500 || got[2].status != 200 || !bytes.Equal(got[0].body, got[2].body) {
		t.Fatalf("attempts %v %v %v", got[0].status, got[1].status, got[2].status)
	}
	// 1 then 2 minutes, scaled: 6ms and 12ms at least.
	if el := time.Since(start); el < 18*time.Millisecond {
		t.Fatalf("retried too soon: %v", el)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(seen)
		var last outbox.Delivery
		if n > 0 {
			last = seen[n-1]
		}
		mu.Unlock()
		if n == 3 && last.Status == outbox.DeliveryDelivered && last.Attempts == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries reported: %+v", seen)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if seen[0].Status != outbox.DeliveryPending || seen[0].HTTPStatus != 500 || seen[0].Error == "" {
		t.Fatalf("first attempt %+v", seen[0])
	}
}

func TestDeliveryGivesUpAfterFourRetries(t *testing.T) {
	log := &lockedBuffer{}
	e := newDisputeEnv(t, Options{AllowLocalWebhooks: true, WebhookRetryScale: 0.00001, DeliveryLog: log})
	rcv := newHookReceiver(t, func(int, *http.Request) int { return 503 })
	e.registerPaymentHook(aeTest, rcv.srv.URL, nil)
	id := e.authorized("10.00")
	rcv.wait(t, 5)
	deadline := time.Now().Add(5 * time.Second)
	for {
		list, err := e.sb.Deliveries(context.Background(), "payment", id, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 1 && list[0].Status == outbox.DeliveryFailed {
			if list[0].Attempts != 5 || list[0].HTTPStatus != 503 {
				t.Fatalf("%+v", list[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never failed: %+v", list)
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	if n := len(rcv.wait(t, 5)); n != 5 {
		t.Fatalf("%d attempts", n)
	}
	if !strings.Contains(log.String(), "failed after 5 attempt(s)") {
		t.Fatalf("log: %q", log.String())
	}
}

func TestDeliveryOfDisputeNotifications(t *testing.T) {
	e := newDisputeEnv(t, Options{AllowLocalWebhooks: true})
	rcv := newHookReceiver(t, nil)
	hookID(t, e.addDisputeHook(map[string]any{"url": rcv.srv.URL + "/disputes", "header": map[string]any{"title": "X-Hook", "value": hookSecret}}))
	pid := e.liveClosed("100.00")
	d := e.openDispute(pid, map[string]any{"amount": "20"})
	got := rcv.wait(t, 1)
	var n map[string]any
	if err := json.Unmarshal(got[0].body, &n); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"status": "new", "dispute_id": d.ID, "payment_id": pid, "amount": "20.00", "currency": "AED",
		"created_at": testStart.Format(time.RFC3339)}
	if len(n) != len(want) {
		t.Fatalf("fields: %s", got[0].body)
	}
	for k, v := range want {
		if n[k] != v {
			t.Fatalf("%s = %v, want %v (%s)", k, n[k], v, got[0].body)
		}
	}
	if got[0].header.Get("X-Hook") != hookSecret {
		t.Fatalf("header %v", got[0].header)
	}
	// Every change notifies: evidence (in_progress), then the refund.
	e.call("POST", "/api/v1/disputes/"+d.ID+"/provide-evidence", aeLive, nil, map[string]any{"content": "x"})
	rcv.wait(t, 2)
	e.call("POST", "/api/v1/disputes/approve", aeLive, nil, map[string]any{"dispute_ids": []string{d.ID}})
	got = rcv.wait(t, 3)
	var statuses []string
	for _, g := range got {
		var m map[string]any
		json.Unmarshal(g.body, &m)
		statuses = append(statuses, m["status"].(string))
	}
	if strings.Join(statuses, ",") != "new,in_progress,refunded" {
		t.Fatalf("statuses %v", statuses)
	}
}

func TestDeliveryNeverBlocksTheRequest(t *testing.T) {
	release := make(chan struct{})
	e := newDisputeEnv(t, Options{AllowLocalWebhooks: true})
	rcv := newHookReceiver(t, func(_ int, r *http.Request) int {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return 200
	})
	defer close(release)
	e.registerPaymentHook(aeTest, rcv.srv.URL, nil)
	id := e.authorized("100.00")
	start := time.Now()
	for i := range 3 {
		r := e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, map[string]any{"amount": "10.00", "reference_id": string(rune('a' + i))})
		if r.status != 200 {
			t.Fatal(string(r.body))
		}
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("captures took %v behind a slow receiver", el)
	}
}

func TestDeliveryRefusesURLsTheRulesNoLongerAdmit(t *testing.T) {
	// A state file shared by a sandbox that admits local receivers and one
	// that does not: the second never contacts the loopback receiver.
	path := t.TempDir() + "/state.db"
	rcv := newHookReceiver(t, nil)
	local := newDisputeEnv(t, Options{StatePath: path, AllowLocalWebhooks: true})
	local.registerPaymentHook(aeTest, rcv.srv.URL, nil)
	strict := newDisputeEnv(t, Options{StatePath: path})
	id := strict.authorized("10.00")
	deadline := time.Now().Add(5 * time.Second)
	for {
		list, _ := strict.sb.Deliveries(context.Background(), "", id, 0)
		if len(list) == 1 {
			if list[0].Status != outbox.DeliveryFailed || !strings.Contains(list[0].Error, "no longer passes the rules") || list[0].Attempts != 1 {
				t.Fatalf("%+v", list[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no delivery recorded")
		}
		time.Sleep(5 * time.Millisecond)
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.got) != 0 {
		t.Fatal("the strict sandbox delivered to loopback")
	}
}

func TestCloseStopsDeliveryCleanly(t *testing.T) {
	e := newDisputeEnv(t, Options{AllowLocalWebhooks: true, WebhookRetryScale: 100})
	rcv := newHookReceiver(t, func(int, *http.Request) int { return 500 })
	e.registerPaymentHook(aeTest, rcv.srv.URL, nil)
	e.authorized("10.00")
	rcv.wait(t, 1)
	start := time.Now()
	if err := e.sb.Close(); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("Close waited %v for a retry 100 minutes away", el)
	}
}
