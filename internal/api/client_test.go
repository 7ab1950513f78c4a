package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shopspring/decimal"
)

func TestNewRefusesKeyOverPlainHTTPToRemoteHosts(t *testing.T) {
	tests := []struct {
		base, key string
		ok        bool
	}{
		{"http://api.example.com", testKey, false},
		{"http://10.0.0.8:8700", testKey, false},
		{"http://localhost.example.com", testKey, false},
		{"http://127.0.0.1:8700", testKey, true},
		{"http://127.8.9.10", testKey, true},
		{"http://localhost:8700/", testKey, true},
		{"http://LOCALHOST", testKey, true},
		{"http://[::1]:8700", testKey, true},
		{"https://api.tabby.ai", testKey, true},
		{"http://api.example.com", "", true},
		{"api.tabby.ai", testKey, false},
		{"ftp://api.tabby.ai", testKey, false},
		{"https://user:pw@api.tabby.ai", testKey, false},
	}
	for _, tt := range tests {
		_, err := New(Options{BaseURL: tt.base, SecretKey: tt.key})
		if (err == nil) != tt.ok {
			t.Errorf("New(%q, key %v): err = %v, want ok=%v", tt.base, tt.key != "", err, tt.ok)
			continue
		}
		if err != nil {
			var oe *OptionsError
			if !errors.As(err, &oe) || oe.ExitCode() != 2 || oe.Hint() == "" {
				t.Errorf("New(%q): %T %v, want an OptionsError with a hint", tt.base, err, err)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("the key leaked into %q", err)
			}
		}
	}
}

