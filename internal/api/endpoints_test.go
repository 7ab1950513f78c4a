package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// recorded is what the server saw of one request.
type recorded struct {
	method, uri, merchant, body string
}

// TestEndpointContracts checks the wire side of every endpoint: method,
// path, query, X-Merchant-Code, body, and the decoding of the answer.
func TestEndpointContracts(t *testing.T) {
	var mu sync.Mutex
	var last recorded
	answers := map[string]string{
		"PUT /api/v2/payments/" + testPaymentID:                      `{"id":"` + testPaymentID + `","order":{"reference_id":"new-ref"},"captures":[],"refunds":[]}`,
		"GET /api/v1/webhooks/" + testOtherID:                        `{"id":"` + testOtherID + `","url":"https://a.example/","is_test":true}`,
		"PUT /api/v1/webhooks/" + testOtherID:                        `{"id":"` + testOtherID + `","url":"https://b.example/"}`,
		"DELETE /api/v1/webhooks/" + testOtherID:                     `{"status":"ok"}`,
		"GET /api/v1/dispute-webhooks":                               `[{"id":"` + testOtherID + `","url":"https://d.example","header":null}]`,
		"GET /api/v1/dispute-webhooks/" + testOtherID:                `{"id":"` + testOtherID + `","url":"https://d.example","header":{"title":"X-Sign","value":"****"}}`,
		"PUT /api/v1/dispute-webhooks/" + testOtherID:                `{"id":"` + testOtherID + `","url":"https://e.example","header":null}`,
		"DELETE /api/v1/dispute-webhooks/" + testOtherID:             ``,
		"POST /api/v1/disputes/" + testOtherID + "/provide-evidence": `{"id":"` + testPaymentID + `","dispute_id":"` + testOtherID + `","content":"photo","created_by":"merchant","attachment_ids":["` + testPaymentID + `"]}`,
		"POST /api/v1/disputes/approve":                              `{"disputes":[{"id":"` + testOtherID + `","status":"refunded"}]}`,
		"POST /api/v1/disputes/challenge":                            `{"disputes":[{"id":"` + testOtherID + `","status":"in_progress"}]}`,
	}
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		last = recorded{r.Method, r.URL.RequestURI(), r.Header.Get("X-Merchant-Code"), string(body)}
		mu.Unlock()
		a, ok := answers[r.Method+" "+r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, a)
	})
	c, _ := newTestClient(t, srv.URL, nil)
	ctx := context.Background()
	seen := func() recorded {
		mu.Lock()
		defer mu.Unlock()
		return last
	}
	check := func(name string, want recorded) {
		t.Helper()
		if got := seen(); got != want {
			t.Errorf("%s sent\n %+v\nwant\n %+v", name, got, want)
		}
	}

	p, err := c.UpdatePayment(ctx, testPaymentID, "new-ref")
	if err != nil || p.Order.ReferenceID != "new-ref" {
		t.Errorf("UpdatePayment: %v %+v", err, p)
	}
	check("UpdatePayment", recorded{"PUT", "/api/v2/payments/" + testPaymentID, "", `{"order":{"reference_id":"new-ref"}}`})

	w, err := c.GetWebhook(ctx, testOtherID)
	if err != nil || !w.IsTest || w.URL != "https://a.example/" {
		t.Errorf("GetWebhook: %v %+v", err, w)
	}
	check("GetWebhook", recorded{"GET", "/api/v1/webhooks/" + testOtherID, "ae-test", ""})

	yes := true
	w, err = c.UpdateWebhook(ctx, testOtherID, WebhookRequest{URL: "https://b.example/", IsTest: &yes})
	if err != nil || w.URL != "https://b.example/" {
		t.Errorf("UpdateWebhook: %v %+v", err, w)
	}
	check("UpdateWebhook", recorded{"PUT", "/api/v1/webhooks/" + testOtherID, "ae-test", `{"url":"https://b.example/","is_test":true}`})

	if err := c.DeleteWebhook(ctx, testOtherID); err != nil {
		t.Errorf("DeleteWebhook: %v", err)
	}
	check("DeleteWebhook", recorded{"DELETE", "/api/v1/webhooks/" + testOtherID, "ae-test", ""})

	dws, err := c.ListDisputeWebhooks(ctx)
	if err != nil || len(dws) != 1 || dws[0].Header != nil {
		t.Errorf("ListDisputeWebhooks: %v %+v", err, dws)
	}
	dw, err := c.GetDisputeWebhook(ctx, testOtherID)
	if err != nil || dw.Header == nil || dw.Header.Value != "****" {
		t.Errorf("GetDisputeWebhook: %v %+v", err, dw)
	}
	check("GetDisputeWebhook", recorded{"GET", "/api/v1/dispute-webhooks/" + testOtherID, "ae-test", ""})

	dw, err = c.ReplaceDisputeWebhook(ctx, testOtherID, DisputeWebhookRequest{URL: "https://e.example"})
	if err != nil || dw.URL != "https://e.example" {
		t.Errorf("ReplaceDisputeWebhook: %v %+v", err, dw)
	}
	// No header in the body: PUT replaces the whole object, removing it.
	check("ReplaceDisputeWebhook", recorded{"PUT", "/api/v1/dispute-webhooks/" + testOtherID, "ae-test", `{"url":"https://e.example"}`})

	if err := c.DeleteDisputeWebhook(ctx, testOtherID); err != nil {
		t.Errorf("DeleteDisputeWebhook: %v", err)
	}
	check("DeleteDisputeWebhook", recorded{"DELETE", "/api/v1/dispute-webhooks/" + testOtherID, "ae-test", ""})

	ev, err := c.ProvideEvidence(ctx, testOtherID, EvidenceRequest{Content: "photo", AttachmentIDs: []string{testPaymentID}})
	if err != nil || ev.DisputeID != testOtherID || len(ev.Raw()) == 0 {
		t.Errorf("ProvideEvidence: %v %+v", err, ev)
	}
	check("ProvideEvidence", recorded{"POST", "/api/v1/disputes/" + testOtherID + "/provide-evidence", "", `{"content":"photo","attachment_ids":["` + testPaymentID + `"]}`})

	raw, err := c.ApproveDisputes(ctx, []string{testOtherID})
	if err != nil || !strings.Contains(string(raw), `"refunded"`) {
		t.Errorf("ApproveDisputes: %v %s", err, raw)
	}
	check("ApproveDisputes", recorded{"POST", "/api/v1/disputes/approve", "", `{"dispute_ids":["` + testOtherID + `"]}`})

	amt := decimal.RequireFromString("80.00")
	raw, err = c.ChallengeDispute(ctx, ChallengeRequest{DisputeID: testOtherID, Description: "delivered", Reason: ChallengeReasonAmount, Amount: &amt})
	if err != nil || !json.Valid(raw) {
		t.Errorf("ChallengeDispute: %v %s", err, raw)
	}
	check("ChallengeDispute", recorded{"POST", "/api/v1/disputes/challenge", "", `{"dispute_id":"` + testOtherID + `","description":"delivered","reason":"merchant_reason_order_amount_should_be_different","amount":"80"}`})

	// An id the service does not know: 404 with the plain-text body.
	_, err = c.GetWebhook(ctx, testPaymentID)
	if !IsNotFound(err) {
		t.Errorf("unknown webhook: %v", err)
	}
}

