// Package pipe runs the real bnpl with its output to a pipe, as a script
// or `bnpl … | head` uses it.
package pipe

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bnpl-cli/bnpl/test/internal/testbnpl"
)

// TestMain puts the test binary on the PATH as bnpl.
func TestMain(m *testing.M) {
	testbnpl.Main(m, nil)
}

// pipeEnv is an environment with its own home, config and state, so that
// bnpl talks to an embedded sandbox of its own.
func pipeEnv(t *testing.T) []string {
	home := t.TempDir()
	return []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"),
		"NO_COLOR=1",
		"GORACE=atexit_sleep_ms=0",
		"PATH=" + os.Getenv("PATH"),
	}
}
