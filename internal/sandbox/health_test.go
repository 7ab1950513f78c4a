package sandbox

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/sandbox/extras"
)

func getHealth(t *testing.T, h http.Handler) (int, extras.Health) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/_sandbox/health", nil))
	var body extras.Health
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("health body %q: %v", rec.Body.String(), err)
	}
	return rec.Code, body
}

// The health check answers 200 with the state's kind while the state can
// be read, and 503 once it cannot.
func TestHealthFollowsTheState(t *testing.T) {
	sb, err := New(Options{StatePath: t.TempDir() + "/state.db"})
	if err != nil {
		t.Fatal(err)
	}
	code, h := getHealth(t, sb.Handler("ae"))
	if code != http.StatusOK || h.Status != "ok" || h.State != "file" || h.Version == "" || h.Uptime == "" || h.Error != "" {
		t.Fatalf("open sandbox: %d %+v", code, h)
	}
	if code, h := getHealth(t, sb.Handler("sa")); code != http.StatusOK || h.State != "file" {
		t.Fatalf("sa: %d %+v", code, h)
	}
	sb.Close()
	code, h = getHealth(t, sb.Handler("ae"))
	if code != http.StatusServiceUnavailable || h.Status != "unavailable" || !strings.Contains(h.Error, "cannot be read") {
		t.Fatalf("closed sandbox: %d %+v", code, h)
	}

	mem, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if _, h := getHealth(t, mem.Handler("ae")); h.State != "memory" {
		t.Fatalf("in-memory sandbox says state %q", h.State)
	}
}

// remoteRequest is a request as it arrives over a connection from another
// machine (another container), to the given Host.
func remoteRequest(method, path, host string) *http.Request {
	r := httptest.NewRequest(method, path, nil)
	r.RemoteAddr = "10.88.0.5:41234"
	r.Host = host
	local := &net.TCPAddr{IP: net.ParseIP("10.88.0.2"), Port: 8700}
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, local))
}

// The control endpoints and the dashboard answer clients that are not
// loopback only with AllowRemoteControl; the hosted page and the health
// check answer them either way. The Host guard applies in both cases.
func TestRemoteControl(t *testing.T) {
	closed, err := New(Options{AllowHosts: []string{"bnpl-sandbox"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closed.Close() })
	open, err := New(Options{AllowHosts: []string{"BNPL-Sandbox."}, AllowRemoteControl: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { open.Close() })

	for _, c := range []struct {
		sb            *Sandbox
		method, path  string
		host          string
		want          int
		wantInMessage string
	}{
		{closed, "GET", "/_sandbox/clock", "bnpl-sandbox:8700", 403, "loopback clients only"},
		{closed, "GET", "/_sandbox/", "bnpl-sandbox:8700", 403, "loopback clients only"},
		{closed, "POST", "/_sandbox/reset", "bnpl-sandbox:8700", 403, "loopback clients only"},
		{closed, "GET", "/_sandbox/health", "bnpl-sandbox:8700", 200, ""},
		{open, "GET", "/_sandbox/clock", "bnpl-sandbox:8700", 200, ""},
		{open, "GET", "/_sandbox/", "10.88.0.2:8700", 200, ""},
		{open, "POST", "/_sandbox/reset", "bnpl-sandbox:8700", 200, ""},
		{open, "GET", "/_sandbox/clock", "rebound.example:8700", 403, "is not this sandbox's address"},
		{open, "GET", "/_sandbox/health", "rebound.example:8700", 403, "is not this sandbox's address; use http://127.0.0.1:PORT or http://localhost:PORT, or name the host with bnpl sandbox serve --allowed-host"},
	} {
		rec := httptest.NewRecorder()
		c.sb.Handler("ae").ServeHTTP(rec, remoteRequest(c.method, c.path, c.host))
		if rec.Code != c.want || !strings.Contains(rec.Body.String(), c.wantInMessage) {
			t.Errorf("%s %s (Host %s, remote control %v): %d %s, want %d %q", c.method, c.path, c.host, c.sb.remoteControl, rec.Code, rec.Body, c.want, c.wantInMessage)
		}
	}
}
