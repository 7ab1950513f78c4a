package sandbox

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A page that rebinds its own name to this machine cannot use the
// sandbox's public built-in key: the service's paths check the Host as
// the sandbox's own do (addresses, localhost, the public URL's host and
// the allowed names pass).
func TestAPIRefusesAReboundHost(t *testing.T) {
	sb, err := New(Options{PublicURLs: map[string]string{"ae": "https://sandbox.shop.example"}, AllowHosts: []string{"bnpl-sandbox"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	for _, c := range []struct {
		host string
		want int
	}{
		{"rebound.example:8700", http.StatusForbidden},
		{"127.0.0.1.nip.io:8700", http.StatusForbidden},
		{"127.0.0.1:8700", http.StatusOK},
		{"[::1]:8700", http.StatusOK},
		{"localhost:8700", http.StatusOK},
		{"sandbox.shop.example", http.StatusOK},
		{"bnpl-sandbox:8700", http.StatusOK},
	} {
		r := httptest.NewRequest(http.MethodGet, "/api/v2/payments?limit=1", nil)
		r.RemoteAddr = "127.0.0.1:50000"
		r.Host = c.host
		r.Header.Set("Authorization", "Bearer sk_test_ae_sandbox")
		local := &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 8700}
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, local))
		rec := httptest.NewRecorder()
		sb.Handler("ae").ServeHTTP(rec, r)
		if rec.Code != c.want {
			t.Errorf("Host %s: %d %s, want %d", c.host, rec.Code, rec.Body, c.want)
		}
		if c.want == http.StatusForbidden && !strings.Contains(rec.Body.String(), "is not this sandbox's address") {
			t.Errorf("Host %s: the refusal does not say why: %s", c.host, rec.Body)
		}
	}
}