func TestHeaders(t *testing.T) {
	var mu sync.Mutex
	got := map[string]http.Header{}
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Method+" "+r.URL.Path] = r.Header.Clone()
		mu.Unlock()
		switch {
		case strings.HasPrefix(r.URL.Path, "/api/v1/webhooks"), strings.HasPrefix(r.URL.Path, "/api/v1/dispute-webhooks"):
			writeJSON(w, 200, []any{})
		default:
			writeJSON(w, 200, map[string]any{"id": testPaymentID})
		}
	})
	c, _ := newTestClient(t, srv.URL+"/", nil)
	ctx := context.Background()
	if _, err := c.GetPayment(ctx, testPaymentID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListWebhooks(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListDisputeWebhooks(ctx); err != nil {
		t.Fatal(err)
	}
	pay := got["GET /api/v2/payments/"+testPaymentID]
	if pay == nil {
		t.Fatalf("requests seen: %v", got)
	}
	if pay.Get("Authorization") != "Bearer "+testKey || pay.Get("User-Agent") != "bnpl/1.2.3" || pay.Get("Accept") != "application/json" {
		t.Errorf("payment headers: UA %q Accept %q auth set %v", pay.Get("User-Agent"), pay.Get("Accept"), pay.Get("Authorization") != "")
	}
	if pay.Get("X-Merchant-Code") != "" {
		t.Error("X-Merchant-Code belongs to webhook calls only")
	}
	for _, k := range []string{"GET /api/v1/webhooks", "GET /api/v1/dispute-webhooks"} {
		if got[k].Get("X-Merchant-Code") != "ae-test" {
			t.Errorf("%s: X-Merchant-Code = %q", k, got[k].Get("X-Merchant-Code"))
		}
	}
}

func TestDryRunSendsNothingAndMasks(t *testing.T) {
	srv := newCounted(t, func(w http.ResponseWriter, _ *http.Request) { t.Error("a dry run reached the server") })
	var out bytes.Buffer
	c, _ := newTestClient(t, srv.URL, func(o *Options) { o.DryRun = &out })
	ctx := context.Background()

	res, err := c.Capture(ctx, testPaymentID, CaptureRequest{Amount: decimal.RequireFromString("12.50"), ReferenceID: "order-77"})
	if !errors.Is(err, ErrDryRun) {
		t.Fatalf("err = %v, want ErrDryRun", err)
	}
	if res == nil || res.ReferenceID != "order-77" || res.Attempts != 0 {
		t.Errorf("result = %+v", res)
	}
	_, err = c.CreateDisputeWebhook(ctx, DisputeWebhookRequest{URL: "https://shop.example/disputes", Header: &WebhookHeader{Title: "X-Sign", Value: "signing-secret-9876"}})
	if !errors.Is(err, ErrDryRun) {
		t.Fatalf("err = %v", err)
	}
	if srv.Hits() != 0 {
		t.Fatalf("hits = %d, want 0", srv.Hits())
	}
	text := out.String()
	for _, want := range []string{
		"POST " + srv.URL + "/api/v2/payments/" + testPaymentID + "/captures\n",
		"Authorization: Bearer sk_test_****WXYZ\n",
		"Content-Type: application/json\n",
		"User-Agent: bnpl/1.2.3\n",
		"{\n  \"amount\": \"12.5\",\n  \"reference_id\": \"order-77\"\n}",
		"POST " + srv.URL + "/api/v1/dispute-webhooks\n",
		"X-Merchant-Code: ae-test\n",
		`"value": "****9876"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, text)
		}
	}
	for _, secret := range []string{testKey, "signing-secret-9876"} {
		if strings.Contains(text, secret) {
			t.Errorf("dry run output shows a secret:\n%s", text)
		}
	}
	if exitCodeOf(err) != 0 {
		t.Error("ErrDryRun must exit 0")
	}
}

// exitCodeOf is the exit code the command layer would use.
func exitCodeOf(err error) int {
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	return 1
}

func TestDebugNeverShowsSecrets(t *testing.T) {
	const headerValue = "whsec-very-secret-1234"
	// A careless server (or proxy) that echoes everything, the key included.
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		_ = json.Unmarshal(body, &req)
		w.Header().Set("X-Echo-Auth", r.Header.Get("Authorization"))
		writeJSON(w, 200, map[string]any{
			"id": testOtherID, "url": req["url"], "header": req["header"],
			"debug": map[string]any{"authorization": r.Header.Get("Authorization")},
		})
	})
	var debug bytes.Buffer
	c, _ := newTestClient(t, srv.URL, func(o *Options) { o.Debug = &debug })
	w, err := c.CreateWebhook(context.Background(), WebhookRequest{URL: "https://shop.example/hook", Header: &WebhookHeader{Title: "X-Sign", Value: headerValue}})
	if err != nil {
		t.Fatal(err)
	}
	if w.ID != testOtherID {
		t.Errorf("webhook = %+v", w)
	}
	// The echoed value is masked in the result too, which printers use.
	if w.Header == nil || w.Header.Value != "****1234" || strings.Contains(string(w.Raw()), headerValue) || !strings.Contains(string(w.Raw()), `"****1234"`) {
		t.Errorf("webhook header %+v, raw %s", w.Header, w.Raw())
	}
	text := debug.String()
	if strings.Contains(text, testKey) || strings.Contains(text, headerValue) {
		t.Fatalf("debug output shows a secret:\n%s", text)
	}
	for _, want := range []string{
		"> POST " + srv.URL + "/api/v1/webhooks\n",
		"> Authorization: Bearer sk_test_****WXYZ\n",
		"> X-Merchant-Code: ae-test\n",
		"< 200 OK (",
		`"value": "****1234"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("debug output lacks %q:\n%s", want, text)
		}
	}
}

