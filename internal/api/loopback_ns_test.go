package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/netguard"
	"github.com/bnpl-cli/bnpl/internal/privnet"
)

// A live key for http://localhost goes nowhere when localhost resolves
// elsewhere: the test runs itself again in a private network and mount
// namespace whose /etc/hosts maps localhost to another address, where a
// server listens and notes every Authorization it gets.
func TestLiveKeyNotSentWhereLocalhostResolvesElsewhere(t *testing.T) {
	if privnet.LocalhostElsewhere(t) {
		inPrivateNamespace(t)
	}
}

func inPrivateNamespace(t *testing.T) {
	var mu sync.Mutex
	var got []string
	note := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Host+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"payments":[]}`)
	})
	port := privnet.Serve(t, note, "127.0.0.1")
	// The namespace is as meant: a client that trusts the name reaches
	// the other address.
	resp, err := http.Get(fmt.Sprintf("http://localhost:%d/probe", port))
	if err != nil {
		t.Fatalf("localhost is not served in the namespace: %v", err)
	}
	resp.Body.Close()
	mu.Lock()
	if len(got) != 1 {
		t.Fatalf("the plain request to localhost reached %d servers", len(got))
	}
	got = nil
	mu.Unlock()

	const live = "sk_live_4f9a8b7c6d5e4f3a2b1c0d9e"
	c, err := New(Options{BaseURL: fmt.Sprintf("http://localhost:%d", port), SecretKey: live, Retries: 0})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	_, err = c.GetPayment(context.Background(), "8f6c3a52-7d3e-4b8f-9a57-1b2c3d4e5f60")
	var nl *netguard.NotLoopbackError
	if !errors.As(err, &nl) {
		t.Errorf("the request to localhost answered %v, want a refusal naming where localhost resolves", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 0 {
		t.Errorf("the live key reached a server (%d requests)", len(got))
	}
	if err != nil && (strings.Contains(err.Error(), live) || !strings.Contains(err.Error(), privnet.Elsewhere)) {
		t.Errorf("the refusal %q should name %s and never the key", err, privnet.Elsewhere)
	}
	// And the guard's own answers.
	if netguard.LoopbackHost(context.Background(), "localhost") {
		t.Error("netguard takes localhost for this machine where it resolves elsewhere")
	}
	if !netguard.LoopbackHost(context.Background(), "127.0.0.1") {
		t.Error("netguard refuses 127.0.0.1")
	}
}
