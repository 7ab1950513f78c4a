package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/har"
	"github.com/bnpl-cli/bnpl/internal/nodns"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// TestMain makes any DNS lookup by a test of this package fatal.
func TestMain(m *testing.M) {
	nodns.Install()
	os.Exit(m.Run())
}

const (
	testKey = "sk_test_ae_sandbox"
	liveKey = "sk_ae_sandbox"
)

// studio is a served sandbox standing in for the service, a recording
// proxy in front of it, and a receiver on loopback that adds the
// notifications it gets to the same recording, as listen --record does.
type studio struct {
	t        testing.TB
	sb       *sandbox.Sandbox
	service  *httptest.Server // the stand-in for the service (possibly altered)
	proxy    *httptest.Server // what the app talks to
	receiver *httptest.Server
	writer   *har.Writer
	path     string
}

// newStudio serves a sandbox (through alter, when given) and records what
// goes through the proxy.
func newStudio(t testing.TB, alter func(http.Handler) http.Handler) *studio {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{AllowLocalWebhooks: true, NoRequestLog: true})
	if err != nil {
		t.Fatal(err)
	}
	s := &studio{t: t, sb: sb, path: filepath.Join(t.TempDir(), "recording.har")}
	var h http.Handler = sb.Handler("ae")
	if alter != nil {
		h = alter(h)
	}
	s.service = httptest.NewServer(h)
	if s.writer, err = har.OpenWriter(s.path, har.LogMeta{Region: "ae", Target: s.service.URL}, "test", 0); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(s.service.URL)
	scrub := har.NewScrubber(nil)
	s.proxy = httptest.NewServer(&har.Recorder{Upstream: u, Transport: s.service.Client().Transport, Writer: s.writer, Scrubber: scrub,
		Record: func(p string) bool { return !strings.HasPrefix(p, "/_sandbox/") }})
	s.receiver = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.writer.Append(scrub.Entry(har.Exchange{Kind: har.KindNotification, Started: time.Now(), Method: r.Method,
			URL: "http://" + r.Host + r.URL.Path, ReqHeader: r.Header, ReqBody: body, ReqSize: int64(len(body)),
			Status: 200, RespHeader: http.Header{}}))
	}))
	t.Cleanup(func() {
		s.proxy.Close()
		s.receiver.Close()
		s.service.Close()
		s.writer.Close()
		sb.Close()
	})
	return s
}

// call is the app: a request through the proxy. It answers the status and
// the decoded body (nil when not JSON).
func (s *studio) call(method, path, key string, body any, header ...string) (int, map[string]any) {
	s.t.Helper()
	var in io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		in = bytes.NewReader(b)
	case string:
		in = strings.NewReader(b)
	default:
		raw, _ := json.Marshal(b)
		in = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, s.proxy.URL+path, in)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

// customer plays the customer on the stand-in itself: not through the
// proxy, so the recording holds only its results, as a recording of the
// service would.
func (s *studio) customer(path string, body any) map[string]any {
	s.t.Helper()
	raw, _ := json.Marshal(body)
	resp, err := http.Post(s.service.URL+path, "application/json", bytes.NewReader(raw))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("%s: %d %s", path, resp.StatusCode, b)
	}
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// settle waits until the stand-in has delivered every notification due.
func (s *studio) settle() {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		n, err := s.sb.PendingDeliveries(context.Background())
		if err == nil && n == 0 {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%d deliveries still pending", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// recording reads what was recorded, once the proxy and the receiver
// have finished with every request (an entry is written after its answer
// went out).
func (s *studio) recording() *Recording {
	s.t.Helper()
	s.proxy.Close()
	s.receiver.Close()
	data, err := os.ReadFile(s.path)
	if err != nil {
		s.t.Fatal(err)
	}
	rec, err := Load(s.path, data)
	if err != nil {
		s.t.Fatal(err)
	}
	return rec
}

// verify replays the recording against a fresh sandbox in memory.
func verify(t testing.TB, rec *Recording) *Report {
	t.Helper()
	target, closeIt, err := Embedded(rec)
	if err != nil {
		t.Fatal(err)
	}
	defer closeIt()
	rep, err := NewEngine(rec, target).Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func checkout(amount, currency, email, phone, order string) map[string]any {
	return map[string]any{
		"payment": map[string]any{
			"amount": amount, "currency": currency, "description": "replay test",
			"buyer":            map[string]any{"name": "Test Buyer", "email": email, "phone": phone, "dob": "1990-01-01"},
			"shipping_address": map[string]any{"city": "Dubai", "address": "Building 1", "zip": "00000"},
			"order": map[string]any{"reference_id": order, "tax_amount": "0.00", "shipping_amount": "0.00", "discount_amount": "0.00",
				"items": []any{map[string]any{"title": "Item", "quantity": 1, "unit_price": amount, "category": "shoes", "reference_id": "SKU-1"}}},
			"buyer_history": map[string]any{"registered_since": "2020-01-01T00:00:00Z", "loyalty_level": 0},
			"order_history": []any{},
		},
		"lang": "en", "merchant_code": "ae-sandbox",
		"merchant_urls": map[string]any{"success": "https://shop.example.com/ok", "cancel": "https://shop.example.com/cancel", "failure": "https://shop.example.com/fail"},
	}
}

func str(m map[string]any, path ...string) string {
	var v any = m
	for _, k := range path {
		obj, _ := v.(map[string]any)
		v = obj[k]
	}
	s, _ := v.(string)
	return s
}

// describe lists differences for a failure message.
func describe(diffs []Difference) string {
	var b strings.Builder
	for _, d := range diffs {
		b.WriteString("\n  #" + itoa(d.N) + " " + d.Method + " " + d.Path + " " + d.Field + " [" + d.Kind + "] " + d.Want + " | " + d.Got)
	}
	return b.String()
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