func TestIDsAreValidatedBeforeSending(t *testing.T) {
	srv := newCounted(t, func(w http.ResponseWriter, _ *http.Request) { t.Error("an invalid id reached the server") })
	c, _ := newTestClient(t, srv.URL, nil)
	ctx := context.Background()
	one := decimal.NewFromInt(1)
	for _, bad := range []string{"", "abc", "../../api/v2/payments", "{3f0c8a4e-5d2b-4c1a-9e7f-2b6d8c0a1e3f}", "3f0c8a4e5d2b4c1a9e7f2b6d8c0a1e3f", "urn:uuid:3f0c8a4e-5d2b-4c1a-9e7f-2b6d8c0a1e3f", "3f0c8a4e-5d2b-4c1a-9e7f-2b6d8c0a1e3g"} {
		calls := map[string]func() error{
			"GetCheckout":   func() error { _, err := c.GetCheckout(ctx, bad); return err },
			"GetCheckoutQR": func() error { _, err := c.GetCheckoutQR(ctx, bad); return err },
			"GetPayment":    func() error { _, err := c.GetPayment(ctx, bad); return err },
			"UpdatePayment": func() error { _, err := c.UpdatePayment(ctx, bad, "r-1"); return err },
			"Capture":       func() error { _, err := c.Capture(ctx, bad, CaptureRequest{Amount: one}); return err },
			"Refund":        func() error { _, err := c.Refund(ctx, bad, RefundRequest{Amount: one}); return err },
			"Close":         func() error { _, err := c.Close(ctx, bad); return err },
			"GetWebhook":    func() error { _, err := c.GetWebhook(ctx, bad); return err },
			"UpdateWebhook": func() error {
				_, err := c.UpdateWebhook(ctx, bad, WebhookRequest{URL: "https://x.example"})
				return err
			},
			"DeleteWebhook":     func() error { return c.DeleteWebhook(ctx, bad) },
			"GetDisputeWebhook": func() error { _, err := c.GetDisputeWebhook(ctx, bad); return err },
			"ReplaceDisputeWebhook": func() error {
				_, err := c.ReplaceDisputeWebhook(ctx, bad, DisputeWebhookRequest{URL: "https://x.example"})
				return err
			},
			"DeleteDisputeWebhook": func() error { return c.DeleteDisputeWebhook(ctx, bad) },
			"GetDispute":           func() error { _, err := c.GetDispute(ctx, bad); return err },
			"ProvideEvidence":      func() error { _, err := c.ProvideEvidence(ctx, bad, EvidenceRequest{Content: "x"}); return err },
			"ApproveDisputes":      func() error { _, err := c.ApproveDisputes(ctx, []string{testPaymentID, bad}); return err },
			"ChallengeDispute": func() error {
				_, err := c.ChallengeDispute(ctx, ChallengeRequest{DisputeID: bad, Description: "x", Reason: "merchant_reason_other"})
				return err
			},
			"EvidenceAttachment": func() error {
				_, err := c.ProvideEvidence(ctx, testPaymentID, EvidenceRequest{Content: "x", AttachmentIDs: []string{bad}})
				return err
			},
		}
		for name, call := range calls {
			err := call()
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.ExitCode() != 2 || !strings.Contains(ve.Error(), "is not a UUID") {
				t.Errorf("%s(%q): err = %v, want a ValidationError", name, bad, err)
			}
		}
	}
	if srv.Hits() != 0 {
		t.Errorf("hits = %d, want 0", srv.Hits())
	}
}

func TestLocalValidation(t *testing.T) {
	srv := newCounted(t, func(w http.ResponseWriter, _ *http.Request) { t.Error("an invalid request reached the server") })
	c, _ := newTestClient(t, srv.URL, nil)
	ctx := context.Background()
	long := strings.Repeat("v", MaxHeaderValue+1)
	tests := map[string]struct {
		call func() error
		want []string
	}{
		"capture amounts": {func() error {
			neg := decimal.NewFromInt(-1)
			_, err := c.Capture(ctx, testPaymentID, CaptureRequest{Amount: decimal.Zero, TaxAmount: &neg})
			return err
		}, []string{"$.amount: must be greater than zero", "$.tax_amount: must not be negative"}},
		"refund amount": {func() error {
			_, err := c.Refund(ctx, testPaymentID, RefundRequest{Amount: decimal.NewFromInt(-5)})
			return err
		}, []string{"$.amount"}},
		"list params": {func() error {
			_, err := c.ListPayments(ctx, ListPaymentsParams{Status: "paid", Limit: 21, Offset: -1, CreatedAtGTE: "yesterday"})
			return err
		}, []string{"status:", "limit:", "offset:", "created_at__gte:"}},
		"webhook header": {func() error {
			_, err := c.CreateDisputeWebhook(ctx, DisputeWebhookRequest{URL: "not a url", Header: &WebhookHeader{Title: "Bad Title", Value: long}})
			return err
		}, []string{"$.url", "$.header.title", "$.header.value: must be at most 1024"}},
		"challenge": {func() error {
			_, err := c.ChallengeDispute(ctx, ChallengeRequest{DisputeID: testPaymentID, Reason: ChallengeReasonAmount})
			return err
		}, []string{"$.description", "$.amount: is required"}},
		"approve count":    {func() error { _, err := c.ApproveDisputes(ctx, nil); return err }, []string{"at least one"}},
		"checkout body":    {func() error { _, err := c.CreateCheckout(ctx, json.RawMessage(`[1]`)); return err }, []string{"must be a JSON object"}},
		"update reference": {func() error { _, err := c.UpdatePayment(ctx, testPaymentID, " "); return err }, []string{"$.order.reference_id"}},
	}
	for name, tt := range tests {
		err := tt.call()
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: err = %v, want a ValidationError", name, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(ve.Error(), w) {
				t.Errorf("%s: %q lacks %q", name, ve.Error(), w)
			}
		}
		if strings.Contains(ve.Error(), long) {
			t.Errorf("%s: a header value was quoted", name)
		}
	}
	if srv.Hits() != 0 {
		t.Errorf("hits = %d", srv.Hits())
	}
}

