// Package webhooktest is what the tests of webhook URLs share, in the
// commands, the sandbox and the rules themselves: a resolver that answers
// from a table, so that the URL rules never need the network.
package webhooktest

import (
	"context"
	"net"
)

// Resolver answers lookups from a table of names and their addresses;
// names not in it do not exist.
type Resolver map[string][]string

// LookupIPAddr answers the addresses the table holds for host, or the
// error of a name that does not exist.
func (r Resolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ips, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]net.IPAddr, 0, len(ips))
	for _, ip := range ips {
		out = append(out, net.IPAddr{IP: net.ParseIP(ip)})
	}
	return out, nil
}
