package sandbox

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
)

const hookSecret = "s3cret-hook-value-42"

var mcAE = map[string]string{"X-Merchant-Code": "ae-sandbox"}

func (e *env) addDisputeHook(body any) resp {
	e.t.Helper()
	return e.call("POST", "/api/v1/dispute-webhooks", aeLive, mcAE, body)
}

func hookID(t testing.TB, r resp) string {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	return r.json(t)["id"].(string)
}

func TestDisputeWebhookURLRules(t *testing.T) {
	for _, c := range []struct {
		url        string
		allowLocal bool
		ok         bool
	}{
		{"https://hooks.shop-example.com/d", false, true},
		{"http://hooks.shop-example.com/d", false, true}, // https is only recommended
		{"https://other.shop-example.com:8443/x?y=1", false, true},
		{"http://localhost/d", false, false},
		{"http://127.0.0.1:9000/d", false, false},
		{"https://[::1]/d", false, false},
		{"https://93.184.216.34/d", false, false},
		{"https://nowhere.shop-example.com/d", false, false}, // does not resolve
		{"https://private.shop-example.com/d", false, false}, // resolves only to a private address
		{"ftp://hooks.shop-example.com/d", false, false},
		{"/relative/path", false, false},
		{"", false, false},
		{"https://user:pw@hooks.shop-example.com/d", false, false},
		{"http://127.0.0.1:9000/d", true, true},
		{"http://localhost:8080/d", true, true},
		{"https://[::1]:8443/d", true, true},
		{"https://hooks.shop-example.com/d", true, true},
		{"http://10.0.0.1/d", true, false}, // local means loopback only
		{"https://nowhere.shop-example.com/d", true, false},
	} {
		e := newDisputeEnv(t, Options{AllowLocalWebhooks: c.allowLocal})
		r := e.addDisputeHook(map[string]any{"url": c.url})
		if c.ok && r.status != 200 {
			t.Errorf("%q (local %t): %d %s", c.url, c.allowLocal, r.status, r.body)
		}
		if !c.ok {
			if r.status != 400 {
				t.Errorf("%q (local %t): %d %s, want 400", c.url, c.allowLocal, r.status, r.body)
				continue
			}
			wantError(t, r, 400, "bad_data", "bad_request")
		}
	}
}

func TestDisputeWebhookNormalisationUniquenessLimit(t *testing.T) {
	e := newDisputeEnv(t, Options{AllowLocalWebhooks: true})
	r := e.addDisputeHook(map[string]any{"url": "HTTPS://Hooks.Shop-Example.COM:443/Path/To/"})
	if r.status != 200 || r.json(t)["url"] != "https://hooks.shop-example.com/Path/To" {
		t.Fatalf("normalised: %d %s", r.status, r.body)
	}
	if r := e.addDisputeHook(map[string]any{"url": "HTTP://127.0.0.1:80/d/"}); r.json(t)["url"] != "http://127.0.0.1/d" {
		t.Fatalf("default port: %s", r.body)
	}
	// The same URL once normalised is a duplicate.
	wantError(t, e.addDisputeHook(map[string]any{"url": "https://hooks.shop-example.com/Path/To"}), 400, "bad_data", "bad_request")
	// But the path keeps its case.
	if r := e.addDisputeHook(map[string]any{"url": "https://hooks.shop-example.com/path/to"}); r.status != 200 {
		t.Fatalf("other path: %s", r.body)
	}
	if r := e.addDisputeHook(map[string]any{"url": "http://127.0.0.1:9004/d"}); r.status != 200 {
		t.Fatalf("fourth: %s", r.body)
	}
	wantError(t, e.addDisputeHook(map[string]any{"url": "http://127.0.0.1:9005/d"}), 400, "bad_data", "bad_request")
	r = e.call("GET", "/api/v1/dispute-webhooks", aeLive, mcAE, nil)
	var list []map[string]any
	if err := json.Unmarshal(r.body, &list); err != nil || len(list) != 4 {
		t.Fatalf("list: %s", r.body)
	}
	// Another merchant has its own 4, and its own URLs.
	kw := map[string]string{"X-Merchant-Code": "kw-sandbox"}
	if r := e.call("POST", "/api/v1/dispute-webhooks", kwLive, kw, map[string]any{"url": "http://127.0.0.1/d"}); r.status != 200 {
		t.Fatalf("kw: %s", r.body)
	}
	if r := e.call("GET", "/api/v1/dispute-webhooks", kwLive, kw, nil); strings.Count(string(r.body), `"id"`) != 1 {
		t.Fatalf("kw list: %s", r.body)
	}
}

