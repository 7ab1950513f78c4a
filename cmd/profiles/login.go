package profiles

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/secret"
)

// LoginOptions are the inputs of `bnpl login`.
type LoginOptions struct {
	Profile      string
	Region       string
	MerchantCode string
	BaseURL      string
	WithKey      bool

	In         io.Reader
	ErrOut     io.Writer
	Terminal   bool
	ReadHidden func() (string, error) // a line from the terminal without echo
	Config     func() (*config.Config, error)
}

// NewLoginCmd returns `bnpl login`.
func NewLoginCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &LoginOptions{Config: f.Config}
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Save a merchant profile and its secret keys",
		Long: `Save a merchant profile: region, merchant code and secret keys.

On a terminal it asks for each, reading keys without echo. In scripts pass
--profile, --region and --merchant-code with --with-key, and pipe one key on stdin;
its prefix tells a test key (sk_test_) from a live key (sk_). Run it twice to store
both keys of one profile. A key is never taken as a flag value, so it never lands
in shell history or a process listing.`,
		Example: `  bnpl login
  printf '%s\n' "$BNPL_TEST_KEY" | bnpl login --profile shop-ae --region ae --merchant-code shop --with-key
  printf '%s\n' "$BNPL_LIVE_KEY" | bnpl login --profile shop-ae --with-key`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Profile = f.Global.Profile
			opts.In = f.IO.In
			opts.ErrOut = f.IO.ErrOut
			opts.Terminal = f.IO.IsStdinTTY()
			opts.ReadHidden = func() (string, error) {
				file, ok := f.IO.In.(*os.File)
				if !ok {
					return "", fmt.Errorf("stdin is not a terminal")
				}
				b, err := term.ReadPassword(int(file.Fd()))
				fmt.Fprintln(f.IO.ErrOut)
				return string(b), err
			}
			return loginRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Region, "region", "", "ae (UAE and Kuwait) or sa (KSA)")
	cmd.Flags().StringVar(&opts.MerchantCode, "merchant-code", "", "the merchant code of the account")
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "override the region's base URL")
	cmd.Flags().BoolVar(&opts.WithKey, "with-key", false, "read one secret key from stdin (no prompts)")
	return cmd
}

func loginRun(_ context.Context, o *LoginOptions) error {
	cfg, err := o.Config()
	if err != nil {
		return err
	}
	if !o.WithKey && !o.Terminal {
		return cmdutil.UsageHint("printf '%s\\n' \"$KEY\" | bnpl login --profile NAME --region ae --merchant-code CODE --with-key",
			"bnpl login needs a terminal to ask for keys; in scripts pass --with-key and pipe the key on stdin")
	}
	var p config.Profile
	if o.WithKey {
		p, err = loginUnattended(cfg, o)
	} else {
		p, err = loginInteractive(cfg, o)
	}
	if err != nil {
		return err
	}
	if err := cfg.SetProfile(p); err != nil {
		return err
	}
	if cfg.Current() == "" {
		if err := cfg.SetCurrent(p.Name); err != nil {
			return err
		}
	}
	if err := cfg.Save(); err != nil {
		return err
	}
	keys := []string{}
	if p.TestSecretKey != "" {
		keys = append(keys, "test "+secret.MaskKey(p.TestSecretKey))
	}
	if p.LiveSecretKey != "" {
		keys = append(keys, "live "+secret.MaskKey(p.LiveSecretKey))
	}
	fmt.Fprintf(o.ErrOut, "saved profile %s (region %s, merchant %s, keys: %s) in %s\n",
		p.Name, p.Region, p.MerchantCode, strings.Join(keys, ", "), cfg.Path())
	return nil
}

// loginUnattended merges one key from stdin into the named profile, so a
// script can store the test and the live key in two calls.
func loginUnattended(cfg *config.Config, o *LoginOptions) (config.Profile, error) {
	if o.Profile == "" {
		return config.Profile{}, cmdutil.Usagef("--with-key needs --profile NAME")
	}
	p, exists := cfg.Profile(o.Profile)
	if !exists {
		p = config.Profile{Name: strings.ToLower(o.Profile)}
		if o.Region == "" || o.MerchantCode == "" {
			return p, cmdutil.Usagef("a new profile needs --region (ae or sa) and --merchant-code")
		}
	}
	if o.Region != "" {
		p.Region = strings.ToLower(o.Region)
	}
	if o.MerchantCode != "" {
		p.MerchantCode = o.MerchantCode
	}
	if o.BaseURL != "" {
		p.BaseURL = o.BaseURL
	}
	key, err := config.ReadKey(o.In)
	if err != nil {
		return p, err
	}
	if live, _ := config.KeyKind(key); live {
		p.LiveSecretKey = key
	} else {
		p.TestSecretKey = key
	}
	return p, nil
}

func loginInteractive(cfg *config.Config, o *LoginOptions) (config.Profile, error) {
	in := bufio.NewReader(o.In)
	ask := func(label, def string) (string, error) {
		if def != "" {
			fmt.Fprintf(o.ErrOut, "%s [%s]: ", label, def)
		} else {
			fmt.Fprintf(o.ErrOut, "%s: ", label)
		}
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return "", cmdutil.Refuse("run bnpl login again", "login cancelled")
		}
		if v := strings.TrimSpace(line); v != "" {
			return v, nil
		}
		return def, nil
	}
	name := o.Profile
	var err error
	if name == "" {
		if name, err = ask("Profile name", "default"); err != nil {
			return config.Profile{}, err
		}
	}
	p, _ := cfg.Profile(name)
	p.Name = strings.ToLower(name)
	def := p.Region
	if o.Region != "" {
		def = o.Region
	}
	if def == "" {
		def = "ae"
	}
	if p.Region, err = ask("Region (ae for UAE and Kuwait, sa for KSA)", def); err != nil {
		return p, err
	}
	p.Region = strings.ToLower(p.Region)
	def = p.MerchantCode
	if o.MerchantCode != "" {
		def = o.MerchantCode
	}
	if p.MerchantCode, err = ask("Merchant code", def); err != nil {
		return p, err
	}
	for _, k := range []struct {
		label string
		dst   *string
		live  bool
	}{{"Test secret key (sk_test_...)", &p.TestSecretKey, false}, {"Live secret key (sk_..., empty to skip)", &p.LiveSecretKey, true}} {
		fmt.Fprintf(o.ErrOut, "%s: ", k.label)
		key, err := o.ReadHidden()
		if err != nil {
			return p, err
		}
		key = strings.TrimSpace(key)
		if key == "" {
			continue
		}
		live, ok := config.KeyKind(key)
		if !ok || live != k.live {
			return p, cmdutil.Refuse("copy the secret key from the merchant dashboard", "that is not a %s secret key", map[bool]string{true: "live", false: "test"}[k.live])
		}
		*k.dst = key
	}
	return p, nil
}
