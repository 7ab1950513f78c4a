// Package nodns keeps tests hermetic: Install replaces the process's
// default resolver with one that stops the process at the first DNS query,
// so that a test which looks a name up fails loudly instead of depending
// on the network of the machine it runs on. Names in /etc/hosts (localhost)
// are still answered from the file, which is not DNS.
package nodns

import (
	"context"
	"fmt"
	"net"
	"os"
)

// Install makes any DNS query of this process fatal. Call it from a test
// binary's TestMain, before anything runs.
func Install() {
	net.DefaultResolver = &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			fmt.Fprintf(os.Stderr, "nodns: a DNS query was attempted (to %s): tests must not look host names up\n", address)
			os.Exit(97)
			return nil, nil
		},
	}
}
