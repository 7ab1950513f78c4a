package profiles

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
)

// NewLogoutCmd returns `bnpl logout`: the keys of a profile go, the profile
// (region, merchant code, base URL) stays for the next bnpl login.
func NewLogoutCmd(f *cmdutil.Factory) *cobra.Command {
	var only string
	cmd := &cobra.Command{
		Use:   "logout [name]",
		Short: "Remove a profile's secret keys, keeping the profile (asks first on a terminal; --yes skips)",
		Long: `Remove the secret keys of a profile from the OS keychain and the config file. The
profile itself stays, with its region, merchant code and base URL, so that bnpl login
--profile NAME --with-key stores a new key into it. bnpl profiles remove removes the
profile too.

The profile is NAME, else the one --profile, BNPL_PROFILE or bnpl profiles use chose.
--only test or --only live removes one of its keys. On a terminal it asks first;
--yes skips the question, and off a terminal (a script) it goes ahead.`,
		Example: `  bnpl logout
  bnpl logout shop-ae --only live
  bnpl logout shop-ae --yes`,
		Args:              cmdutil.AtMostOneArg("at most one profile name"),
		ValidArgsFunction: CompleteNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			test, live := true, true
			switch strings.ToLower(strings.TrimSpace(only)) {
			case "":
			case "test":
				live = false
			case "live":
				test = false
			default:
				return cmdutil.UsageHint("use --only test or --only live, or leave it out for both keys", "invalid --only %q", only)
			}
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			name := f.Global.Profile
			if len(args) == 1 {
				name = args[0]
			}
			if name == "" {
				name = cfg.Current()
			}
			if name == "" {
				return cmdutil.UsageHint("name it: bnpl logout NAME (bnpl profiles list shows them)", "no profile chosen to log out of")
			}
			name = strings.ToLower(strings.TrimSpace(name))
			p, ok := cfg.Profile(name)
			if !ok {
				// The config's own refusal, as profiles remove gives it.
				_, _, err := cfg.RemoveKeys(name, test, live)
				return err
			}
			hasTest := test && p.KeyIn(false) != config.StorageNone
			hasLive := live && p.KeyIn(true) != config.StorageNone
			if !hasTest && !hasLive {
				f.Noticef("profile %s has no %s to remove", name, keyWords(test, live))
				return nil
			}
			question := fmt.Sprintf("Remove the %s of profile %s? The profile stays.", keyWords(hasTest, hasLive), name)
			if err := f.AskFirst(cmd.Context(), question, cmdutil.ErrKept); err != nil {
				return err
			}
			removedTest, removedLive, err := cfg.RemoveKeys(name, test, live)
			if err != nil {
				return err
			}
			if err := save(f, cfg); err != nil {
				return err
			}
			f.Noticef("removed the %s of profile %s; bnpl login --profile %s --with-key stores a new one", keyWords(removedTest, removedLive), name, name)
			return nil
		},
	}
	cmd.Flags().StringVar(&only, "only", "", "remove only this key: test or live")
	_ = cmd.RegisterFlagCompletionFunc("only", cobra.FixedCompletions([]string{"test", "live"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func keyWords(test, live bool) string {
	switch {
	case test && live:
		return "test and live keys"
	case live:
		return "live key"
	}
	return "test key"
}
