package sandbox

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/store"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

func TestControlEndpoints(t *testing.T) {
	e := newEnv(t, Options{})
	ctrl := func(method, path, remote, body string) resp {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.RemoteAddr = remote
		w := httptest.NewRecorder()
		e.sb.Handler("ae").ServeHTTP(w, req)
		return resp{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
	}
	local := "127.0.0.1:40000"
	s := e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest)

	wantError(t, ctrl("POST", "/_sandbox/checkout/"+s.ID+"/approve", "192.0.2.1:1234", ""), 403, "no_permission", "sandbox control endpoints answer loopback clients only")
	r := ctrl("POST", "/_sandbox/checkout/"+s.ID+"/approve", "[::1]:4000", "")
	if r.status != 200 || r.payment(t).Status != wire.StatusAuthorized {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	wantError(t, ctrl("POST", "/_sandbox/checkout/"+s.ID+"/approve", local, ""), 400, "bad_data", "only CREATED payments can be approved; this one is AUTHORIZED")
	wantError(t, ctrl("POST", "/_sandbox/payments/"+unknownID+"/reject", local, ""), 404, "not_found", "no such payment")
	wantError(t, ctrl("POST", "/_sandbox/payments/nope/cancel", local, ""), 400, "bad_data", "invalid payment id")

	r = ctrl("POST", "/_sandbox/payments/"+s.Payment.ID+"/expire-auth", local, "")
	if r.status != 200 {
		t.Fatalf("expire-auth: %d %s", r.status, r.body)
	}
	wantError(t, e.do("ae", "POST", "/api/v2/payments/"+s.Payment.ID+"/close", aeTest, nil), 400, "bad_data", "could not cancel payment: payment was already expired")

	s2 := e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest)
	if r := ctrl("POST", "/_sandbox/payments/"+s2.Payment.ID+"/reject", local, ""); r.payment(t).Status != wire.StatusRejected {
		t.Fatalf("reject: %s", r.body)
	}
	s3 := e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest)
	if r := ctrl("POST", "/_sandbox/checkout/"+s3.ID+"/cancel", local, ""); r.payment(t).Status != wire.StatusExpired {
		t.Fatalf("cancel: %s", r.body)
	}

	// The clock moves for the whole sandbox, by query or by body.
	s4 := e.createSession(checkoutBody("ae-sandbox", "AED", "10"), aeTest)
	if r := ctrl("POST", "/_sandbox/clock/advance?by=20m", local, ""); r.status != 200 {
		t.Fatalf("advance: %d %s", r.status, r.body)
	}
	if r := ctrl("POST", "/_sandbox/clock/advance", local, `{"by": "10m"}`); r.status != 200 || r.json(t)["offset"] != "30m0s" {
		t.Fatalf("advance: %d %s", r.status, r.body)
	}
	if p := e.get(s4.Payment.ID); p.Status != wire.StatusExpired {
		t.Fatalf("after 30m %s", p.Status)
	}
	if r := ctrl("GET", "/_sandbox/clock", local, ""); r.json(t)["now"] != testStart.Add(30*time.Minute).Format(time.RFC3339) {
		t.Fatalf("clock: %s", r.body)
	}
	wantError(t, ctrl("POST", "/_sandbox/clock/advance?by=soon", local, ""), 400, "bad_data", "invalid duration...")
	wantError(t, ctrl("POST", "/_sandbox/clock/advance?by=-1h", local, ""), 400, "bad_data", "the sandbox clock only moves forward")
	if r := ctrl("POST", "/_sandbox/clock/advance", local, `2d`); r.status != 200 || r.json(t)["offset"] != "48h30m0s" {
		t.Fatalf("advance by days: %s", r.body)
	}

	if r := ctrl("POST", "/_sandbox/reset", local, ""); r.status != 200 {
		t.Fatalf("reset: %d", r.status)
	}
	wantError(t, e.do("ae", "GET", "/api/v2/payments/"+s.Payment.ID, aeTest, nil), 404, "not_found", "no such payment")
	if r := ctrl("GET", "/_sandbox/clock", local, ""); r.json(t)["offset"] != "0s" {
		t.Fatalf("reset should drop the clock offset: %s", r.body)
	}
}

