// Package profiles holds `bnpl login` and the `bnpl profiles` commands.
package profiles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/secret"
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

// ListColumns are the columns of a profiles table.
var ListColumns = []output.Column{
	// A profile's name is typed after --profile and a merchant code after
	// --merchant-code: never cut. A masked key is told apart by its last
	// characters: never cut, and both kept, so that a missing one is not
	// taken for a dropped column. The short words are never cut either:
	// a terminal too narrow for all of them shows the profiles as records.
	{Header: "NAME", Path: "name", Kind: output.KindID},
	{Header: "CURRENT", Path: "current", Kind: output.Whole(output.KindPlain)},
	{Header: "REGION", Path: "region", Kind: output.Whole(output.KindPlain)},
	{Header: "MERCHANT", Path: "merchant_code", Kind: output.KindID},
	{Header: "TEST KEY", Path: "test_secret_key", Kind: output.Pinned(output.KindLinkID)},
	{Header: "LIVE KEY", Path: "live_secret_key", Kind: output.Pinned(output.KindLinkID)},
	{Header: "KEYS IN", Path: "keys_in", Kind: output.Whole(output.KindPlain)},
	// The base URL tells a sandbox from production: never dropped nor
	// broken; on a narrow terminal it goes under its row.
	{Header: "BASE URL", Path: "base_url", Kind: output.Below(output.KindID)},
}

// profileRecord is a profile as printed: keys masked by Profile's own
// MarshalJSON, plus whether it is the current one and where its keys live.
// Keys in the keychain are read so that they show masked like the others;
// one the keychain cannot give is left out, and its storage still shows.
func profileRecord(cfg *config.Config, p config.Profile) (json.RawMessage, error) {
	for _, live := range []bool{false, true} {
		key, _, err := cfg.Key(p, live)
		if err != nil {
			continue
		}
		if live {
			p.LiveSecretKey = key
		} else {
			p.TestSecretKey = key
		}
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["current"] = p.Name == cfg.Current()
	m["keys_in"] = keysIn(p)
	return json.Marshal(m)
}

// keysIn sums up where a profile's keys live: "keychain", "file", or each
// key's place when they differ.
func keysIn(p config.Profile) string {
	switch {
	case p.TestKeyIn == p.LiveKeyIn:
		return string(p.TestKeyIn)
	case p.LiveKeyIn == config.StorageNone:
		return string(p.TestKeyIn)
	case p.TestKeyIn == config.StorageNone:
		return string(p.LiveKeyIn)
	}
	return fmt.Sprintf("test %s, live %s", p.TestKeyIn, p.LiveKeyIn)
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
				rec, err := profileRecord(cfg, p)
				if err != nil {
					return err
				}
				recs = append(recs, rec)
			}
			if len(recs) == 0 {
				f.Noticef("no profiles: commands use the embedded sandbox; add one with `bnpl login`")
			}
			return printer.List(ListColumns, recs)
		},
	}
}

func newShowCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "show [name]",
		Short: "Show a profile, or what commands would use: region, merchant, keys (masked) and where each lives, mode, base URL",
		Long: `Show what a command would use, and where each value came from: the profile
(NAME, else the one --profile, BNPL_PROFILE or bnpl profiles use chose), its region,
merchant code, mode, base URL, the key a command would send, and both of the
profile's keys with the place each lives (the OS keychain or the config file). A key
the profile lacks shows as (none). BNPL_SECRET_KEY, when set, is the key commands
send, whatever the profile holds.`,
		Example: `  bnpl profiles show
  bnpl profiles show shop-sa
  bnpl --profile shop-sa --live profiles show -o json`,
		Args:              cmdutil.AtMostOneArg("at most one profile name"),
		ValidArgsFunction: CompleteNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			return showRun(cmd.Context(), f, name)
		},
	}
}

