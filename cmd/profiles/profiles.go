// Package profiles holds `bnpl login` and the `bnpl profiles` commands.
package profiles

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// NewCmd returns `bnpl profiles` and its verbs.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles <verb>",
		Short: "List, show, choose, change and remove merchant profiles",
		Long: `Profiles hold a merchant's region, merchant code and keys. Keys are saved by
bnpl login and always shown masked.`,
	}
	cmd.AddCommand(newListCmd(f), newShowCmd(f), newUseCmd(f), newSetCmd(f), newRemoveCmd(f))
	return cmd
}

var profileColumns = []output.Column{
	{Header: "NAME", Path: "name"},
	{Header: "CURRENT", Path: "current"},
	{Header: "REGION", Path: "region"},
	{Header: "MERCHANT", Path: "merchant_code"},
	{Header: "TEST KEY", Path: "test_secret_key"},
	{Header: "LIVE KEY", Path: "live_secret_key"},
	{Header: "BASE URL", Path: "base_url"},
}

// profileRecord is a profile as printed: keys masked by Profile's own
// MarshalJSON, plus whether it is the current one.
func profileRecord(p config.Profile, current string) (json.RawMessage, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["current"] = p.Name == current
	return json.Marshal(m)
}

func newListCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Short:   "List profiles, keys masked",
		Example: "  bnpl profiles list\n  bnpl profiles list -o json --jq '.[].name'",
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			printer, err := f.Printer()
			if err != nil {
				return err
			}
			var recs []json.RawMessage
			for _, p := range cfg.Profiles() {
				rec, err := profileRecord(p, cfg.Current())
				if err != nil {
					return err
				}
				recs = append(recs, rec)
			}
			if len(recs) == 0 {
				f.Noticef("no profiles yet: commands use the embedded sandbox; add one with bnpl login")
			}
			return printer.List(profileColumns, recs)
		},
	}
}

func newShowCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "show",
		Short: "Show what commands would use: profile, region, merchant, key (masked), mode, base URL, and where each came from",
		Example: `  bnpl profiles show
  bnpl --profile shop-sa --live profiles show -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return showRun(cmd.Context(), f)
		},
	}
}

func showRun(_ context.Context, f *cmdutil.Factory) error {
	t, err := f.Target()
	if err != nil {
		return err
	}
	printer, err := f.Printer()
	if err != nil {
		return err
	}
	rec, err := json.Marshal(t)
	if err != nil {
		return err
	}
	src := func(field string) string {
		if s := t.Sources[field]; s != "" {
			return " (" + s + ")"
		}
		return ""
	}
	mode := "test"
	if t.Live {
		mode = "live"
	}
	profile := t.Profile
	if t.Embedded {
		profile = "(embedded sandbox)"
	} else if profile == "" {
		profile = "(environment)"
	}
	view := &output.Detail{Fields: []output.Field{
		{Label: "Profile", Value: profile + src("profile")},
		{Label: "Region", Value: t.Region + src("region")},
		{Label: "Merchant code", Value: t.MerchantCode + src("merchant_code")},
		{Label: "Key", Value: t.Masked() + src("secret_key")},
		{Label: "Mode", Value: mode + src("live")},
		{Label: "Base URL", Value: t.BaseURL + src("base_url")},
	}}
	return printer.Object(rec, view)
}

func newUseCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:               "use <name>",
		Short:             "Make a profile the default",
		Example:           "  bnpl profiles use shop-ae",
		Args:              cmdutil.ExactArgs(1, "a profile name"),
		ValidArgsFunction: CompleteNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			if err := cfg.SetCurrent(args[0]); err != nil {
				return err
			}
			if err := cfg.Save(); err != nil {
				return err
			}
			f.Noticef("default profile is now %s", strings.ToLower(args[0]))
			return nil
		},
	}
}

func newSetCmd(f *cmdutil.Factory) *cobra.Command {
	var region, merchant, baseURL string
	cmd := &cobra.Command{
		Use:   "set <name>",
		Short: "Change a profile's region, merchant code or base URL (keys are set by bnpl login)",
		Example: `  bnpl profiles set shop-ae --merchant-code shop-uae
  bnpl profiles set local --base-url http://127.0.0.1:8700`,
		Args:              cmdutil.ExactArgs(1, "a profile name"),
		ValidArgsFunction: CompleteNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			if region == "" && merchant == "" && !cmd.Flags().Changed("base-url") {
				return cmdutil.Usagef("nothing to change: pass --region, --merchant-code or --base-url")
			}
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			p, ok := cfg.Profile(args[0])
			if !ok {
				return cmdutil.UsageHint("create it with bnpl login --profile "+args[0], "no profile named %q", args[0])
			}
			if region != "" {
				p.Region = strings.ToLower(region)
			}
			if merchant != "" {
				p.MerchantCode = merchant
			}
			if cmd.Flags().Changed("base-url") {
				p.BaseURL = baseURL
			}
			if err := cfg.SetProfile(p); err != nil {
				return err
			}
			if err := cfg.Save(); err != nil {
				return err
			}
			f.Noticef("updated profile %s", p.Name)
			return nil
		},
	}
	cmd.Flags().StringVar(&region, "region", "", "ae or sa")
	cmd.Flags().StringVar(&merchant, "merchant-code", "", "merchant code")
	cmd.Flags().StringVar(&baseURL, "base-url", "", "base URL override; empty to use the region's")
	return cmd
}

func newRemoveCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:               "remove <name>",
		Short:             "Remove a profile and its keys",
		Example:           "  bnpl profiles remove old-shop",
		Args:              cmdutil.ExactArgs(1, "a profile name"),
		ValidArgsFunction: CompleteNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			if err := cfg.RemoveProfile(args[0]); err != nil {
				return err
			}
			if err := cfg.Save(); err != nil {
				return err
			}
			f.Noticef("removed profile %s", strings.ToLower(args[0]))
			return nil
		},
	}
}

// CompleteNames completes profile names for shells.
func CompleteNames(f *cmdutil.Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		cfg, err := f.Config()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []string
		for _, p := range cfg.Profiles() {
			if strings.HasPrefix(p.Name, strings.ToLower(toComplete)) {
				names = append(names, fmt.Sprintf("%s\t%s %s", p.Name, p.Region, p.MerchantCode))
			}
		}
		sort.Strings(names)
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}
