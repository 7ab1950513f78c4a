package cmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/privnet"
)

// sandbox serve, listen and sandbox record refuse to listen on
// localhost when the hosts file maps it elsewhere (a private namespace):
// exit 2, the address and the fix, nothing bound.
func TestServersRefuseLocalhostElsewhere(t *testing.T) {
	const elsewhere = "10.200.0.1"
	if !privnet.Run(t, elsewhere+" localhost\n", elsewhere) {
		return
	}
	for _, args := range [][]string{
		{"sandbox", "serve", "--state", ":memory:", "--ae-addr", "localhost:0", "--sa-addr", "127.0.0.1:0"},
		{"sandbox", "serve", "--state", ":memory:", "--ae-addr", "127.0.0.1:0", "--sa-addr", "localhost:0"},
		{"listen", "--addr", "localhost:0"},
		{"sandbox", "record", filepath.Join(t.TempDir(), "r.har"), "--sandbox", "--addr", "localhost:0", "--", "true"},
	} {
		f, out, errOut := testFactory(t)
		code := Run(context.Background(), f, args)
		if code != 2 || !strings.Contains(errOut.String(), "refusing to listen on localhost:0: localhost resolves to 10.200.0.1, which is not this machine") ||
			!strings.Contains(errOut.String(), "127.0.0.1:0") || out.Len() != 0 {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
}
