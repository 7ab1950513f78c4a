package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bnpl-cli/bnpl/internal/netguard"
)

// Forwarding (bnpl listen --forward-to) judges the address a forward goes
// to, not how its URL spells it. A target named by host is looked up at
// each forward and the connection made to the address found, so that what
// was judged is what is reached. To a loopback address every header goes
// (the merchant's own endpoint checks the same header); to any other, only
// the headers that describe the notification, never the one the receiver
// checks whatever its title, and over https unless Insecure. A named
// target that resolves to an address of a special-purpose block (other
// than loopback) is not forwarded to: the guard of internal/netguard, as
// for the sandbox's deliveries.

// OffMachineHeaders are the only headers a forward off this machine
// carries: what describes the notification, never what proves it.
var OffMachineHeaders = []string{"Content-Type", "User-Agent", EventHeader, DeliveryHeader}

// ForwardTimeout bounds one forward.
const ForwardTimeout = 10 * time.Second

// ForwardRules decide where a forward may go and what it carries.
type ForwardRules struct {
	// Insecure allows plain http to a target off this machine.
	Insecure bool
	// Resolver looks a target named by host up; nil is the system's.
	Resolver Resolver
	// Dial connects to the judged address (HOST:PORT, HOST an address);
	// nil dials it. Tests reach a local server whatever the address.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// forwardClients keeps a client per set of addresses forwarded to, so
// that connections are reused.
type forwardClients struct {
	mu sync.Mutex
	by map[string]*http.Client
}

// forwardTo is where one forward goes: the addresses judged, tried in
// order, and whether they are all this machine's.
type forwardTo struct {
	addrs []netip.AddrPort
	local bool
}

func (to forwardTo) key() string {
	var b strings.Builder
	for _, a := range to.addrs {
		b.WriteString(a.String() + " ")
	}
	return b.String()
}

// judge resolves the target's host (an address is itself) and decides
// whether a forward may go there: to this machine when every address is
// loopback; else off it, where a name's every other address must pass the
// guard and plain http needs Insecure.
func (fr *ForwardRules) judge(ctx context.Context, u *url.URL) (forwardTo, error) {
	host := u.Hostname()
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	addrs, named, err := fr.lookup(ctx, host)
	if err != nil {
		return forwardTo{}, err
	}
	to := forwardTo{local: true}
	var shown []string
	for _, addr := range addrs {
		p, err := netip.ParseAddrPort(net.JoinHostPort(addr.String(), port))
		if err != nil {
			return forwardTo{}, err
		}
		to.addrs = append(to.addrs, p)
		shown = append(shown, addr.String())
		if addr.IsLoopback() {
			continue
		}
		to.local = false
		if r := netguard.Check(addr); named && r != nil {
			return to, fmt.Errorf("not forwarded: %s resolved to an address that is not this machine: %v", host, r)
		}
	}
	if !to.local && strings.EqualFold(u.Scheme, "http") && !fr.Insecure {
		what := host
		if named {
			what = fmt.Sprintf("%s (%s)", host, strings.Join(shown, ", "))
		}
		return to, fmt.Errorf("not forwarded: %s is not this machine, and plain http off it needs --insecure-forward", what)
	}
	return to, nil
}

// lookup answers the addresses of host: itself when it is one, else those
// the resolver gives (named is then true).
func (fr *ForwardRules) lookup(ctx context.Context, host string) ([]netip.Addr, bool, error) {
	if addr, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{addr.Unmap()}, false, nil
	}
	res := fr.Resolver
	if res == nil {
		res = net.DefaultResolver
	}
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	found, err := res.LookupIPAddr(lctx, host)
	if err != nil {
		return nil, true, fmt.Errorf("not forwarded: looking %s up: %w", host, err)
	}
	var addrs []netip.Addr
	for _, a := range found {
		if addr, ok := netip.AddrFromSlice(a.IP); ok && a.Zone == "" {
			addrs = append(addrs, addr.Unmap())
		}
	}
	if len(addrs) == 0 {
		return nil, true, fmt.Errorf("not forwarded: %s has no address", host)
	}
	return addrs, true, nil
}

// client answers the client that sends forwards to the judged addresses
// (the first that connects), whatever the URL's host resolves to by then;
// it follows no redirect, so that a target cannot send the headers on to
// another machine.
func (fc *forwardClients) client(fr *ForwardRules, to forwardTo) *http.Client {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if c, ok := fc.by[to.key()]; ok {
		return c
	}
	c := &http.Client{
		Timeout: ForwardTimeout,
		Transport: &http.Transport{
			Proxy: nil, // the target is reached directly, as judged
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return fr.dialJudged(ctx, network, to.addrs)
			},
			TLSHandshakeTimeout: ForwardTimeout,
			MaxIdleConnsPerHost: 2,
			IdleConnTimeout:     30 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	if fc.by == nil {
		fc.by = map[string]*http.Client{}
	}
	fc.by[to.key()] = c
	return c
}

// dialJudged connects to the first of addrs that answers, each checked as
// it connects.
func (fr *ForwardRules) dialJudged(ctx context.Context, network string, addrs []netip.AddrPort) (net.Conn, error) {
	var firstErr error
	for _, a := range addrs {
		dial := fr.Dial
		if dial == nil {
			dial = (&net.Dialer{Timeout: ForwardTimeout, Control: connectedTo(a.Addr())}).DialContext
		}
		conn, err := dial(ctx, network, a.String())
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

// connectedTo refuses a connection to any address but want.
func connectedTo(want netip.Addr) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		got, err := netip.ParseAddrPort(address)
		if err != nil || got.Addr().Unmap() != want.Unmap() {
			return fmt.Errorf("forward: refusing to connect to %s, not the address judged (%s)", address, want)
		}
		return nil
	}
}

// hopHeaders belong to one connection and are not forwarded.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length"}

// forwardHeader is what a forward carries of the delivery's header: every
// header but the hop-by-hop ones to this machine; off it, only
// OffMachineHeaders, and never checked (the title the receiver checks).
func forwardHeader(h http.Header, local bool, checked string) http.Header {
	out := h.Clone()
	for _, k := range hopHeaders {
		out.Del(k)
	}
	if local {
		return out
	}
	kept := http.Header{}
	for _, k := range OffMachineHeaders {
		if checked != "" && strings.EqualFold(k, checked) {
			continue
		}
		if v := out.Values(k); len(v) > 0 {
			kept[http.CanonicalHeaderKey(k)] = v
		}
	}
	return kept
}

// forward sends the notification on to r.ForwardTo as the rules allow.
func (r *Receiver) forward(req *http.Request, body []byte) *ForwardResult {
	res := &ForwardResult{URL: r.ForwardTo}
	u, err := url.Parse(r.ForwardTo)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	to, err := r.Forward.judge(req.Context(), u)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	out, err := http.NewRequestWithContext(req.Context(), http.MethodPost, r.ForwardTo, bytes.NewReader(body))
	if err != nil {
		res.Error = err.Error()
		return res
	}
	out.Header = forwardHeader(req.Header, to.local, r.HeaderTitle)
	resp, err := r.forwards.client(&r.Forward, to).Do(out)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is already in the result
		}
		res.Error = err.Error()
		return res
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxBodyBytes))
	res.Status = resp.StatusCode
	return res
}
