package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
	"github.com/shopspring/decimal"
)

const (
	aeTest = "sk_test_ae_sandbox"
	aeLive = "sk_ae_sandbox"
	kwTest = "sk_test_kw_sandbox"
	saTest = "sk_test_sa_sandbox"
)

var testStart = time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)

type env struct {
	t     testing.TB
	sb    *Sandbox
	clock *store.FakeClock
}

func newEnv(t testing.TB, opts Options) *env {
	t.Helper()
	clock := store.NewFakeClock(testStart)
	if opts.Clock == nil {
		opts.Clock = clock
	}
	if opts.PublicURLs == nil {
		opts.PublicURLs = map[string]string{"ae": "http://ae.sandbox.test", "sa": "http://sa.sandbox.test"}
	}
	sb, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return &env{t: t, sb: sb, clock: clock}
}

type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.body)
	}
	return m
}

func (r resp) payment(t testing.TB) *wire.Payment {
	t.Helper()
	var p wire.Payment
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("body is not a payment: %v\n%s", err, r.body)
	}
	return &p
}

// bodyReader is a request body: a string sent as is, nil for none, or a
// value sent as JSON.
func bodyReader(t testing.TB, body any) io.Reader {
	t.Helper()
	switch b := body.(type) {
	case nil:
		return nil
	case string:
		return strings.NewReader(b)
	}
	j, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(j)
}

// do sends one request to the region's handler; body may be a string
// (sent as is), nil (no body) or a value (sent as JSON).
func (e *env) do(region, method, path, key string, body any) resp {
	e.t.Helper()
	rd := bodyReader(e.t, body)
	req := httptest.NewRequest(method, path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	w := httptest.NewRecorder()
	e.sb.Handler(region).ServeHTTP(w, req)
	return resp{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
}

// wantError checks a simple-form error body.
func wantError(t testing.TB, r resp, status int, errorType, message string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
	m := r.json(t)
	if m["status"] != "error" || m["errorType"] != errorType {
		t.Fatalf("body %s, want status error and errorType %s", r.body, errorType)
	}
	if message == "" {
		if _, has := m["error"]; has {
			t.Fatalf("body %s has an error message, want none", r.body)
		}
		return
	}
	got, _ := m["error"].(string)
	if strings.HasSuffix(message, "...") {
		if !strings.HasPrefix(got, strings.TrimSuffix(message, "...")) {
			t.Fatalf("error %q, want prefix %q", got, strings.TrimSuffix(message, "..."))
		}
		return
	}
	if got != message {
		t.Fatalf("error %q, want %q", got, message)
	}
}

// wantFieldError checks a field-validation body names field with code.
func wantFieldError(t testing.TB, r resp, field, code, message string) {
	t.Helper()
	if r.status != 400 {
		t.Fatalf("status %d, want 400; body %s", r.status, r.body)
	}
	var body struct {
		Status    string            `json:"status"`
		ErrorType string            `json:"errorType"`
		Errors    []edge.FieldError `json:"errors"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Status != "error" || body.ErrorType != "bad_data" {
		t.Fatalf("body %s", r.body)
	}
	for _, f := range body.Errors {
		if f.Field == field && f.Code == code && (message == "" || f.Message == message) {
			return
		}
	}
	t.Fatalf("no field error %s/%s %q in %s", field, code, message, r.body)
}

func wantPlain404(t testing.TB, r resp) {
	t.Helper()
	if r.status != 404 || strings.TrimSpace(string(r.body)) != "404 page not found" {
		t.Fatalf("got %d %q, want plain 404 page not found", r.status, r.body)
	}
}

// checkoutBody is a valid creation request for the merchant.
func checkoutBody(merchant, currency, amount string) map[string]any {
	return map[string]any{
		"lang":          "en",
		"merchant_code": merchant,
		"merchant_urls": map[string]any{
			"success": "https://shop.example/ok",
			"cancel":  "https://shop.example/cancel",
			"failure": "https://shop.example/fail",
		},
		"payment": map[string]any{
			"amount":      amount,
			"currency":    currency,
			"description": "test order",
			"buyer": map[string]any{
				"name": "Test Buyer", "email": "otp.success@tabby.ai", "phone": "+971500000001", "dob": "1990-01-02",
			},
			"shipping_address": map[string]any{"city": "Dubai", "address": "Tower 1", "zip": "00000"},
			"order": map[string]any{
				"reference_id": "order-1",
				"items": []any{map[string]any{
					"title": "Shoes", "quantity": 1, "unit_price": amount, "category": "Clothes",
				}},
			},
			"buyer_history": map[string]any{"registered_since": "2020-01-01T00:00:00Z", "loyalty_level": 0},
			"order_history": []any{map[string]any{
				"purchased_at": "2025-01-01T00:00:00Z", "amount": "10.00", "status": "new",
			}},
			"meta": map[string]any{"order_id": "o-1", "customer": "c-1"},
		},
	}
}

// set writes v at a dotted path of a nested map (creating nothing).
func set(m map[string]any, path string, v any) map[string]any {
	parts := strings.Split(path, ".")
	cur := m
	for _, p := range parts[:len(parts)-1] {
		cur = cur[p].(map[string]any)
	}
	if v == nil {
		delete(cur, parts[len(parts)-1])
	} else {
		cur[parts[len(parts)-1]] = v
	}
	return m
}

// createSession creates a checkout for ae-sandbox (test mode) and answers
// the session.
func (e *env) createSession(body map[string]any, key string) *wire.CheckoutSession {
	e.t.Helper()
	region := "ae"
	if key == saTest {
		region = "sa"
	}
	r := e.do(region, "POST", "/api/v2/checkout", key, body)
	if r.status != 200 {
		e.t.Fatalf("checkout: %d %s", r.status, r.body)
	}
	var s wire.CheckoutSession
	if err := json.Unmarshal(r.body, &s); err != nil {
		e.t.Fatal(err)
	}
	return &s
}

// authorized answers the id of a fresh AUTHORIZED ae-sandbox test payment.
func (e *env) authorized(amount string) string {
	e.t.Helper()
	s := e.createSession(checkoutBody("ae-sandbox", "AED", amount), aeTest)
	if _, err := e.sb.Approve(context.Background(), s.ID); err != nil {
		e.t.Fatal(err)
	}
	return s.Payment.ID
}

func (e *env) get(id string) *wire.Payment {
	e.t.Helper()
	r := e.do("ae", "GET", "/api/v2/payments/"+id, aeTest, nil)
	if r.status != 200 {
		e.t.Fatalf("get payment: %d %s", r.status, r.body)
	}
	return r.payment(e.t)
}

func (e *env) doRaw(region, method, path string, headers map[string]string, body any) resp {
	e.t.Helper()
	rd := bodyReader(e.t, body)
	req := httptest.NewRequest(method, path, rd)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	e.sb.Handler(region).ServeHTTP(w, req)
	return resp{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func decodeJSON(t testing.TB, res *http.Response, into any) {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", res.Request.Method, res.Request.URL, res.StatusCode, b)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// lockedBuffer is a buffer a serving sandbox writes to while the test
// reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

func decimalFromInt(n int) decimal.Decimal { return decimal.NewFromInt(int64(n)) }
