package cmd

import (
	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/cmd/apicmd"
	"github.com/bnpl-cli/bnpl/cmd/checkout"
	"github.com/bnpl-cli/bnpl/cmd/completion"
	"github.com/bnpl-cli/bnpl/cmd/disputes"
	"github.com/bnpl-cli/bnpl/cmd/disputewebhooks"
	"github.com/bnpl-cli/bnpl/cmd/doctor"
	"github.com/bnpl-cli/bnpl/cmd/listen"
	"github.com/bnpl-cli/bnpl/cmd/payments"
	"github.com/bnpl-cli/bnpl/cmd/profiles"
	"github.com/bnpl-cli/bnpl/cmd/sandbox"
	"github.com/bnpl-cli/bnpl/cmd/smoke"
	"github.com/bnpl-cli/bnpl/cmd/version"
	"github.com/bnpl-cli/bnpl/cmd/webhooks"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// addCommands registers every noun of the surface.
func addCommands(root *cobra.Command, f *cmdutil.Factory) {
	root.AddCommand(
		checkout.NewCmd(f),
		payments.NewCmd(f),
		profiles.NewLoginCmd(f),
		profiles.NewLogoutCmd(f),
		profiles.NewCmd(f),
		sandbox.NewCmd(f),
		version.NewCmd(f),
		apicmd.NewCmd(f),
		smoke.NewCmd(f),
		doctor.NewCmd(f),
		disputes.NewCmd(f),
		disputewebhooks.NewCmd(f),
		webhooks.NewCmd(f),
		listen.NewCmd(f),
	)
	_ = root.RegisterFlagCompletionFunc("profile", profiles.CompleteNames(f))
	completion.Init(root)
}
