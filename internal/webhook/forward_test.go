package webhook

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/webhook/webhooktest"
)

// forwardSink is the merchant's endpoint: a loopback server that keeps
// the headers of each forward, and the address each dial was for.
type forwardSink struct {
	srv    *httptest.Server
	mu     sync.Mutex
	header []http.Header
	dialed []string
}

func newForwardSink(t *testing.T) *forwardSink {
	s := &forwardSink{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.header = append(s.header, r.Header.Clone())
		s.mu.Unlock()
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// dial reaches the sink whatever address was judged, and records it: the
// test's stand-in for another machine.
func (s *forwardSink) dial(ctx context.Context, network, address string) (net.Conn, error) {
	s.mu.Lock()
	s.dialed = append(s.dialed, address)
	s.mu.Unlock()
	var d net.Dialer
	return d.DialContext(ctx, network, s.srv.Listener.Addr().String())
}

func (s *forwardSink) port() string {
	_, port, _ := net.SplitHostPort(s.srv.Listener.Addr().String())
	return port
}

// forwardOnce sends a delivery with the checked header, Authorization and a
// cookie through a receiver that forwards to target.
func forwardOnce(t *testing.T, title, target string, rules ForwardRules) *ForwardResult {
	t.Helper()
	var rec recorder
	r := rec.receiver()
	r.HeaderTitle, r.HeaderValue, r.ForwardTo = title, hookSecret, target
	r.Forward = rules
	h := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer sk_live_0123456789"},
		"Cookie": {"session=1"}, EventHeader: {"captured"}}
	h.Set(title, hookSecret) // the checked header, whatever its title
	post(t, r, paymentBody, h)
	if len(rec.notes) != 1 || rec.notes[0].Forward == nil {
		t.Fatalf("%s: no forward reported", target)
	}
	return rec.notes[0].Forward
}

// A forward is judged by the address its host resolves to, not by how the
// URL spells it: localhost mapped to another machine gets nothing over
// plain http, a trailing-dot loopback spelling allowed by --insecure-forward
// that resolves elsewhere gets no secret, and the header the receiver
// checks never leaves the machine whatever its title.
func TestForwardJudgesTheAddressNotTheSpelling(t *testing.T) {
	t.Run("localhost on this machine gets every header", func(t *testing.T) {
		sink := newForwardSink(t)
		res := forwardOnce(t, "X-Hook", "http://localhost:"+sink.port()+"/h", ForwardRules{Resolver: webhooktest.Resolver{"localhost": {"127.0.0.1"}}})
		if res.Error != "" || res.Status != 200 || len(sink.header) != 1 {
			t.Fatalf("forward %+v, %d received", res, len(sink.header))
		}
		if h := sink.header[0]; h.Get("X-Hook") != hookSecret || h.Get("Authorization") == "" {
			t.Fatalf("a loopback forward lost headers: %v", h)
		}
	})
	t.Run("localhost's every address is tried", func(t *testing.T) {
		sink := newForwardSink(t) // on 127.0.0.1 only
		res := forwardOnce(t, "X-Hook", "http://localhost:"+sink.port()+"/h", ForwardRules{Resolver: webhooktest.Resolver{"localhost": {"::1", "127.0.0.1"}}})
		if res.Error != "" || res.Status != 200 || len(sink.header) != 1 || sink.header[0].Get("X-Hook") != hookSecret {
			t.Fatalf("forward %+v, %d received", res, len(sink.header))
		}
	})
	t.Run("a name with an address off this machine is off this machine", func(t *testing.T) {
		sink := newForwardSink(t)
		res := forwardOnce(t, "X-Hook", "http://localhost:"+sink.port()+"/h",
			ForwardRules{Resolver: webhooktest.Resolver{"localhost": {"127.0.0.1", "93.184.216.37"}}, Dial: sink.dial})
		if !strings.Contains(res.Error, "localhost (127.0.0.1, 93.184.216.37) is not this machine") || len(sink.dialed) != 0 {
			t.Fatalf("forward %+v, dialled %v", res, sink.dialed)
		}
	})
	t.Run("localhost mapped elsewhere gets nothing over http", func(t *testing.T) {
		sink := newForwardSink(t)
		res := forwardOnce(t, "X-Hook", "http://localhost:"+sink.port()+"/h",
			ForwardRules{Resolver: webhooktest.Resolver{"localhost": {"93.184.216.34"}}, Dial: sink.dial})
		if !strings.Contains(res.Error, "localhost (93.184.216.34) is not this machine, and plain http off it needs --insecure-forward") {
			t.Fatalf("forward %+v", res)
		}
		if len(sink.dialed) != 0 || len(sink.header) != 0 {
			t.Fatalf("sent anyway: %v", sink.dialed)
		}
	})
	t.Run("a trailing-dot spelling that resolves elsewhere gets no secret", func(t *testing.T) {
		sink := newForwardSink(t)
		res := forwardOnce(t, "X-Hook", "http://127.0.0.1.:"+sink.port()+"/h",
			ForwardRules{Insecure: true, Resolver: webhooktest.Resolver{"127.0.0.1.": {"93.184.216.35"}}, Dial: sink.dial})
		if res.Error != "" || len(sink.header) != 1 {
			t.Fatalf("forward %+v", res)
		}
		if sink.dialed[0] != "93.184.216.35:"+sink.port() {
			t.Fatalf("dialled %v, not the address judged", sink.dialed)
		}
		h := sink.header[0]
		for _, k := range []string{"X-Hook", "Authorization", "Cookie"} {
			if h.Get(k) != "" {
				t.Errorf("%s went off this machine: %v", k, h)
			}
		}
		if h.Get("Content-Type") != "application/json" || h.Get(EventHeader) != "captured" {
			t.Errorf("the notification's own headers are missing: %v", h)
		}
	})
	t.Run("a checked header titled as one that describes the notification", func(t *testing.T) {
		for _, title := range []string{"User-Agent", "Content-Type", EventHeader, DeliveryHeader} {
			sink := newForwardSink(t)
			res := forwardOnce(t, title, "http://hooks.shop.test:"+sink.port()+"/h",
				ForwardRules{Insecure: true, Resolver: webhooktest.Resolver{"hooks.shop.test": {"93.184.216.36"}}, Dial: sink.dial})
			if res.Error != "" || len(sink.header) != 1 {
				t.Fatalf("%s: forward %+v", title, res)
			}
			if got := sink.header[0].Get(title); got == hookSecret {
				t.Errorf("the checked header %s went off this machine", title)
			}
		}
	})
	t.Run("a name resolving to a private address is not forwarded to", func(t *testing.T) {
		sink := newForwardSink(t)
		res := forwardOnce(t, "X-Hook", "https://intranet.shop.test:"+sink.port()+"/h",
			ForwardRules{Resolver: webhooktest.Resolver{"intranet.shop.test": {"10.1.2.3"}}, Dial: sink.dial})
		if !strings.Contains(res.Error, "10.1.2.3 is in 10.0.0.0/8 (Private-Use, RFC 1918)") || len(sink.dialed) != 0 {
			t.Fatalf("forward %+v, dialled %v", res, sink.dialed)
		}
	})
}

// The dialer connects only to the address judged.
func TestForwardConnectsOnlyToTheAddressJudged(t *testing.T) {
	check := connectedTo(mustAddr(t, "127.0.0.1"))
	if err := check("tcp", "127.0.0.1:80", nil); err != nil {
		t.Fatal(err)
	}
	if err := check("tcp", "127.0.0.2:80", nil); err == nil {
		t.Fatal("connected to another address")
	}
}

// A static header titled as one bnpl sets is refused.
func TestCheckOwnTitle(t *testing.T) {
	for _, title := range []string{"Content-Type", "user-agent", "Bnpl-Sandbox-Event", "bnpl-sandbox-anything", "Host", "Content-Length"} {
		if err := CheckOwnTitle(title); err == nil {
			t.Errorf("%s accepted", title)
		}
	}
	for _, title := range []string{"X-Webhook-Secret", "Authorization", "X-Bnpl-Listen"} {
		if err := CheckOwnTitle(title); err != nil {
			t.Errorf("%s: %v", title, err)
		}
	}
}

func mustAddr(t *testing.T, s string) netip.Addr {
	t.Helper()
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