func TestUnknownFieldsArePreservedInRaw(t *testing.T) {
	f := newFakePayments(t, "100.00")
	srv := newCounted(t, f.ServeHTTP)
	c, _ := newTestClient(t, srv.URL, nil)
	p, err := c.GetPayment(context.Background(), testPaymentID)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(p.Raw(), &back); err != nil {
		t.Fatal(err)
	}
	if _, ok := back["extra_field"]; !ok {
		t.Errorf("Raw() lost the unknown field: %s", p.Raw())
	}
	if !p.Amount.Equal(decimal.RequireFromString("100")) || p.Status != StatusAuthorized {
		t.Errorf("payment = %+v", p)
	}
}

func TestListShapes(t *testing.T) {
	var body atomic.Value
	srv := newCounted(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body.Load().(string)))
	})
	c, _ := newTestClient(t, srv.URL, nil)
	for in, want := range map[string]int{
		`null`:                                  0,
		``:                                      0,
		`[]`:                                    0,
		`{"id":"a","url":"https://x.example/"}`: 1,
		`[{"id":"a","url":"https://x.example/","is_test":true},{"id":"b","url":"https://y.example/"}]`:  2,
		`{"id":"a","url":"https://x.example/","header":{"title":"X-Sign","value":"clear-text-secret"}}`: 1,
		`[{"id":"a","url":"https://x.example/","header":{"title":"X-Sign","value":"****cret"}}]`:        1,
	} {
		body.Store(in)
		hooks, err := c.ListWebhooks(context.Background())
		if err != nil || hooks == nil || len(hooks) != want {
			t.Errorf("ListWebhooks on %q: %v, %d hooks", in, err, len(hooks))
			continue
		}
		if want > 0 && (hooks[0].ID != "a" || len(hooks[0].Raw()) == 0) {
			t.Errorf("ListWebhooks on %q: %+v", in, hooks[0])
		}
		if want > 0 && hooks[0].Header != nil && (hooks[0].Header.Value != "****cret" || !strings.Contains(string(hooks[0].Raw()), `"****cret"`)) {
			t.Errorf("ListWebhooks on %q: header %+v raw %s", in, hooks[0].Header, hooks[0].Raw())
		}
	}
}

