// Package plugins replays the request shapes of the service's own
// published merchant plugins against the sandbox, through the in-process
// transport of the embedded sandbox and over HTTP on loopback, and checks
// every field each plugin reads back from the answers and notifications.
// Each shape is built the way the plugin builds it (described in
// docs/sandbox.md, "What the service's own plugins send"); none of the
// plugins' code is used.
package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

const (
	merchant = "ae-sandbox"
	testKey  = "sk_test_ae_sandbox"
)

// target is one sandbox reached one way.
type target struct {
	t      *testing.T
	sb     *sandbox.Sandbox
	client *http.Client
	base   string
	// notes receives the body of every notification the sandbox delivers
	// to the plugin's webhook receiver.
	notes    chan map[string]any
	receiver string
}

// each runs f against a fresh sandbox reached through the in-process
// transport, then against another reached over HTTP on loopback.
func each(t *testing.T, f func(t *testing.T, tg *target)) {
	for _, mode := range []string{"in-process", "http"} {
		t.Run(mode, func(t *testing.T) {
			sb, err := sandbox.New(sandbox.Options{AllowLocalWebhooks: true, NoRequestLog: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sb.Close() })
			tg := &target{t: t, sb: sb, notes: make(chan map[string]any, 64)}
			recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				var m map[string]any
				if json.Unmarshal(b, &m) == nil {
					select {
					case tg.notes <- m:
					default:
					}
				}
				w.WriteHeader(http.StatusOK)
			}))
			t.Cleanup(recv.Close)
			tg.receiver = recv.URL + "/payment/tabby/webhook"
			if mode == "http" {
				srv := httptest.NewServer(sb.Handler("ae"))
				t.Cleanup(srv.Close)
				tg.client, tg.base = srv.Client(), srv.URL
			} else {
				tg.client, tg.base = &http.Client{Transport: sb.Transport("ae")}, "http://127.0.0.1"
			}
			f(t, tg)
		})
	}
}

// answer is a decoded response.
type answer struct {
	status int
	body   map[string]any
	list   []any
	raw    []byte
}

// call sends body (nil for none, []byte as is, else JSON) with the
// plugin's headers.
func (tg *target) call(method, path string, body any, headers map[string]string) answer {
	tg.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			tg.t.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, tg.base+path, rd)
	if err != nil {
		tg.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testKey)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := tg.client.Do(req)
	if err != nil {
		tg.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, raw: raw}
	_ = json.Unmarshal(raw, &a.body)
	_ = json.Unmarshal(raw, &a.list)
	return a
}

// ok fails unless the answer is a 200.
func (a answer) ok(t *testing.T, what string) answer {
	t.Helper()
	if a.status != http.StatusOK {
		t.Fatalf("%s: %d %s", what, a.status, a.raw)
	}
	return a
}

// approve plays the customer and waits for the notification of the
// payment, which the plugin reads.
func (tg *target) approve(id string) map[string]any {
	tg.t.Helper()
	if _, err := tg.sb.Approve(context.Background(), id); err != nil {
		tg.t.Fatal(err)
	}
	return tg.noteFor(id)
}

// noteFor waits for a notification about payment id.
func (tg *target) noteFor(id string) map[string]any {
	tg.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case n := <-tg.notes:
			if n["id"] == id {
				return n
			}
		case <-timeout:
			tg.t.Fatalf("no notification for payment %s", id)
		}
	}
}

// at reads a dotted path ("payment.id", "captures.0.amount") from a
// decoded JSON value.
func at(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		switch n := v.(type) {
		case map[string]any:
			v = n[p]
		case []any:
			i := 0
			for _, c := range p {
				i = i*10 + int(c-'0')
			}
			if i >= len(n) {
				return nil
			}
			v = n[i]
		default:
			return nil
		}
	}
	return v
}

// str reads a string at path, failing when there is none.
func str(t *testing.T, v any, path string) string {
	t.Helper()
	s, ok := at(v, path).(string)
	if !ok {
		t.Fatalf("%s: not a string: %v", path, at(v, path))
	}
	return s
}

// find returns the element of list whose key equals value (the plugins
// look up captures, refunds and webhooks this way).
func find(list any, key, value string) map[string]any {
	l, _ := list.([]any)
	for _, e := range l {
		if m, ok := e.(map[string]any); ok && m[key] == value {
			return m
		}
	}
	return nil
}

// clientAgrees checks the client's local verdict on a checkout body: nil
// problems when the sandbox took it, else a problem at each of paths.
func clientAgrees(t *testing.T, body []byte, sandboxTook bool, paths ...string) {
	t.Helper()
	v := api.ValidateCheckout(body, nil)
	if sandboxTook {
		if v != nil {
			t.Fatalf("the sandbox took the body, the client refuses it: %v", v)
		}
		return
	}
	if v == nil {
		t.Fatal("the sandbox refused the body, the client would send it")
	}
	for _, p := range paths {
		found := false
		for _, pr := range v.Problems {
			found = found || pr.Path == p
		}
		if !found {
			t.Errorf("the client names no problem at %s: %v", p, v)
		}
	}
}

// amountIs reports whether v is an amount string equal in value to want:
// the plugins read amounts as numbers (Python float(), PHP ==), so "115.5"
// and "115.50" are the same to them.
func amountIs(v any, want string) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	got, err := decimal.NewFromString(s)
	return err == nil && got.Equal(decimal.RequireFromString(want))
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
