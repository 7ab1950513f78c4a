package cmdutil

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/privnet"
)

// The sandbox probe asks localhost only where it resolves to this
// machine: with localhost mapped elsewhere (a private namespace), a
// sandbox-like server there is never asked, while the same server at
// 127.0.0.1 is found.
func TestProbeSkipsLocalhostResolvingElsewhere(t *testing.T) {
	if !privnet.LocalhostElsewhere(t) {
		return
	}
	var asked atomic.Int64
	port := privnet.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		fmt.Fprint(w, `{"now":"2026-01-01T00:00:00Z"}`)
	}), "127.0.0.1")
	if ProbeSandbox(context.Background(), fmt.Sprintf("http://localhost:%d", port)) {
		t.Error("the probe took what localhost resolves to elsewhere for a sandbox on this machine")
	}
	if asked.Load() != 0 {
		t.Errorf("the server elsewhere was asked %d times", asked.Load())
	}
	if !ProbeSandbox(context.Background(), fmt.Sprintf("http://127.0.0.1:%d", port)) {
		t.Error("the probe does not find the sandbox at 127.0.0.1")
	}
	if LoopbackAddr(fmt.Sprintf("localhost:%d", port)) {
		t.Error("LoopbackAddr takes localhost for this machine where it resolves elsewhere")
	}
}