func TestQueries(t *testing.T) {
	var query atomic.Value
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		query.Store(r.URL.RawQuery)
		switch r.URL.Path {
		case "/api/v2/payments":
			writeJSON(w, 200, map[string]any{"payments": nil, "pagination": map[string]int{"limit": 5, "offset": 10, "total_count": 12}})
		default:
			writeJSON(w, 200, map[string]any{"disputes": []any{}, "next_page_token": ""})
		}
	})
	c, _ := newTestClient(t, srv.URL, nil)
	ctx := context.Background()
	l, err := c.ListPayments(ctx, ListPaymentsParams{Status: "Captured", CreatedAtGTE: "2026-01-02", CreatedAtLTE: "2026-02-01T10:00:00Z", Limit: 5, Offset: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := query.Load(); got != "created_at__gte=2026-01-02&created_at__lte=2026-02-01T10%3A00%3A00Z&limit=5&offset=10&status=captured" {
		t.Errorf("payments query = %s", got)
	}
	if l.Payments == nil || l.Pagination.TotalCount != 12 {
		t.Errorf("list = %+v", l)
	}
	if _, err := c.ListPayments(ctx, ListPaymentsParams{}); err != nil || query.Load() != "" {
		t.Errorf("empty params: err %v query %q", err, query.Load())
	}
	d, err := c.ListDisputes(ctx, DisputeListParams{Statuses: []string{"new", "declined"}, CreatedAtGTE: "2022-12-01T00:00:00Z", PageToken: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	if got := query.Load(); got != "created_at_gte=2022-12-01T00%3A00%3A00Z&page_token=tok&statuses=new&statuses=declined" {
		t.Errorf("disputes query = %s", got)
	}
	if d.Disputes == nil || d.NextPageToken != "" {
		t.Errorf("disputes = %+v", d)
	}
}

func TestGetDisputeUnwraps(t *testing.T) {
	const inner = `{"id":"` + testOtherID + `","payment_id":"` + testPaymentID + `","amount":"100.00","currency":"AED","status":"new","reason":"unreceived_refund","days_left":14,"history":[{"event_type":"dispute_created","source":"customer"}],"unmodelled":1}`
	var body atomic.Value
	srv := newCounted(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(body.Load().(string)))
	})
	c, _ := newTestClient(t, srv.URL, nil)
	for _, b := range []string{`{"dispute":` + inner + `}`, inner} {
		body.Store(b)
		d, err := c.GetDispute(context.Background(), testOtherID)
		if err != nil {
			t.Fatal(err)
		}
		if d.ID != testOtherID || d.DaysLeft != 14 || len(d.History) != 1 || !d.Amount.Equal(decimal.NewFromInt(100)) {
			t.Errorf("dispute = %+v", d)
		}
		if string(d.Raw()) != inner {
			t.Errorf("Raw() = %s, want the inner object", d.Raw())
		}
	}
}

func TestUploadAttachmentResendsTheWholeFile(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 3000)...)
	var mu sync.Mutex
	var sizes []int
	var names []string
	var calls atomic.Int64
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil {
			t.Errorf("content type: %v", err)
			return
		}
		mr := multipart.NewReader(r.Body, params["boundary"])
		part, err := mr.NextPart()
		if err != nil {
			t.Errorf("multipart: %v", err)
			return
		}
		data, _ := io.ReadAll(part)
		mu.Lock()
		sizes = append(sizes, len(data))
		names = append(names, part.FormName()+"="+part.FileName())
		mu.Unlock()
		if calls.Add(1) == 1 {
			answer500(w, r)
			return
		}
		writeJSON(w, 200, map[string]string{"id": testOtherID})
	})
	c, _ := newTestClient(t, srv.URL, nil)
	up, err := c.UploadAttachment(context.Background(), "/tmp/receipts/proof.png", bytes.NewReader(png))
	if err != nil {
		t.Fatal(err)
	}
	if up.ID != testOtherID {
		t.Errorf("id = %q", up.ID)
	}
	if len(sizes) != 2 || sizes[0] != len(png) || sizes[1] != len(png) {
		t.Errorf("sizes sent = %v, want the whole %d bytes twice", sizes, len(png))
	}
	if names[0] != "attachment=proof.png" {
		t.Errorf("part = %s", names[0])
	}

	_, err = c.UploadAttachment(context.Background(), "notes.txt", strings.NewReader("just text"))
	var ve *ValidationError
	if !errors.As(err, &ve) || !strings.Contains(ve.Error(), "PNG, JPEG or PDF") {
		t.Errorf("text upload: %v", err)
	}
	big := bytes.NewReader(append([]byte("%PDF-1.7\n"), make([]byte, MaxAttachmentBytes)...))
	if _, err := c.UploadAttachment(context.Background(), "big.pdf", big); !errors.As(err, &ve) || !strings.Contains(ve.Error(), "at most 5 MB") {
		t.Errorf("big upload: %v", err)
	}
	if srv.Hits() != 2 {
		t.Errorf("hits = %d", srv.Hits())
	}
}