func TestDisputeWebhookHeaderRulesAndMasking(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	url := "https://hooks.shop-example.com/d"
	for what, h := range map[string]map[string]any{
		"title not a token": {"title": "X Hook", "value": "v"},
		"title with colon":  {"title": "X-Hook:", "value": "v"},
		"title too long":    {"title": strings.Repeat("x", 129), "value": "v"},
		"value too long":    {"title": "X-Hook", "value": strings.Repeat("v", 1025)},
		"no value":          {"title": "X-Hook"},
		"no title":          {"value": "v"},
		"value line break":  {"title": "X-Hook", "value": "a\r\nb"},
	} {
		r := e.addDisputeHook(map[string]any{"url": url, "header": h})
		if r.status != 400 {
			t.Fatalf("%s: %d %s", what, r.status, r.body)
		}
		wantError(t, r, 400, "bad_data", "bad_request")
	}
	for what, body := range map[string]any{"empty": "", "not json": "url=x", "no url": map[string]any{"header": nil}, "url not a string": map[string]any{"url": 5}} {
		r := e.addDisputeHook(body)
		if r.status != 400 {
			t.Fatalf("%s: %d %s", what, r.status, r.body)
		}
		wantError(t, r, 400, "bad_data", "bad_request")
	}

	r := e.addDisputeHook(map[string]any{"url": url, "header": map[string]any{"title": strings.Repeat("x", 128), "value": strings.Repeat("v", 1020) + "tail"}})
	if r.status != 200 {
		t.Fatalf("limits: %s", r.body)
	}
	if h := r.json(t)["header"].(map[string]any); h["value"] != "****tail" {
		t.Fatalf("masked %v", h)
	}
	// A short value is masked whole.
	r = e.addDisputeHook(map[string]any{"url": url + "/short", "header": map[string]any{"title": "X-Hook", "value": "abcdefgh"}})
	if h := r.json(t)["header"].(map[string]any); h["value"] != "****" {
		t.Fatalf("short masked %v", h)
	}

	// Masked in every answer; PUT without header removes it.
	r = e.addDisputeHook(map[string]any{"url": url + "/secret", "header": map[string]any{"title": "X-Hook", "value": hookSecret}})
	id := hookID(t, r)
	answers := []resp{r,
		e.call("GET", "/api/v1/dispute-webhooks/"+id, aeLive, mcAE, nil),
		e.call("GET", "/api/v1/dispute-webhooks", aeLive, mcAE, nil),
		e.call("PUT", "/api/v1/dispute-webhooks/"+id, aeLive, mcAE, map[string]any{"url": url + "/secret2", "header": map[string]any{"title": "X-Hook", "value": hookSecret}}),
	}
	for i, a := range answers {
		if a.status != 200 || strings.Contains(string(a.body), "s3cret") || !strings.Contains(string(a.body), `"value":"****e-42"`) {
			t.Fatalf("answer %d: %d %s", i, a.status, a.body)
		}
	}
	r = e.call("PUT", "/api/v1/dispute-webhooks/"+id, aeLive, mcAE, map[string]any{"url": url + "/secret2"})
	if r.status != 200 || !strings.Contains(string(r.body), `"header":null`) {
		t.Fatalf("put without header: %s", r.body)
	}
	if g := e.call("GET", "/api/v1/dispute-webhooks/"+id, aeLive, mcAE, nil); !strings.Contains(string(g.body), `"header":null`) || !strings.Contains(string(g.body), "/secret2") {
		t.Fatalf("after put: %s", g.body)
	}
	// A PUT onto another webhook's URL is a duplicate.
	wantError(t, e.call("PUT", "/api/v1/dispute-webhooks/"+id, aeLive, mcAE, map[string]any{"url": url}), 400, "bad_data", "bad_request")
}