func TestInsecureRedirectIsNotFollowed(t *testing.T) {
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://api.example.com/steal", http.StatusFound)
	})
	c, _ := newTestClient(t, srv.URL, nil)
	_, err := c.GetPayment(context.Background(), testPaymentID)
	if StatusOf(err) != http.StatusFound || exitCodeOf(err) != 1 {
		t.Errorf("err = %v, want the 302 handed back", err)
	}
	if srv.Hits() != 1 {
		t.Errorf("hits = %d", srv.Hits())
	}
}

func TestDefaultSleepHonoursContext(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("sleep: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Errorf("sleep on a cancelled context: %v after %v", err, time.Since(start))
	}
}

func TestBodyText(t *testing.T) {
	for _, tc := range []struct{ ct, body, want string }{
		{"", "", ""},
		{"application/json", `{"b":1,"a":"x"}`, "{\n  \"b\": 1,\n  \"a\": \"x\"\n}"},
		{"application/json", `{"header":{"title":"T","value":"abcdefghijkl"},"n":1.50}`, "{\n  \"header\": {\n    \"title\": \"T\",\n    \"value\": \"****ijkl\"\n  },\n  \"n\": 1.50\n}"},
		{"text/plain", "404 page not found\n", "404 page not found\n"},
		{"image/png", "\x89PNG\r\n\x1a\n\x00\x00", "[10 bytes of image/png]"},
	} {
		if got := bodyText(tc.ct, []byte(tc.body)); got != tc.want {
			t.Errorf("bodyText(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}

func TestBadDataHints(t *testing.T) {
	for msg, want := range map[string]string{
		msgCaptureNotAuth: "only AUTHORIZED payments can be captured",
		msgCloseNotAuth:   "only AUTHORIZED payments can be closed",
		"could not cancel payment: " + msgAuthExpired: "treat the payment as expired",
		msgRefundNoCaptures:                           "capture first",
		msgRefundTooMuch:                              "left to refund",
		msgInvalidPaymentID:                           "UUIDs",
		"could not create payment: only 'AED' is supported, but got 'SAR'": "merchant's country",
		"create payment webhook: " + msgInvalidWebhookURL:                  "https://",
		"create payment webhook: " + msgWebhookExists:                      "bnpl webhooks list",
		"create payment webhook: " + msgMaxWebhooks:                        "bnpl webhooks remove",
		"json decode: EOF": "could not read the request",
		"EOF":              "could not read the request",
		"refund amount is less then or equals zero": "greater than zero",
	} {
		if got := (&APIError{Status: 400, Message: msg}).Hint(); !strings.Contains(got, want) {
			t.Errorf("%q: hint %q, want %q", msg, got, want)
		}
	}
}