func TestRaw(t *testing.T) {
	var seen atomic.Value
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen.Store(r.Method + " " + r.URL.RequestURI() + " " + r.Header.Get("X-Merchant-Code") + " " + r.Header.Get("Content-Type") + " " + string(body))
		if strings.HasPrefix(r.URL.Path, "/missing") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Trace", "t-1")
		writeJSON(w, 200, map[string]any{"ok": true})
	})
	c, _ := newTestClient(t, srv.URL, nil)
	ctx := context.Background()

	resp, err := c.Raw(ctx, RawRequest{Method: "get", Path: "/api/v2/payments?limit=5", Query: map[string][]string{"offset": {"20"}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 || resp.Header.Get("X-Trace") != "t-1" || !strings.Contains(string(resp.Body), `"ok":true`) {
		t.Errorf("resp = %+v", resp)
	}
	if got := seen.Load(); got != "GET /api/v2/payments?limit=5&offset=20   " {
		t.Errorf("sent %q", got)
	}

	if _, err := c.Raw(ctx, RawRequest{Method: "POST", Path: "/api/v1/webhooks", Body: []byte(`{"url":"https://x.example"}`)}); err != nil {
		t.Fatal(err)
	}
	if got := seen.Load(); got != `POST /api/v1/webhooks ae-test application/json {"url":"https://x.example"}` {
		t.Errorf("sent %q", got)
	}

	resp, err = c.Raw(ctx, RawRequest{Method: "DELETE", Path: "/missing/thing"})
	e, ok := AsAPIError(err)
	if !ok || resp == nil || resp.Status != 404 || string(resp.Body) != "404 page not found\n" || e.ExitCode() != 6 {
		t.Errorf("404: resp %+v err %v", resp, err)
	}

	hits := srv.Hits()
	for _, bad := range []RawRequest{
		{Method: "GET", Path: "https://evil.example/steal"},
		{Method: "GET", Path: "//evil.example/steal"},
		{Method: "GET", Path: "api/v2/payments"},
		{Method: "GE T", Path: "/api/v2/payments"},
	} {
		if _, err := c.Raw(ctx, bad); exitCodeOf(err) != 2 {
			t.Errorf("Raw(%+v): err = %v, want a validation error", bad, err)
		}
	}
	if srv.Hits() != hits {
		t.Error("an invalid raw request was sent")
	}
}

func TestCheckoutAndQR(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nrest-of-image")
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/hpp_link_qr"):
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(png)
		case r.Method == http.MethodPost:
			var req CheckoutRequest
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.MerchantCode != "ae-test" {
				writeError(w, 400, "bad_data", "could not decode request")
				return
			}
			writeJSON(w, 200, map[string]any{
				"id": testOtherID, "status": "rejected", "token": nil,
				"payment": map[string]any{"id": testPaymentID, "amount": "10.00", "currency": "AED"},
				"configuration": map[string]any{
					"available_products": map[string]any{"installments": []any{}},
					"products":           map[string]any{"installments": map[string]any{"type": "installments", "is_available": false, "rejection_reason": "not_available"}},
				},
			})
		default:
			writeJSON(w, 200, map[string]any{"id": testOtherID, "status": "created", "lang": "en"})
		}
	})
	c, _ := newTestClient(t, srv.URL, nil)
	ctx := context.Background()
	s, err := c.CreateCheckout(ctx, CheckoutRequest{Lang: "en", MerchantCode: "ae-test", Payment: Payment{Amount: decimal.RequireFromString("10.00"), Currency: "AED"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Status != SessionRejected || s.RejectionReason() != "not_available" || s.Payment.ID != testPaymentID {
		t.Errorf("session = %+v", s)
	}
	if s, err := c.GetCheckout(ctx, testOtherID); err != nil || s.Lang != "en" {
		t.Errorf("GetCheckout: %v %+v", err, s)
	}
	img, err := c.GetCheckoutQR(ctx, testOtherID)
	if err != nil || !bytes.Equal(img, png) {
		t.Errorf("QR: %v %q", err, img)
	}
}

// Headers a person adds (bnpl api -H) may carry tokens: debug and dry-run
// output mask them, and a base URL's password never shows in an error.
func TestDebugMasksAddedHeadersAndURLPasswords(t *testing.T) {
	var dry strings.Builder
	c, err := New(Options{BaseURL: "http://127.0.0.1:1", SecretKey: "sk_test_0123456789abcdef", DryRun: &dry})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Raw(context.Background(), RawRequest{Method: "GET", Path: "/api/v2/payments",
		Header: http.Header{"X-Secret": {"hunter2hunter2"}, "Cookie": {"session=abcdef123456"}, "Accept": {"application/json"}}})
	if !errors.Is(err, ErrDryRun) {
		t.Fatalf("dry run: %v", err)
	}
	out := dry.String()
	for _, leak := range []string{"hunter2hunter2", "abcdef123456", "0123456789abcdef"} {
		if strings.Contains(out, leak) {
			t.Errorf("dry run shows %q:\n%s", leak, out)
		}
	}
	if !strings.Contains(out, "application/json") {
		t.Errorf("dry run hides a harmless header:\n%s", out)
	}
	_, err = New(Options{BaseURL: "http://user:passw0rd@127.0.0.1:8700?x=1", SecretKey: "sk_test_0123456789abcdef"})
	if err == nil || strings.Contains(err.Error(), "passw0rd") {
		t.Errorf("base URL error leaks the password or is missing: %v", err)
	}
}
