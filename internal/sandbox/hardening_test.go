package sandbox

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/middleware"
	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

func TestHostedPageSecurityHeadersAndSchemes(t *testing.T) {
	e := newEnv(t, Options{})
	wantHeaders := func(t *testing.T, h http.Header) {
		t.Helper()
		if h.Get("X-Frame-Options") != "DENY" || h.Get("X-Content-Type-Options") != "nosniff" ||
			!strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") || h.Get("Referrer-Policy") == "" {
			t.Fatalf("headers %v", h)
		}
	}
	s := e.createSession(checkoutBody("ae-sandbox", "AED", "100.00"), aeTest)
	u, _ := url.Parse(s.WebURL())
	page := e.do("ae", "GET", u.Path, "", nil)
	if page.status != 200 {
		t.Fatalf("page %d", page.status)
	}
	wantHeaders(t, page.header)

	// A merchant URL that is not http(s) is refused at checkout creation.
	for _, bad := range []string{"javascript://shop.example/%0aalert(1)", "data://shop.example/x", "ftp://shop.example/ok"} {
		body := set(checkoutBody("ae-sandbox", "AED", "100.00"), "merchant_urls", map[string]any{"success": bad})
		r := e.do("ae", "POST", "/api/v2/checkout", aeTest, body)
		if r.status != 400 || !strings.Contains(string(r.body), "is not an absolute http(s) URL") {
			t.Fatalf("%s: %d %s", bad, r.status, r.body)
		}
	}

	// One already in the state (written before the rule) is not followed:
	// the 303 goes back to the page.
	s2 := e.createSession(checkoutBody("ae-sandbox", "AED", "100.00"), aeTest)
	ctx := context.Background()
	if _, err := e.sb.DB.ExecContext(ctx, `UPDATE payments SET session = json_set(session, '$.merchant_urls.success', 'javascript://x/%0aalert(1)')
		WHERE session_id = ?`, s2.ID); err != nil {
		t.Fatal(err)
	}
	u2, _ := url.Parse(s2.WebURL())
	req := httptest.NewRequest("POST", u2.Path+"/approve", nil)
	req.RemoteAddr = "203.0.113.9:5555"
	w := httptest.NewRecorder()
	e.sb.Handler("ae").ServeHTTP(w, req)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/_sandbox/hpp/"+s2.ID {
		t.Fatalf("303 to %q (%d)", w.Header().Get("Location"), w.Code)
	}
	wantHeaders(t, w.Header())
}

func TestLatencyFaultAbandonedRequestRunsNothing(t *testing.T) {
	// A delay far longer than the test: the request ends when the client
	// leaves, or the test times out.
	// The payment is made without faults, on the state file the faulty
	// sandbox then serves.
	path := t.TempDir() + "/state.db"
	plain := newEnv(t, Options{StatePath: path, Clock: store.RealClock{}})
	id := plain.authorized("100.00")
	e := newEnv(t, Options{StatePath: path, Faults: middleware.FaultSpec{Latency: time.Hour}, Seed: 1, Clock: store.RealClock{}})
	entered := make(chan struct{}, 1)
	finished := make(chan struct{}, 1)
	h := e.sb.Handler("ae")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/captures") {
			entered <- struct{}{}
		}
		h.ServeHTTP(w, r)
		if strings.HasSuffix(r.URL.Path, "/captures") {
			finished <- struct{}{}
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/api/v2/payments/"+id+"/captures",
		strings.NewReader(`{"amount":"10.00","reference_id":"gave-up"}`))
	req.Header.Set("Authorization", "Bearer "+aeTest)
	req.Header.Set("Content-Type", "application/json")
	errs := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
		}
		errs <- err
	}()
	// The client gives up once the server holds the request.
	<-entered
	cancel()
	if err := <-errs; err == nil {
		t.Fatal("the request was answered: it should have been abandoned")
	}
	<-finished
	if p := plain.get(id); len(p.Captures) != 0 || p.Status != wire.StatusAuthorized {
		t.Fatalf("the abandoned capture ran: %+v", p.Captures)
	}
}

func TestResendAfterUpdateRecordsTheURLUsed(t *testing.T) {
	delivered := make(chan outbox.Delivery, 4)
	e := newDisputeEnv(t, Options{AllowLocalWebhooks: true, OnDelivery: func(d outbox.Delivery) { delivered <- d }})
	old := newHookReceiver(t, nil)
	hook := e.registerPaymentHook(aeTest, old.srv.URL+"/old", nil)
	e.authorized("10.00")
	<-delivered // recorded
	list, err := e.sb.DeliveryAttempts(context.Background(), outbox.DeliveryFilter{})
	if err != nil || len(list) != 1 {
		t.Fatalf("%v %v", list, err)
	}
	moved := newHookReceiver(t, nil)
	if r := e.call("PUT", "/api/v1/webhooks/"+hook, aeTest, nil, map[string]any{"url": moved.srv.URL + "/new"}); r.status != 200 {
		t.Fatalf("update: %d %s", r.status, r.body)
	}
	a, err := e.sb.Resend(context.Background(), list[0].DeliveryID)
	if err != nil {
		t.Fatal(err)
	}
	moved.wait(t, 1)
	if a.URL != moved.srv.URL+"/new" || !a.Resend {
		t.Fatalf("resend answered %q", a.URL)
	}
	all, _ := e.sb.DeliveryAttempts(context.Background(), outbox.DeliveryFilter{})
	if len(all) != 2 || all[0].URL != moved.srv.URL+"/new" || all[1].URL != old.srv.URL+"/old" {
		t.Fatalf("attempts: %+v", all)
	}
	dels, _ := e.sb.Deliveries(context.Background(), "", "", 0)
	if len(dels) != 1 || dels[0].URL != moved.srv.URL+"/new" {
		t.Fatalf("delivery: %+v", dels)
	}
}
