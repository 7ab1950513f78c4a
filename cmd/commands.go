package cmd

import (
	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/cmd/apicmd"
	"github.com/bnpl-cli/bnpl/cmd/checkout"
	"github.com/bnpl-cli/bnpl/cmd/completion"
	"github.com/bnpl-cli/bnpl/cmd/disputes"
	"github.com/bnpl-cli/bnpl/cmd/disputewebhooks"
	"github.com/bnpl-cli/bnpl/cmd/doctor"
	"github.com/bnpl-cli/bnpl/cmd/ledger"
	"github.com/bnpl-cli/bnpl/cmd/listen"
	"github.com/bnpl-cli/bnpl/cmd/payments"
	"github.com/bnpl-cli/bnpl/cmd/profiles"
	"github.com/bnpl-cli/bnpl/cmd/sandbox"
	"github.com/bnpl-cli/bnpl/cmd/smoke"
	"github.com/bnpl-cli/bnpl/cmd/version"
	"github.com/bnpl-cli/bnpl/cmd/webhooks"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// nouns are the top-level commands, in the order help lists them.
var nouns = []struct {
	name  string
	build func(*cmdutil.Factory) *cobra.Command
}{
	{"checkout", checkout.NewCmd},
	{"payments", payments.NewCmd},
	{"ledger", ledger.NewCmd},
	{"login", profiles.NewLoginCmd},
	{"logout", profiles.NewLogoutCmd},
	{"profiles", profiles.NewCmd},
	{"sandbox", sandbox.NewCmd},
	{"version", version.NewCmd},
	{"api", apicmd.NewCmd},
	{"smoke", smoke.NewCmd},
	{"doctor", doctor.NewCmd},
	{"disputes", disputes.NewCmd},
	{"dispute-webhooks", disputewebhooks.NewCmd},
	{"webhooks", webhooks.NewCmd},
	{"listen", listen.NewCmd},
}

// addCommands registers every noun of the surface.
func addCommands(root *cobra.Command, f *cmdutil.Factory) {
	for _, n := range nouns {
		root.AddCommand(n.build(f))
	}
	_ = root.RegisterFlagCompletionFunc("profile", profiles.CompleteNames(f))
	completion.Init(root)
}

// onlyNoun is the noun a command line runs when its first word names one
// exactly (bnpl payments list ...), so that a start builds that noun's
// commands alone; "" when the whole tree is needed: a flag first, help,
// completion, a typo to suggest for, or no words at all.
func onlyNoun(args []string) string {
	if len(args) == 0 {
		return ""
	}
	for _, n := range nouns {
		if n.name == args[0] {
			return n.name
		}
	}
	return ""
}

// addNoun registers the one noun named.
func addNoun(root *cobra.Command, f *cmdutil.Factory, name string) {
	for _, n := range nouns {
		if n.name == name {
			root.AddCommand(n.build(f))
		}
	}
}
