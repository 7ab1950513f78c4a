package nodns

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A lookup after Install ends the process with exit 97 and says why; a
// name from /etc/hosts is still answered. The lookup runs in a child
// process, since it ends the process that makes it.
func TestInstallStopsALookup(t *testing.T) {
	if os.Getenv("NODNS_CHILD") == "1" {
		Install()
		if _, err := net.DefaultResolver.LookupIPAddr(context.Background(), "localhost"); err != nil {
			t.Fatalf("localhost: %v", err)
		}
		_, _ = net.DefaultResolver.LookupIPAddr(context.Background(), "hooks.example.com")
		t.Fatal("the lookup returned")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInstallStopsALookup$")
	cmd.Env = append(os.Environ(), "NODNS_CHILD=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err == nil || !errors.As(err, &exit) || exit.ExitCode() != 97 || !strings.Contains(string(out), "a DNS query was attempted") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