func TestDisputeWebhookMerchantHeaderAndIDs(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	body := map[string]any{"url": "https://hooks.shop-example.com/d"}
	wantError(t, e.call("POST", "/api/v1/dispute-webhooks", aeLive, nil, body), 400, "bad_data", "bad_request")
	wantError(t, e.call("GET", "/api/v1/dispute-webhooks", aeLive, nil, nil), 400, "bad_data", "bad_request")
	wantError(t, e.call("POST", "/api/v1/dispute-webhooks", aeLive, map[string]string{"X-Merchant-Code": "kw-sandbox"}, body), 401, "not_authorized", "invalid secret key")
	// The header name is case-insensitive.
	id := hookID(t, e.call("POST", "/api/v1/dispute-webhooks", aeLive, map[string]string{"x-merchant-code": "ae-sandbox"}, body))

	// Ids: a bad one is 400, another merchant's or an unknown one 404.
	wantError(t, e.call("GET", "/api/v1/dispute-webhooks/nope", aeLive, mcAE, nil), 400, "bad_data", "bad_request")
	kw := map[string]string{"X-Merchant-Code": "kw-sandbox"}
	wantError(t, e.call("GET", "/api/v1/dispute-webhooks/"+id, kwLive, kw, nil), 404, "not_found", "dispute webhook not found")
	wantError(t, e.call("PUT", "/api/v1/dispute-webhooks/"+someID, aeLive, mcAE, body), 404, "not_found", "dispute webhook not found")
	r := e.call("DELETE", "/api/v1/dispute-webhooks/"+id, aeLive, mcAE, nil)
	if r.status != 200 {
		t.Fatalf("delete: %s", r.body)
	}
	wantError(t, e.call("GET", "/api/v1/dispute-webhooks/"+id, aeLive, mcAE, nil), 404, "not_found", "dispute webhook not found")
	wantError(t, e.call("DELETE", "/api/v1/dispute-webhooks/"+id, aeLive, mcAE, nil), 404, "not_found", "dispute webhook not found")
	if r := e.call("GET", "/api/v1/dispute-webhooks", aeLive, mcAE, nil); strings.TrimSpace(string(r.body)) != "[]" {
		t.Fatalf("empty list: %s", r.body)
	}
}

