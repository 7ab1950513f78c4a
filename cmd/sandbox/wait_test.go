package sandbox

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// A wait shorter than one attempt names its own time: a sandbox that
// accepts but does not answer within 200ms is "not healthy after 200ms:
// no answer within 200ms", never the attempt's 2s.
func TestWaitTimeoutMessage(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() { // accepts, answers nothing
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	timeout := 200 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, _, err = waitHealthy(ctx, "http://"+l.Addr().String(), timeout, wantSandbox{})
	var to *waitTimeout
	if !errors.As(err, &to) {
		t.Fatalf("waitHealthy: %v, want a time-out", err)
	}
	if msg := err.Error(); !strings.HasSuffix(msg, "is not healthy after 200ms: no answer within 200ms") {
		t.Errorf("message %q", msg)
	}
}

// wait --ready-file fails at once (exit 2) when serve cannot write the
// file: its directory does not exist, or is a file.
func TestReadyFileDirChecked(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		filepath.Join(dir, "missing", "ready.json"): "does not exist",
		filepath.Join(dir, "plain", "ready.json"):   "is not a directory",
	}
	for path, want := range cases {
		// Within a wait of 30s: a time-out would say "after 30s".
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := waitReadyFile(ctx, path, 30*time.Second)
		cancel()
		if err == nil || !strings.Contains(err.Error(), want) || cmdutil.ExitCode(err) != cmdutil.ExitUsage {
			t.Errorf("%s: %v (exit %d), want %q, exit 2", path, err, cmdutil.ExitCode(err), want)
		}
	}
	if err := readyFileDir(filepath.Join(dir, "ready.json")); err != nil {
		t.Errorf("a writable directory: %v", err)
	}
}
