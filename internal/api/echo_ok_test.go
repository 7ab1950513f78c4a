package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// echoingOK answers 200 with what the service would answer, its strings
// quoting the Authorization header, a custom header and the request body:
// a proxy or a service that echoes credentials in a successful answer.
func echoingOK(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	said := fmt.Sprintf("%s %s %s", r.Header.Get("Authorization"), r.Header.Get("X-Token"), body)
	payment := map[string]any{
		"id": "3f0c8a4e-5d2b-4c1a-9e7f-2b6d8c0a1e3f", "amount": "10.00", "currency": "AED",
		"status": "AUTHORIZED", "description": said, "captures": []any{}, "refunds": []any{},
		"meta": map[string]any{said: said},
	}
	switch {
	case r.URL.Path == "/api/v2/payments":
		writeJSON(w, http.StatusOK, map[string]any{"payments": []any{payment}, "pagination": map[string]any{"limit": 20, "offset": 0, "total_count": 1}})
	case strings.HasPrefix(r.URL.Path, "/api/v1/webhooks"):
		writeJSON(w, http.StatusOK, map[string]any{"id": "wh_1", "url": said, "is_test": true, "header": map[string]any{"title": "X-Hook", "value": said}})
	default:
		writeJSON(w, http.StatusOK, payment)
	}
}

func TestEchoedSecretsInSuccessfulAnswersAreMasked(t *testing.T) {
	srv := newCounted(t, echoingOK)
	c, _ := newTestClient(t, srv.URL, func(o *Options) { o.Secrets = []string{"other-secret-of-profile"} })
	ctx := context.Background()
	const hookValue = "signing-value-0042"

	p, err := c.GetPayment(ctx, "3f0c8a4e-5d2b-4c1a-9e7f-2b6d8c0a1e3f")
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.ListPayments(ctx, ListPaymentsParams{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.CreateWebhook(ctx, WebhookRequest{
		URL:    "https://shop.example.com/hooks",
		Header: &WebhookHeader{Title: "X-Hook", Value: hookValue},
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Raw(ctx, RawRequest{
		Method: "POST", Path: "/api/v2/x", Header: http.Header{"X-Token": {"custom-token-77"}},
		Body: []byte(`{"note":"other-secret-of-profile"}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{
		"payment raw":   string(p.Raw()),
		"payment":       p.Description + fmt.Sprint(p.Meta),
		"list raw":      string(l.Raw()),
		"list":          l.Payments[0].Description,
		"webhook raw":   string(w.Raw()),
		"webhook":       w.URL + w.Header.Value,
		"raw body":      string(resp.Body),
		"payment again": string(l.Payments[0].Raw()),
	}
	for name, text := range texts {
		for _, s := range []string{testKey, hookValue, "custom-token-77", "other-secret-of-profile"} {
			if strings.Contains(text, s) {
				t.Errorf("%s shows %q:\n%s", name, s, text)
			}
		}
	}
	if !strings.Contains(p.Description, "Bearer sk_test_****WXYZ") {
		t.Errorf("description: %q", p.Description)
	}
	if !strings.Contains(string(resp.Body), "****n-77") || !strings.Contains(string(resp.Body), `"status":"AUTHORIZED"`) {
		t.Errorf("raw body: %s", resp.Body)
	}
}

// An answer that echoes nothing is handed on byte for byte: key order,
// spacing and all.
func TestAnswerWithoutSecretsIsUntouched(t *testing.T) {
	page := listPage(20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(page)
	}))
	t.Cleanup(srv.Close)
	c, _ := newTestClient(t, srv.URL, nil)
	resp, err := c.Raw(context.Background(), RawRequest{Method: "GET", Path: "/api/v2/payments"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(resp.Body, page) {
		t.Errorf("the body changed:\n%s", resp.Body)
	}
}

// listPage is a page of n payments as the service writes it, with no
// secret in it.
func listPage(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"payments":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"3f0c8a4e-5d2b-4c1a-9e7f-2b6d8c0a%04x","amount":"1250.00","currency":"AED","description":"Order %d","status":"CLOSED","is_test":true,`+
			`"created_at":"2026-11-20T10:00:00Z","expires_at":"2026-12-20T10:00:00Z",`+
			`"buyer":{"name":"Buyer %d","email":"buyer%d@example.com","phone":"+971500000%03d"},`+
			`"order":{"reference_id":"ORD-%d","items":[{"title":"Item","quantity":1,"unit_price":"1250.00","reference_id":"SKU-1","category":"general"}]},`+
			`"captures":[{"id":"c%d","amount":"1250.00","created_at":"2026-11-20T10:05:00Z","reference_id":"CAP-%d"}],"refunds":[],"meta":{"order_id":"%d"}}`,
			i, i, i, i, i, i, i, i, i)
	}
	fmt.Fprintf(&b, `],"pagination":{"limit":%d,"offset":0,"total_count":%d}}`, n, n)
	return b.Bytes()
}

// BenchmarkMaskAnswer is what masking costs a successful answer: a page of
// 20 payments that echoes nothing (the normal case: a few bytes.Contains),
// and the same page echoing the key (decoded, masked, encoded again).
func BenchmarkMaskAnswer(b *testing.B) {
	c, err := New(Options{BaseURL: "http://127.0.0.1:1", SecretKey: testKey, Secrets: []string{"sk_live_0123456789abcdefWXYZ"}})
	if err != nil {
		b.Fatal(err)
	}
	clean := listPage(20)
	echoed := bytes.Replace(clean, []byte("Order 7"), []byte("Order "+testKey), 1)
	for _, bc := range []struct {
		name string
		body []byte
	}{{"clean", clean}, {"echoed", echoed}} {
		b.Run(fmt.Sprintf("%s-%dB", bc.name, len(bc.body)), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.body)))
			for i := 0; i < b.N; i++ {
				cl := &call{method: http.MethodGet, path: "/api/v2/payments"}
				out := c.maskAnswer(cl, bc.body)
				if bc.name == "echoed" && bytes.Contains(out, []byte(testKey)) {
					b.Fatal("not masked")
				}
			}
		})
	}
	// For scale: decoding the same page, which every answer pays anyway.
	b.Run("decode-for-scale", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(clean)))
		for i := 0; i < b.N; i++ {
			var l PaymentList
			if err := json.Unmarshal(clean, &l); err != nil || len(l.Payments) != 20 {
				b.Fatal(err)
			}
		}
	})
}