func TestPaymentWebhooks(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	create := func(key string, body any) resp { return e.call("POST", "/api/v1/webhooks", key, nil, body) }
	const invalidURL = "create payment webhook: invalid webhook url"
	for _, u := range []string{"http://hooks.shop-example.com/p", "https://localhost/p", "https://127.0.0.1/p", "https://nowhere.shop-example.com/p", "not a url"} {
		wantError(t, create(aeTest, map[string]any{"url": u}), 400, "bad_data", invalidURL)
	}
	wantError(t, create(aeTest, map[string]any{}), 400, "bad_data", invalidURL)
	for _, body := range []any{"", "nope", `{"url": 5}`} {
		wantError(t, create(aeTest, body), 400, "bad_data", "json decode: EOF")
	}
	wantError(t, create(aeTest, map[string]any{"url": "https://hooks.shop-example.com/p", "header": map[string]any{"title": "bad title", "value": "x"}}),
		400, "bad_data", "create payment webhook: invalid webhook header")
	// A title the sandbox sets on every delivery itself would be
	// overwritten, or overwrite it.
	for _, title := range []string{"Content-Type", "User-Agent", "Bnpl-Sandbox-Event", "bnpl-sandbox-delivery"} {
		wantError(t, create(aeTest, map[string]any{"url": "https://hooks.shop-example.com/p", "header": map[string]any{"title": title, "value": hookSecret}}),
			400, "bad_data", "create payment webhook: invalid webhook header")
	}

	r := create(aeTest, map[string]any{"url": "HTTPS://Hooks.Shop-Example.com/p/", "is_test": false, "header": map[string]any{"title": "X-Hook", "value": hookSecret}})
	id := hookID(t, r)
	m := r.json(t)
	if m["url"] != "https://hooks.shop-example.com/p" || m["is_test"] != true || strings.Contains(string(r.body), "s3cret") {
		t.Fatalf("created %s", r.body)
	}
	wantError(t, create(aeTest, map[string]any{"url": "https://hooks.shop-example.com/p"}), 400, "bad_data", "create payment webhook: webhook already exists")
	// The live key has its own set, is_test false.
	lr := create(aeLive, map[string]any{"url": "https://hooks.shop-example.com/p"})
	if hookID(t, lr) == "" || lr.json(t)["is_test"] != false {
		t.Fatalf("live %s", lr.body)
	}
	for i := range outbox.MaxPaymentWebhooks - 1 {
		if r := create(aeTest, map[string]any{"url": "https://hooks.shop-example.com/p" + string(rune('a'+i))}); r.status != 200 {
			t.Fatalf("hook %d: %s", i, r.body)
		}
	}
	wantError(t, create(aeTest, map[string]any{"url": "https://hooks.shop-example.com/full"}), 400, "bad_data", "create payment webhook: max number of webhooks reached")

	list := e.call("GET", "/api/v1/webhooks", aeTest, nil, nil)
	var hooks []map[string]any
	if err := json.Unmarshal(list.body, &hooks); err != nil || len(hooks) != outbox.MaxPaymentWebhooks || strings.Contains(string(list.body), "s3cret") {
		t.Fatalf("list %s", list.body)
	}
	get := e.call("GET", "/api/v1/webhooks/"+id, aeTest, nil, nil)
	if get.status != 200 || !strings.Contains(string(get.body), `"value":"****e-42"`) || strings.Contains(string(get.body), "s3cret") {
		t.Fatalf("get %s", get.body)
	}
	wantError(t, e.call("GET", "/api/v1/webhooks/"+id, aeLive, nil, nil), 404, "not_found", "no such webhook")
	wantError(t, e.call("GET", "/api/v1/webhooks/not-a-uuid", aeTest, nil, nil), 400, "bad_data", "json decode: EOF")
	wantError(t, e.call("GET", "/api/v1/webhooks", "", nil, nil), 401, "not_authorized", "invalid secret key")
	wantError(t, e.call("GET", "/api/v1/webhooks", "sk_nobody", nil, nil), 401, "not_authorized", "api key not found")

	// PUT replaces: no header, new URL.
	put := e.call("PUT", "/api/v1/webhooks/"+id, aeTest, nil, map[string]any{"url": "https://other.shop-example.com/v2"})
	if put.status != 200 || !strings.Contains(string(put.body), `"header":null`) || put.json(t)["url"] != "https://other.shop-example.com/v2" {
		t.Fatalf("put %s", put.body)
	}
	wantError(t, e.call("PUT", "/api/v1/webhooks/"+someID, aeTest, nil, map[string]any{"url": "https://other.shop-example.com/v3"}), 404, "not_found", "no such webhook")
	wantError(t, e.call("PUT", "/api/v1/webhooks/"+id, aeTest, nil, ""), 400, "bad_data", "json decode: EOF")
	del := e.call("DELETE", "/api/v1/webhooks/"+id, aeTest, nil, nil)
	if del.status != 200 || strings.TrimSpace(string(del.body)) != `{"status":"ok"}` {
		t.Fatalf("delete %s", del.body)
	}
	wantError(t, e.call("DELETE", "/api/v1/webhooks/"+id, aeTest, nil, nil), 404, "not_found", "no such webhook")
	wantPlain404(t, e.call("PATCH", "/api/v1/webhooks/"+id, aeTest, nil, nil))
}

func TestPaymentWebhooksAllowLocal(t *testing.T) {
	e := newDisputeEnv(t, Options{AllowLocalWebhooks: true})
	r := e.call("POST", "/api/v1/webhooks", aeTest, nil, map[string]any{"url": "HTTP://127.0.0.1:80/hooks/"})
	if r.status != 200 || r.json(t)["url"] != "http://127.0.0.1/hooks" {
		t.Fatalf("%d %s", r.status, r.body)
	}
	// Public hosts still need https.
	wantError(t, e.call("POST", "/api/v1/webhooks", aeTest, nil, map[string]any{"url": "http://hooks.shop-example.com/p"}), 400, "bad_data", "create payment webhook: invalid webhook url")
}
