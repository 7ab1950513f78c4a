package sandbox

import (
	"errors"
	"fmt"
	"net"
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
	const elsewhere = "10.200.0.1"
	if !privnet.Run(t, elsewhere+" localhost\n", elsewhere) {
		return
	}
	var asked atomic.Int64
	l, err := net.Listen("tcp", elsewhere+":0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { asked.Add(1) })}
	go srv.Serve(l)
	defer srv.Close()
	base := fmt.Sprintf("http://localhost:%d", l.Addr().(*net.TCPAddr).Port)
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
