package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// stateHolds tells whether any of the state's files holds b.
func stateHolds(t *testing.T, path string, b []byte) string {
	t.Helper()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if bytes.Contains(data, b) {
			return filepath.Base(p)
		}
	}
	return ""
}

// A webhook's header value leaves the state file (and its -wal) when the
// webhook is removed, replaced, or the sandbox is reset, while the sandbox
// keeps running.
func TestHeaderValuesLeaveTheState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	e := newDisputeEnv(t, Options{StatePath: path})
	const url = "https://hooks.shop-example.com/d"
	for i, how := range []string{"delete", "update", "reset"} {
		secret := []byte("hv-marker-" + how + "-0123456789")
		r := e.addDisputeHook(map[string]any{"url": url + "/" + how, "header": map[string]any{"title": "X-Hook", "value": string(secret)}})
		id := hookID(t, r)
		// Payment webhooks keep their header too.
		pr := e.call("POST", "/api/v1/webhooks", aeLive, nil, map[string]any{"url": url + "/p" + how, "header": map[string]any{"title": "X-Hook", "value": string(secret) + "-p"}})
		if pr.status != 200 {
			t.Fatalf("payment webhook: %d %s", pr.status, pr.body)
		}
		pid := pr.json(t)["id"].(string)
		if where := stateHolds(t, path, secret); where == "" {
			t.Fatalf("%d: the header value is not in the state at all; the test proves nothing", i)
		}
		switch how {
		case "delete":
			if r := e.call("DELETE", "/api/v1/dispute-webhooks/"+id, aeLive, mcAE, nil); r.status != 200 {
				t.Fatalf("delete: %d %s", r.status, r.body)
			}
			if r := e.call("DELETE", "/api/v1/webhooks/"+pid, aeLive, nil, nil); r.status != 200 {
				t.Fatalf("delete: %d %s", r.status, r.body)
			}
		case "update":
			// A PUT without a header removes it; the remove that follows
			// scrubs the file.
			if r := e.call("PUT", "/api/v1/dispute-webhooks/"+id, aeLive, mcAE, map[string]any{"url": url + "/" + how}); r.status != 200 {
				t.Fatalf("put: %d %s", r.status, r.body)
			}
			if r := e.call("DELETE", "/api/v1/dispute-webhooks/"+id, aeLive, mcAE, nil); r.status != 200 {
				t.Fatalf("delete: %d %s", r.status, r.body)
			}
			if r := e.call("DELETE", "/api/v1/webhooks/"+pid, aeLive, nil, nil); r.status != 200 {
				t.Fatalf("delete: %d %s", r.status, r.body)
			}
		case "reset":
			if r := e.local("POST", "/_sandbox/reset", ""); r.status != 200 {
				t.Fatalf("reset: %d %s", r.status, r.body)
			}
		}
		if where := stateHolds(t, path, secret); where != "" {
			t.Fatalf("after %s, %s still holds the header value", how, where)
		}
	}
}
