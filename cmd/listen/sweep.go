package listen

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"sync"
	"syscall"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/secret"
)

// A listen killed outright (SIGKILL, a closed terminal, a CI job torn
// down) cannot remove what it registered. Its webhooks stay, fail every
// delivery, and count against the merchant's limit of webhooks. The next
// listen removes them before it registers its own: a webhook is a
// leftover when its URL is a listen's (a loopback host, a /listen-…
// path) and nothing accepts connections at its address any more, or the
// address is this listener's own, which no earlier listen can hold now.
// Every other webhook, a running listen's included, stays.

// listenPath is the path of a webhook listen registered, compiled on
// first use.
var listenPath = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^/listen-[0-9a-f]{8}/(payments|disputes)$`)
})

// deadDialTimeout bounds the check that nothing listens at a leftover's
// address; on loopback a refusal is immediate.
const deadDialTimeout = 500 * time.Millisecond

// leftover reports whether rawURL is the webhook of a listen that is gone:
// own is this listener's host:port.
func leftover(rawURL, own string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "http" || !listenPath().MatchString(u.Path) {
		return false
	}
	// listen registers itself by address (hookBase), never by name.
	if addr, literal := parseAddr(u.Hostname()); !literal || !addr.IsLoopback() {
		return false
	}
	if u.Host == own {
		return true
	}
	c, err := net.DialTimeout("tcp", u.Host, deadDialTimeout)
	if err == nil {
		c.Close()
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// sweep removes the leftovers of killed listens among the merchant's
// payment webhooks (and dispute webhooks when disputes is set), saying
// which. A list or a removal that fails is passed over: the registration
// that follows reports what matters.
func (r *registration) sweep(ctx context.Context, own string, disputes *api.Client) {
	if hooks, err := r.payments.ListWebhooks(ctx); err == nil {
		for _, h := range hooks {
			if leftover(h.URL, own) && r.payments.DeleteWebhook(ctx, h.ID) == nil {
				r.sweptOne("payment", h.ID, h.URL)
			}
		}
	}
	if disputes == nil {
		return
	}
	if hooks, err := disputes.ListDisputeWebhooks(ctx); err == nil {
		for _, h := range hooks {
			if leftover(h.URL, own) && disputes.DeleteDisputeWebhook(ctx, h.ID) == nil {
				r.sweptOne("dispute", h.ID, h.URL)
			}
		}
	}
}

func (r *registration) sweptOne(kind, id, hookURL string) {
	fmt.Fprintf(r.o.IO.ErrOut, "removed %s webhook %s (%s): a listen that ended without removing it left it\n", kind, id, secret.RedactURL(hookURL))
}
