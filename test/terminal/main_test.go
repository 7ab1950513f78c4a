// Package terminal runs the real bnpl on a pseudo-terminal (creack/pty),
// the way a person meets it: prompts, hidden input, Ctrl-C, colour, the
// pager, progress drawn in place, and output fitted to the terminal's
// width.
package terminal

import (
	"testing"

	"github.com/bnpl-cli/bnpl/test/internal/testbnpl"
)

// TestMain puts the test binary on the PATH as bnpl.
func TestMain(m *testing.M) {
	testbnpl.Main(m, nil)
}
