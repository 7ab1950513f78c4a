package listen

import (
	"net/netip"
	"net/url"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/netguard"
	"github.com/bnpl-cli/bnpl/internal/webhook"
)

// forwardTarget is what --forward-to allows at start; each forward is
// judged again by the address it reaches (webhook.ForwardRules).
type forwardTarget struct {
	// note, when set, is said on stderr at start.
	note string
}

// checkForward judges --forward-to by its spelling, before anything
// listens: an absolute http or https URL; plain http only to a loopback
// address or to localhost (whose address each forward checks) unless
// insecure. A name is never taken for this machine by how it is written:
// each forward looks it up and sends what the address found allows.
func checkForward(raw string, insecure bool) (forwardTarget, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return forwardTarget{}, cmdutil.UsageHint("use an absolute URL such as http://127.0.0.1:3000/webhooks", "invalid --forward-to %q", raw)
	}
	host := u.Hostname()
	addr, literal := parseAddr(host)
	if literal && addr.IsLoopback() {
		return forwardTarget{}, nil
	}
	localhost := !literal && strings.EqualFold(strings.TrimSuffix(host, "."), "localhost")
	if strings.EqualFold(u.Scheme, "http") && !insecure && !localhost {
		return forwardTarget{}, cmdutil.UsageHint(
			"forward over https, or to a loopback address (http://127.0.0.1:PORT); --insecure-forward sends them in the clear anyway",
			"refusing to forward notifications over plain http to %s, which is not this machine", host)
	}
	kept := "Authorization and the webhook's header are not forwarded, only " + strings.Join(webhook.OffMachineHeaders, ", ")
	var note string
	switch {
	case localhost:
		return forwardTarget{}, nil // looked up at each forward: this machine, or not forwarded over http
	case literal:
		note = "forwarding off this machine to " + host + ": " + kept
		if r := netguard.Check(addr); r != nil {
			note += "; note that " + r.Error()
		}
	default:
		note = "forwarding to " + host + ", looked up at each forward: to this machine every header goes; to another, " + kept
	}
	if strings.EqualFold(u.Scheme, "http") {
		note = "warning: notifications go over plain http (--insecure-forward); " + note
	}
	return forwardTarget{note: note}, nil
}

// parseAddr reads host as an address (an IPv4-mapped one as its IPv4).
func parseAddr(host string) (netip.Addr, bool) {
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return addr.Unmap(), true
}
