package shared

import (
	"os"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/nodns"
)

// TestMain makes any DNS lookup by a test of this package fatal.
func TestMain(m *testing.M) {
	nodns.Install()
	os.Exit(m.Run())
}
