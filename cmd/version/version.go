// Package version is the `bnpl version` command.
package version

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// NewCmd returns `bnpl version`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version, commit and build date",
		Args:    cmdutil.NoArgs,
		Example: "  bnpl version",
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(f.IO.Out, "bnpl %s (commit %s, built %s, %s %s/%s)\n",
				f.Version, f.Commit, f.Date, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
