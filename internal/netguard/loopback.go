package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"
)

// Keys over plain http. A secret key may travel over plain http only to
// this machine, and whether a connection reaches this machine is decided
// by the address it is dialled to, never by a name's spelling:
// "localhost" is whatever the hosts file and the resolver make it. The
// client, profiles, `sandbox record`, `listen` and the sandbox probe all
// ask here, and a connection that carries a key over plain http is made
// by DialLoopback: the name resolved once, and exactly that address
// dialled, so that no later answer of the resolver can move it.

// LookupTimeout bounds the resolution of a name that is to reach this
// machine.
const LookupTimeout = 5 * time.Second

// LoopbackLiteral reports whether host (a URL's host name, brackets
// removed, or the host of HOST:PORT) is an IP address of this machine:
// 127.0.0.0/8, ::1, or the IPv4-mapped form of a 127 address. A name,
// "localhost" included, is not.
func LoopbackLiteral(host string) bool {
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.WithZone("").Unmap().IsLoopback()
}

// LoopbackCandidate reports whether bnpl will try host as this machine: a
// loopback address, or the name localhost (any case), which is trusted no
// more than another name: it must resolve to this machine when it is
// dialled (DialLoopback), or nothing is sent. Any other name is not tried.
func LoopbackCandidate(host string) bool {
	return LoopbackLiteral(host) || strings.EqualFold(host, "localhost")
}

// NotLoopbackError is a host that does not reach this machine.
type NotLoopbackError struct {
	Host  string
	Addrs []netip.Addr // what the name resolved to; empty for an address
	Err   error        // the resolver's error, if it failed
}

func (e *NotLoopbackError) Error() string {
	switch {
	case e.Err != nil:
		return fmt.Sprintf("%s could not be resolved to an address of this machine: %v", e.Host, e.Err)
	case len(e.Addrs) > 0:
		shown := make([]string, len(e.Addrs))
		for i, a := range e.Addrs {
			shown[i] = a.String()
		}
		return fmt.Sprintf("%s resolves to %s, which is not this machine (127.0.0.0/8, ::1)", e.Host, strings.Join(shown, ", "))
	}
	return fmt.Sprintf("%s is not an address of this machine (127.0.0.0/8, ::1)", e.Host)
}

// Resolver is the resolver the guard asks; nil is net.DefaultResolver
// (the hosts file, then DNS).
var Resolver *net.Resolver

// ResolveLoopback answers the address of this machine host reaches: host
// itself when it is a loopback address; for a name, the first address the
// resolver gives when every address it gives is loopback. Anything else is
// a *NotLoopbackError: an address off this machine, a name that resolves
// to one (even beside a loopback address), or a name that does not
// resolve.
func ResolveLoopback(ctx context.Context, host string) (netip.Addr, error) {
	if addr, err := netip.ParseAddr(host); err == nil {
		if addr = addr.WithZone("").Unmap(); addr.IsLoopback() {
			return addr, nil
		}
		return netip.Addr{}, &NotLoopbackError{Host: host}
	}
	res := Resolver
	if res == nil {
		res = net.DefaultResolver
	}
	lctx, cancel := context.WithTimeout(ctx, LookupTimeout)
	defer cancel()
	found, err := res.LookupNetIP(lctx, "ip", host)
	if err != nil {
		return netip.Addr{}, &NotLoopbackError{Host: host, Err: err}
	}
	if len(found) == 0 {
		return netip.Addr{}, &NotLoopbackError{Host: host, Err: errors.New("no address")}
	}
	for i, a := range found {
		found[i] = a.WithZone("").Unmap()
	}
	for _, a := range found {
		if !a.IsLoopback() {
			return netip.Addr{}, &NotLoopbackError{Host: host, Addrs: found}
		}
	}
	return found[0], nil
}

// LoopbackHost reports whether host reaches this machine now (see
// ResolveLoopback). It serves decisions made before any connection (may a
// profile name this address, should a warning be given); the connection
// that carries a key must still be made by DialLoopback.
func LoopbackHost(ctx context.Context, host string) bool {
	_, err := ResolveLoopback(ctx, host)
	return err == nil
}

// LoopbackHostPort is LoopbackHost for HOST:PORT (a listen address). An
// empty host, 0.0.0.0 and :: listen everywhere: not loopback.
func LoopbackHostPort(ctx context.Context, hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	return err == nil && host != "" && LoopbackHost(ctx, host)
}

// DialLoopback returns a dial function (for http.Transport.DialContext)
// that connects only to this machine: the host of each address is
// resolved by ResolveLoopback and exactly the address found is dialled.
// A host that does not reach this machine is refused with a
// *NotLoopbackError, and nothing is sent. d nil is a zero net.Dialer.
func DialLoopback(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if d == nil {
		d = &net.Dialer{}
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		ip, err := ResolveLoopback(ctx, host)
		if err != nil {
			return nil, err
		}
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err != nil {
			return nil, err
		}
		if !reached(conn) {
			conn.Close()
			return nil, &NotLoopbackError{Host: host}
		}
		return conn, nil
	}
}

// reached tells, after the fact, that a connection's far end is this
// machine.
func reached(conn net.Conn) bool {
	ap, err := netip.ParseAddrPort(conn.RemoteAddr().String())
	return err == nil && ap.Addr().WithZone("").Unmap().IsLoopback()
}
