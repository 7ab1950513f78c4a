package sandbox

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/sandbox/outbox"
	"github.com/bnpl-cli/bnpl/internal/webhook/webhooktest"
)

// rebinder answers a public address (first) to the first lookups (public
// of them) and then another (then): a name rebound after it was judged.
type rebinder struct {
	mu          sync.Mutex
	calls       int
	public      int
	first, then string
}

func (r *rebinder) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	ip := r.then
	if r.calls <= r.public {
		ip = r.first
	}
	return []net.IPAddr{{IP: net.ParseIP(ip)}}, nil
}

// TestRegistrationRefusesSpecialPurposeAddresses: a name that answers only
// addresses of the special-purpose registries is refused, whatever form
// the address takes.
func TestRegistrationRefusesSpecialPurposeAddresses(t *testing.T) {
	e := newDisputeEnv(t, Options{Resolver: webhooktest.Resolver{
		"metadata.shop-example.com":  {"100.100.100.200"},
		"nat64.shop-example.com":     {"64:ff9b::a9fe:a9fe"},
		"sixtofour.shop-example.com": {"2002:a9fe:a9fe::1"},
		"benchmark.shop-example.com": {"198.18.0.1"},
		"classe.shop-example.com":    {"240.0.0.1"},
	}})
	for _, host := range []string{"metadata", "nat64", "sixtofour", "benchmark", "classe"} {
		r := e.call("POST", "/api/v1/webhooks", aeTest, nil, map[string]any{"url": "https://" + host + ".shop-example.com/h"})
		if r.status != 400 || !strings.Contains(string(r.body), "invalid webhook url") {
			t.Errorf("%s: %d %s", host, r.status, r.body)
		}
	}
}

// TestDeliveryDialsOnlyAddressesTheRulesAdmit: the dialer judges the
// address it connects to, after the lookup made at delivery time, so a
// name rebound to a special-purpose address since its registration is
// never connected to: the answer turns after the registration's lookup
// and the delivery's own check of the rules, at the dialer's lookup.
func TestDeliveryDialsOnlyAddressesTheRulesAdmit(t *testing.T) {
	for _, then := range []string{"100.100.100.200", "64:ff9b::a9fe:a9fe", "::ffff:169.254.169.254", "2002:7f00:1::1"} {
		deliveries := make(chan outbox.Delivery, 16)
		res := &rebinder{first: "93.184.216.34", then: then, public: 2}
		e := newDisputeEnv(t, Options{Resolver: res, WebhookRetryScale: 100, OnDelivery: func(d outbox.Delivery) { deliveries <- d }})
		e.registerPaymentHook(aeTest, "https://rebound.shop-example.com/h", nil)
		e.authorized("10.00")
		select {
		case d := <-deliveries:
			want := "refusing to connect to " + net.ParseIP(then).String()
			if d.Status == outbox.DeliveryDelivered || !strings.Contains(d.Error, want) {
				t.Errorf("%s: delivery %s %q, want an error saying %q", then, d.Status, d.Error, want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: no delivery attempt in a minute", then)
		}
	}
}