func TestTransport(t *testing.T) {
	e := newEnv(t, Options{})
	client := &http.Client{Transport: e.sb.Transport("ae")}
	req, _ := http.NewRequest("POST", "http://sandbox.invalid/api/v2/checkout", strings.NewReader(mustJSON(t, checkoutBody("ae-sandbox", "AED", "10"))))
	req.Header.Set("Authorization", "Bearer "+aeTest)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q", ct)
	}
	var s wire.CheckoutSession
	decodeJSON(t, res, &s)
	if !strings.HasPrefix(s.WebURL(), "http://ae.sandbox.test/") {
		t.Fatalf("web_url %s", s.WebURL())
	}
	// Loopback-only endpoints accept the in-process caller.
	res, err = client.Post("http://sandbox.invalid/_sandbox/checkout/"+s.ID+"/approve", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var p wire.Payment
	decodeJSON(t, res, &p)
	if p.Status != wire.StatusAuthorized {
		t.Fatal(p.Status)
	}
	// Binary bodies arrive whole.
	res, err = client.Get("http://sandbox.invalid/api/v2/checkout/" + s.ID + "/hpp_link_qr")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.ContentLength != int64(len(b)) || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("png: %d bytes, Content-Length %d", len(b), res.ContentLength)
	}
	wantPlain404(t, func() resp {
		res, err := client.Get("http://sandbox.invalid/nowhere")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		return resp{status: res.StatusCode, body: b}
	}())
	// A cancelled context ends the call.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ = http.NewRequestWithContext(ctx, "GET", "http://sandbox.invalid/api/v2/payments", nil)
	if _, err := client.Do(req); err == nil {
		t.Fatal("a cancelled request should fail")
	}
}

func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out := &lockedBuffer{}
	done := make(chan error, 1)
	ae, sa := freeAddr(t), freeAddr(t)
	go func() {
		done <- Serve(ctx, ServeOptions{AEAddr: ae, SAAddr: sa}, out)
	}()
	var res *http.Response
	var err error
	for range 100 {
		req, _ := http.NewRequest("GET", "http://"+sa+"/api/v2/payments", nil)
		req.Header.Set("Authorization", "Bearer "+saTest)
		if res, err = http.DefaultClient.Do(req); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	var l wire.PaymentList
	decodeJSON(t, res, &l)
	req, _ := http.NewRequest("GET", "http://"+ae+"/api/v2/payments", nil)
	req.Header.Set("Authorization", "Bearer "+saTest)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 403 {
		t.Fatalf("sa key on ae: %d", res.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not stop")
	}
	text := out.String()
	for _, want := range []string{"http://" + ae, "http://" + sa, "ae-sandbox", "sk_test_kw_sandbox", "sk_sa_sandbox"} {
		if !strings.Contains(text, want) {
			t.Fatalf("banner lacks %q:\n%s", want, text)
		}
	}
}

func TestLoadMerchants(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	yamlFile := write("m.yaml", `merchants:
  - code: my-store
    region: AE
    currency: aed
    name: My Store
    test_key: sk_test_my
    live_key: sk_my
    tokens_enabled: true
`)
	ms, err := store.LoadMerchants(yamlFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Region != "ae" || ms[0].Currency != "AED" || !ms[0].TokensEnabled {
		t.Fatalf("%+v", ms)
	}
	jsonFile := write("m.json", `[{"code": "k", "region": "sa", "currency": "SAR", "test_key": "sk_test_k"}]`)
	if ms, err := store.LoadMerchants(jsonFile); err != nil || ms[0].Name != "k" {
		t.Fatalf("%+v %v", ms, err)
	}
	for name, text := range map[string]string{
		"empty.yaml":    `merchants: []`,
		"region.yaml":   `[{code: a, region: eu, currency: AED, test_key: sk_test_a}]`,
		"currency.yaml": `[{code: a, region: sa, currency: AED, test_key: sk_test_a}]`,
		"prefix.yaml":   `[{code: a, region: ae, currency: AED, test_key: sk_a}]`,
		"live.yaml":     `[{code: a, region: ae, currency: AED, live_key: sk_test_a}]`,
		"nokey.yaml":    `[{code: a, region: ae, currency: AED}]`,
		"dupe.yaml":     `[{code: a, region: ae, currency: AED, test_key: sk_test_a}, {code: a, region: ae, currency: AED, test_key: sk_test_b}]`,
		"dupekey.yaml":  `[{code: a, region: ae, currency: AED, test_key: sk_test_a}, {code: b, region: ae, currency: AED, test_key: sk_test_a}]`,
		"broken.yaml":   `{{{`,
	} {
		if _, err := store.LoadMerchants(write(name, text)); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
	if _, err := store.LoadMerchants(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("missing file")
	}
	// A loaded merchant works end to end.
	e := newEnv(t, Options{Merchants: ms})
	e.createSession(set(checkoutBody("my-store", "AED", "10"), "token", "t"), "sk_test_my")
	wantError(t, e.do("ae", "GET", "/api/v2/payments", aeTest, nil), 401, "not_authorized", "api key not found")
}
