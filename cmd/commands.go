package cmd

import (
	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/cmd/payments"
	"github.com/bnpl-cli/bnpl/cmd/profiles"
	"github.com/bnpl-cli/bnpl/cmd/sandbox"
	"github.com/bnpl-cli/bnpl/cmd/version"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// addCommands registers every noun of the surface.
func addCommands(root *cobra.Command, f *cmdutil.Factory) {
	root.AddCommand(
		payments.NewCmd(f),
		profiles.NewLoginCmd(f),
		profiles.NewCmd(f),
		sandbox.NewCmd(f),
		version.NewCmd(f),
	)
}