func showRun(_ context.Context, f *cmdutil.Factory, name string) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	t, err := showTarget(f, cfg, name)
	if err != nil {
		return err
	}
	printer, err := f.Printer()
	if err != nil {
		return err
	}
	fields := targetFields(t)
	extra := map[string]any{}
	if p, ok := cfg.Profile(t.Profile); ok && t.Profile != "" && !t.Embedded {
		for _, slot := range []struct {
			label string
			live  bool
			field string
		}{{"Test key", false, "test_secret_key"}, {"Live key", true, "live_secret_key"}} {
			value, masked := describeSlot(cfg, p, slot.live)
			fields = append(fields, output.Field{Label: slot.label, Value: value})
			extra[slot.field] = masked
			extra[strings.Replace(slot.field, "secret_key", "key_storage", 1)] = string(p.KeyIn(slot.live))
		}
	}
	fields = append(fields, output.Field{Label: "Base URL", Value: secret.RedactURL(t.BaseURL) + sourceOf(t, "base_url")})
	rec, err := showRecord(t, extra)
	if err != nil {
		return err
	}
	return printer.Object(rec, &output.Detail{Fields: fields})
}

// showTarget resolves the profile shown: the one named, else the one
// commands would use now.
func showTarget(f *cmdutil.Factory, cfg *config.Config, name string) (*config.Target, error) {
	o := config.Overrides{Profile: f.Global.Profile, Live: f.Global.Live, Sandbox: f.Global.Sandbox, KeyOptional: true}
	if name != "" {
		if _, ok := cfg.Profile(name); !ok {
			return nil, &config.ProfileNotFoundError{Name: name, Known: profileNames(cfg)}
		}
		o.Profile, o.Sandbox = name, false
	}
	t, err := config.Resolve(cfg, o, f.Getenv)
	if err != nil {
		return nil, err
	}
	if name != "" {
		t.Sources["profile"] = "argument"
	}
	return t, nil
}

// sourceOf says where a field of t came from, " (flag)", or "".
func sourceOf(t *config.Target, field string) string {
	if s := t.Sources[field]; s != "" {
		return " (" + s + ")"
	}
	return ""
}

// targetFields are what `profiles show` says of the target: profile,
// region, merchant, mode and key, each with where it came from.
func targetFields(t *config.Target) []output.Field {
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
	key := t.Masked()
	switch {
	case key == "":
		key = "(none): this profile has no " + mode + " key"
	case t.KeyStorage != config.StorageNone:
		key += " (" + t.Sources["secret_key"] + ", " + t.KeyStorage.Describe() + ")"
	default:
		key += sourceOf(t, "secret_key")
	}
	return []output.Field{
		{Label: "Profile", Value: profile + sourceOf(t, "profile")},
		{Label: "Region", Value: t.Region + sourceOf(t, "region")},
		{Label: "Merchant code", Value: t.MerchantCode + sourceOf(t, "merchant_code")},
		{Label: "Mode", Value: mode + sourceOf(t, "live")},
		{Label: "Key", Value: key},
	}
}

// showRecord is the JSON of `profiles show`: the target, with the
// profile's masked keys and where they live.
func showRecord(t *config.Target, extra map[string]any) ([]byte, error) {
	rec, err := json.Marshal(t)
	if err != nil || len(extra) == 0 {
		return rec, err
	}
	var m map[string]any
	if err := json.Unmarshal(rec, &m); err != nil {
		return nil, err
	}
	for k, v := range extra {
		m[k] = v
	}
	return json.Marshal(m)
}

// describeSlot is one of a profile's keys as shown: masked, with the place
// it lives, or (none); and the masked key alone for JSON ("" for none).
func describeSlot(cfg *config.Config, p config.Profile, live bool) (string, string) {
	in := p.KeyIn(live)
	if in == config.StorageNone {
		return "(none)", ""
	}
	key, _, err := cfg.Key(p, live)
	if err != nil {
		var ke *config.KeychainError
		if errors.As(err, &ke) {
			err = ke.Err
		}
		return fmt.Sprintf("in %s, which cannot give it: %v", in.Describe(), err), ""
	}
	masked := secret.MaskKey(key)
	return masked + " (" + in.Describe() + ")", masked
}

