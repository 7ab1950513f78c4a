package listen

import (
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/netguard"
	"github.com/bnpl-cli/bnpl/internal/webhook"
)

// offMachineHeaders are the only headers forwarded to a target that is not
// on this machine: what describes the notification, never what proves it
// (Authorization, the webhook's header, cookies).
var offMachineHeaders = []string{"Content-Type", "User-Agent", webhook.EventHeader, webhook.DeliveryHeader}

// forwardTarget is what --forward-to allows.
type forwardTarget struct {
	// keep is nil for a loopback target (every header goes), else the
	// headers a forward carries.
	keep []string
	// note, when set, is said on stderr at start.
	note string
}

// checkForward judges --forward-to: a target off this machine gets no
// credentials, and plain http to it needs insecure.
func checkForward(raw string, insecure bool) (forwardTarget, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return forwardTarget{}, cmdutil.UsageHint("use an absolute URL such as http://127.0.0.1:3000/webhooks", "invalid --forward-to %q", raw)
	}
	host := u.Hostname()
	if loopbackHost(host) {
		return forwardTarget{}, nil
	}
	if strings.EqualFold(u.Scheme, "http") && !insecure {
		return forwardTarget{}, cmdutil.UsageHint(
			"forward over https, or to a loopback address (http://127.0.0.1:PORT); --insecure-forward sends them in the clear anyway",
			"refusing to forward notifications over plain http to %s, which is not this machine", host)
	}
	note := "forwarding off this machine to " + host + ": Authorization and the webhook's header are not forwarded, only " + strings.Join(offMachineHeaders, ", ")
	if addr, err := netip.ParseAddr(host); err == nil {
		if r := netguard.Check(addr); r != nil {
			note += "; note that " + r.Error()
		}
	}
	if strings.EqualFold(u.Scheme, "http") {
		note = "warning: notifications go over plain http (--insecure-forward); " + note
	}
	return forwardTarget{keep: offMachineHeaders, note: note}, nil
}

// loopbackHost: localhost or a loopback address (an IPv4-mapped one too).
// Any other name counts as another machine, whatever it resolves to.
func loopbackHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" {
		return true
	}
	addr, err := netip.ParseAddr(h)
	return err == nil && addr.Unmap().IsLoopback()
}

// webhookForwardTimeout bounds one forward.
const webhookForwardTimeout = 10 * time.Second

// forwardClient sends forwards without following redirects, so that a
// loopback target cannot send the headers on to another machine.
func forwardClient() *http.Client {
	return &http.Client{
		Timeout:       webhookForwardTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
