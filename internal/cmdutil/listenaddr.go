package cmdutil

import (
	"context"
	"net"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/netguard"
)

// ListenAddr is the address a server binds for a listen address flag
// (sandbox serve's --ae-addr and --sa-addr, listen's and record's --addr).
// The name localhost is bound as the address it resolves to, and only
// when that is this machine (netguard.ResolveLoopback, the guard every key
// goes through): with the hosts file mapping it elsewhere, a server meant
// for this machine alone would be reachable from others, so it is refused
// (exit 2) rather than warned about. Any other address is bound as given.
func ListenAddr(ctx context.Context, addr, flag string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || !strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return addr, nil
	}
	ip, err := netguard.ResolveLoopback(ctx, host)
	if err != nil {
		return "", Refuse("give "+flag+" a loopback address, such as "+flag+" 127.0.0.1:"+port+", or map localhost to 127.0.0.1 in the hosts file",
			"refusing to listen on %s: %v", addr, err)
	}
	return net.JoinHostPort(ip.String(), port), nil
}