func profileNames(cfg *config.Config) []string {
	var names []string
	for _, p := range cfg.Profiles() {
		names = append(names, p.Name)
	}
	return names
}

func newUseCmd(f *cmdutil.Factory) *cobra.Command {
	return oneProfile(f, &cobra.Command{
		Use:     "use <name>",
		Short:   "Make a profile the default",
		Example: "  bnpl profiles use shop-ae",
	}, func(cmd *cobra.Command, cfg *config.Config, name string) (string, error) {
		return "default profile is now " + strings.ToLower(name), cfg.SetCurrent(name)
	})
}

func newSetCmd(f *cmdutil.Factory) *cobra.Command {
	var region, merchant, baseURL string
	cmd := oneProfile(f, &cobra.Command{
		Use:   "set <name>",
		Short: "Change a profile's region, merchant code or base URL (keys are set by bnpl login)",
		Example: `  bnpl profiles set shop-ae --merchant-code shop-uae
  bnpl profiles set shop-ae --base-url http://127.0.0.1:8700
  bnpl profiles set shop-ae --base-url ""`,
		PreRunE: func(cmd *cobra.Command, args []string) error {
			if region == "" && merchant == "" && !cmd.Flags().Changed("base-url") {
				return cmdutil.Usagef("nothing to change: pass --region, --merchant-code or --base-url")
			}
			return nil
		},
	}, func(cmd *cobra.Command, cfg *config.Config, name string) (string, error) {
		p, ok := cfg.Profile(name)
		if !ok {
			return "", cmdutil.UsageHint("create it with bnpl login --profile "+name, "no profile named %q", name)
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
		return "updated profile " + p.Name, cfg.SetProfile(p)
	})
	cmd.Flags().StringVar(&region, "region", "", "ae or sa")
	cmd.Flags().StringVar(&merchant, "merchant-code", "", "merchant code")
	cmd.Flags().StringVar(&baseURL, "base-url", "", "base URL override; empty to use the region's")
	return cmd
}

func newRemoveCmd(f *cmdutil.Factory) *cobra.Command {
	return oneProfile(f, &cobra.Command{
		Use:   "remove <name>",
		Short: "Remove a profile and its keys (asks first on a terminal; --yes skips)",
		Long: `Remove a profile and its keys, from the config file and from the OS keychain.
On a terminal it asks first; --yes skips the question, and off a terminal (a
script) it goes ahead.`,
		Example: "  bnpl profiles remove old-shop\n  bnpl profiles remove old-shop --yes",
	}, func(cmd *cobra.Command, cfg *config.Config, name string) (string, error) {
		lower := strings.ToLower(name)
		if _, ok := cfg.Profile(lower); ok {
			if err := f.AskFirst(cmd.Context(), "Remove profile "+lower+" and its keys?", cmdutil.ErrKept); err != nil {
				return "", err
			}
		}
		return "removed profile " + lower, cfg.RemoveProfile(name)
	})
}

// oneProfile makes cmd change the profile its one argument names: the
// config is read, change makes the change, and the config is saved; then
// what change says it did is said on stderr.
func oneProfile(f *cmdutil.Factory, cmd *cobra.Command, change func(cmd *cobra.Command, cfg *config.Config, name string) (done string, err error)) *cobra.Command {
	cmd.Args = cmdutil.ExactArgs(1, "a profile name")
	cmd.ValidArgsFunction = CompleteNames(f)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		cfg, err := f.Config()
		if err != nil {
			return err
		}
		done, err := change(cmd, cfg, args[0])
		if err != nil {
			return err
		}
		if err := save(f, cfg); err != nil {
			return err
		}
		f.Noticef("%s", done)
		return nil
	}
	return cmd
}

// save writes the config and says what the writing left to say: a
// directory others can write, a keychain entry that could not be deleted.
func save(f *cmdutil.Factory, cfg *config.Config) error {
	if err := cfg.Save(); err != nil {
		return err
	}
	for _, n := range cfg.Notices() {
		f.Noticef("warning: %s", n)
	}
	return nil
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
