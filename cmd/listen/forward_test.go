package listen

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/webhook"
)

// captured answers every request 200 and keeps the last one's headers.
type captured struct{ header http.Header }

func (c *captured) RoundTrip(r *http.Request) (*http.Response, error) {
	c.header = r.Header.Clone()
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}, Request: r}, nil
}

func TestCheckForward(t *testing.T) {
	for _, c := range []struct {
		url      string
		insecure bool
		refused  string // part of the refusal; "" allowed
		loopback bool
	}{
		{"http://127.0.0.1:3000/h", false, "", true},
		{"http://127.9.9.9/h", false, "", true},
		{"http://localhost:3000/h", false, "", true},
		{"http://LOCALHOST./h", false, "", true},
		{"http://[::1]:3000/h", false, "", true},
		{"http://[::ffff:127.0.0.1]/h", false, "", true},
		{"https://hooks.shop-example.com/h", false, "", false},
		{"https://10.0.0.7/h", false, "", false},
		{"http://hooks.shop-example.com/h", false, "plain http to hooks.shop-example.com", false},
		{"http://192.168.1.5:3000/h", false, "plain http to 192.168.1.5", false},
		{"http://localhost.shop-example.com/h", false, "plain http", false},
		{"http://127.0.0.1.nip.io/h", false, "plain http", false},
		{"http://hooks.shop-example.com/h", true, "", false},
		{"localhost:3000", false, "invalid --forward-to", false},
		{"http:///h", false, "invalid --forward-to", false},
	} {
		target, err := checkForward(c.url, c.insecure)
		if c.refused != "" {
			if err == nil || !strings.Contains(err.Error(), c.refused) || cmdutil.ExitCode(err) != 2 {
				t.Errorf("%s: got %v, want a usage error saying %q", c.url, err, c.refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if (target.keep == nil) != c.loopback || (target.note == "") != c.loopback {
			t.Errorf("%s: keep %v, note %q; loopback %v", c.url, target.keep, target.note, c.loopback)
		}
	}
}

// TestForwardOffThisMachineCarriesNoSecrets: the forward to another
// machine drops Authorization, the webhook's header and anything else not
// describing the notification, over https and over --insecure-forward
// http alike; to loopback every header goes.
func TestForwardOffThisMachineCarriesNoSecrets(t *testing.T) {
	for _, c := range []struct {
		url      string
		insecure bool
		secrets  bool // forwarded with the secrets
	}{
		{"https://hooks.shop-example.com/h", false, false},
		{"http://hooks.shop-example.com/h", true, false},
		{"https://10.0.0.7/h", false, false},
		{"http://127.0.0.1:3000/h", false, true},
	} {
		target, err := checkForward(c.url, c.insecure)
		if err != nil {
			t.Fatal(err)
		}
		rt := &captured{}
		recv := &webhook.Receiver{HeaderTitle: "X-Hook", HeaderValue: hookSecret, ForwardTo: c.url, ForwardKeep: target.keep, Client: &http.Client{Transport: rt}}
		req := httptest.NewRequest("POST", "/hooks", strings.NewReader(`{"id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","status":"closed","amount":"1.00","currency":"AED"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Hook", hookSecret)
		req.Header.Set("Authorization", "Bearer sk_live_0123456789")
		req.Header.Set("Cookie", "session=1")
		req.Header.Set(webhook.EventHeader, "closed")
		w := httptest.NewRecorder()
		recv.ServeHTTP(w, req)
		if w.Code != 200 || rt.header == nil {
			t.Fatalf("%s: answered %d, forwarded %v", c.url, w.Code, rt.header != nil)
		}
		if rt.header.Get("Content-Type") != "application/json" || rt.header.Get(webhook.EventHeader) != "closed" {
			t.Errorf("%s: forwarded headers %v lack the notification's", c.url, rt.header)
		}
		for _, h := range []string{"X-Hook", "Authorization", "Cookie"} {
			if got := rt.header.Get(h) != ""; got != c.secrets {
				t.Errorf("%s: %s forwarded %v, want %v", c.url, h, got, c.secrets)
			}
		}
	}
}
