package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// A state directory serve may not write (a container's bind mount owned
// by root, while the image runs as 65532) is exit 12 with the user that
// needs it and the three ways to give it, named as the setting was given.
// Root writes anywhere, so the refusal itself is driven here; the image
// test meets it for real.
func TestStateNotWritable(t *testing.T) {
	dir := t.TempDir()
	o := &ServeOptions{fromEnv: map[string]string{"state": "BNPL_SANDBOX_STATE"}}
	err := o.stateNotWritable(dir, fmt.Errorf("open %s/x: %w", dir, fs.ErrPermission))
	if code := cmdutil.ExitCode(err); code != cmdutil.ExitState {
		t.Fatalf("exit %d, want %d", code, cmdutil.ExitState)
	}
	want := fmt.Sprintf("sandbox state %s: not writable by uid %d, the user serve runs as", dir, os.Getuid())
	if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "(it belongs to uid ") {
		t.Errorf("error %q, want it to start %q and name the owner", err, want)
	}
	hint := err.(interface{ Hint() string }).Hint()
	for _, part := range []string{
		fmt.Sprintf("chown %d:%d the directory mounted there", os.Getuid(), os.Getgid()),
		"run --user ",
		"BNPL_SANDBOX_STATE=:memory:",
	} {
		if !strings.Contains(hint, part) {
			t.Errorf("hint %q lacks %q", hint, part)
		}
	}
}
