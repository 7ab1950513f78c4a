package cmdutil

import (
	"context"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/privnet"
)

// --addr localhost:PORT binds the loopback address localhost resolves
// to; with the hosts file mapping it elsewhere (a private namespace), it
// is refused, exit 2, nothing bound.
func TestListenAddrBindsLocalhostOnlyOnLoopback(t *testing.T) {
	const elsewhere = "10.200.0.1"
	if !privnet.Run(t, elsewhere+" localhost\n", elsewhere) {
		return
	}
	_, err := ListenAddr(context.Background(), "localhost:8700", "--addr")
	if err == nil || ExitCode(err) != 2 || !strings.Contains(err.Error(), "refusing to listen on localhost:8700: localhost resolves to 10.200.0.1, which is not this machine") {
		t.Fatalf("localhost mapped elsewhere: %v (exit %d)", err, ExitCode(err))
	}
	if h, ok := err.(interface{ Hint() string }); !ok || !strings.Contains(h.Hint(), "--addr 127.0.0.1:8700") {
		t.Errorf("hint: %v", err)
	}
	for addr, want := range map[string]string{"127.0.0.1:0": "127.0.0.1:0", "10.200.0.1:80": "10.200.0.1:80", ":8700": ":8700"} {
		if got, err := ListenAddr(context.Background(), addr, "--addr"); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", addr, got, err, want)
		}
	}
}

// With localhost on this machine, it is bound as its loopback address.
func TestListenAddrResolvesLocalhost(t *testing.T) {
	got, err := ListenAddr(context.Background(), "localhost:0", "--addr")
	if err != nil || (got != "127.0.0.1:0" && got != "[::1]:0") {
		t.Fatalf("%q %v", got, err)
	}
}
