package cmdutil

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestAtMostOneArgRefusesASecond(t *testing.T) {
	check := AtMostOneArg("at most one profile name")
	cmd := &cobra.Command{Use: "show"}
	for _, args := range [][]string{nil, {"shop-ae"}} {
		if err := check(cmd, args); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
	err := check(cmd, []string{"shop-ae", "shop-sa"})
	if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "at most one profile name") {
		t.Errorf("two names: exit %d, %v; want a usage error naming what it takes", ExitCode(err), err)
	}
}
