package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/netguard"
	"github.com/bnpl-cli/bnpl/internal/privnet"
)

// record forwards the app's keys over plain http only where the
// upstream's host reaches this machine: with localhost mapped elsewhere
// (a private namespace), nothing reaches the server there.
func TestRecordUpstreamFollowsNoLocalhostElsewhere(t *testing.T) {
	if !privnet.LocalhostElsewhere(t) {
		return
	}
	var asked atomic.Int64
	port := privnet.Serve(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { asked.Add(1) }))
	base := fmt.Sprintf("http://localhost:%d", port)
	u, tr, err := recordUpstream(nil, &config.Target{BaseURL: base})
	if err != nil {
		t.Fatalf("recordUpstream(%s): %v", base, err)
	}
	req, _ := http.NewRequest(http.MethodGet, u.String()+"/api/v2/payments", nil)
	req.Header.Set("Authorization", "Bearer sk_test_0123456789abcdef")
	resp, err := tr.RoundTrip(req)
	if err == nil {
		resp.Body.Close()
	}
	var nl *netguard.NotLoopbackError
	if !errors.As(err, &nl) || asked.Load() != 0 {
		t.Errorf("forwarding to %s: %v, the server elsewhere asked %d times; want a refusal and none", base, err, asked.Load())
	}
}
