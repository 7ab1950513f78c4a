package profiles

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/cmd/doctor"
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
	// InsecureStorage keeps the keys in the config file rather than the
	// OS keychain.
	InsecureStorage bool
	// NoVerify stores keys without the authenticated read that checks them.
	NoVerify bool
	// Verify makes one authenticated read with the target's key (doctor's
	// probe).
	Verify func(context.Context, *config.Target) (*doctor.ProbeResult, error)

	In       io.Reader
	ErrOut   io.Writer
	Terminal bool
	// Prompt asks on the terminal; Ctrl-C at any question ends login
	// with exit 130 and nothing saved.
	Prompt *cmdutil.Prompter
	Config func() (*config.Config, error)
}

// NewLoginCmd returns `bnpl login`.
func NewLoginCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &LoginOptions{Config: f.Config, Verify: doctor.Probe(f)}
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Save a merchant profile and its secret keys",
		Long: `Save a merchant profile: region, merchant code and secret keys.

On a terminal it asks for each, reading keys without echo. In scripts pass
--profile, --region and --merchant-code with --with-key, and pipe one key on stdin;
its prefix tells a test key (sk_test_) from a live key (sk_). Run it twice to store
both keys of one profile. A key is never taken as a flag value, so it never lands
in shell history or a process listing.

Keys go into the operating system's keychain (macOS Keychain, Windows Credential
Manager, the Secret Service of a Linux desktop); the config file then only notes
that they are there. Where no keychain answers within a few seconds (a headless
machine, CI) they go into the config file, mode 0600, and login says so.
--insecure-storage chooses the file. BNPL_SECRET_KEY, when set, still wins over
any stored key.

Each key is checked before it is stored, by one authenticated read at the profile's
address (GET /api/v2/payments, limit 1), and login says what it reached: the
merchant, the mode and the region. A key the service refuses (401), or one of the
other region (403), is not stored; a service that cannot be reached is said, and the
key stored unchecked. --no-verify skips the check.`,
		Example: `  bnpl login
  printf '%s\n' "$BNPL_TEST_KEY" | bnpl login --profile shop-ae --region ae --merchant-code shop --with-key
  printf '%s\n' "$BNPL_LIVE_KEY" | bnpl login --profile shop-ae --with-key`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Profile = f.Global.Profile
			opts.In = f.IO.In
			opts.ErrOut = f.IO.ErrOut
			opts.Terminal = f.IO.IsStdinTTY()
			opts.Prompt = f.Prompter(cmd.Context())
			return loginRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Region, "region", "", "ae (UAE and Kuwait) or sa (KSA)")
	cmd.Flags().StringVar(&opts.MerchantCode, "merchant-code", "", "the merchant code of the account")
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "override the region's base URL")
	cmd.Flags().BoolVar(&opts.WithKey, "with-key", false, "read one secret key from stdin (no prompts)")
	cmd.Flags().BoolVar(&opts.NoVerify, "no-verify", false, "store the key without checking it against the service")
	cmd.Flags().BoolVar(&opts.InsecureStorage, "insecure-storage", false, "keep the keys in the config file (mode 0600) instead of the OS keychain")
	return cmd
}

func loginRun(ctx context.Context, o *LoginOptions) error {
	cfg, err := o.Config()
	if err != nil {
		return err
	}
	if !o.WithKey && !o.Terminal {
		return cmdutil.UsageHint("printf '%s\\n' \"$KEY\" | bnpl login --profile NAME --region ae --merchant-code CODE --with-key",
			"bnpl login needs a terminal to ask for keys; in scripts pass --with-key and pipe the key on stdin")
	}
	var (
		p    config.Profile
		keys []string
	)
	if o.WithKey {
		p, keys, err = loginUnattended(cfg, o)
		if err == nil {
			// Checked before anything is stored: a refused key changes
			// nothing.
			for _, key := range keys {
				if err = checkKey(ctx, o, p, key); err != nil {
					break
				}
			}
		}
	} else {
		p, keys, err = loginInteractive(ctx, cfg, o)
	}
	if err != nil {
		return err
	}
	if err := cfg.SetProfile(p); err != nil {
		return err
	}
	var stored []string
	fellBack := false
	for _, key := range keys {
		res, err := cfg.StoreKey(p.Name, key, !o.InsecureStorage)
		if err != nil {
			return err
		}
		slot := "test"
		if res.Live {
			slot = "live"
		}
		if res.Fallback != "" && !fellBack {
			fellBack = true
			fmt.Fprintf(o.ErrOut, "no OS keychain answered (%s): keeping the keys in %s, mode 0600; --insecure-storage chooses the file without asking the keychain\n",
				res.Fallback, cfg.Path())
		}
		if res.Replaced {
			fmt.Fprintf(o.ErrOut, "replaced the %s key of profile %s\n", slot, p.Name)
		}
		stored = append(stored, fmt.Sprintf("%s key %s in %s", slot, secret.MaskKey(key), res.Storage.Describe()))
	}
	if cfg.Current() == "" {
		if err := cfg.SetCurrent(p.Name); err != nil {
			return err
		}
	}
	if err := cfg.Save(); err != nil {
		return err
	}
	for _, n := range cfg.Notices() {
		fmt.Fprintf(o.ErrOut, "warning: %s\n", n)
	}
	what := "no key stored"
	if len(stored) > 0 {
		what = strings.Join(stored, "; ")
	}
	fmt.Fprintf(o.ErrOut, "saved profile %s (region %s, merchant %s) in %s: %s\n",
		p.Name, p.Region, p.MerchantCode, cfg.Path(), what)
	return nil
}

// loginUnattended merges one key from stdin into the named profile, so a
// script can store the test and the live key in two calls. It returns the
// profile without the key, and the key to store.
func loginUnattended(cfg *config.Config, o *LoginOptions) (config.Profile, []string, error) {
	if o.Profile == "" {
		return config.Profile{}, nil, cmdutil.Usagef("--with-key needs --profile NAME")
	}
	p, exists := cfg.Profile(o.Profile)
	if !exists {
		p = config.Profile{Name: strings.ToLower(o.Profile)}
		if o.Region == "" || o.MerchantCode == "" {
			return p, nil, cmdutil.Usagef("a new profile needs --region (ae or sa) and --merchant-code")
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
		return p, nil, err
	}
	return p, []string{key}, nil
}

func loginInteractive(ctx context.Context, cfg *config.Config, o *LoginOptions) (config.Profile, []string, error) {
	name, err := askProfileName(o)
	if err != nil {
		return config.Profile{}, nil, err
	}
	p, _ := cfg.Profile(name)
	p.Name = strings.ToLower(name)
	if err := askRegion(o, &p); err != nil {
		return p, nil, err
	}
	def := p.MerchantCode
	if o.MerchantCode != "" {
		def = o.MerchantCode
	}
	for p.MerchantCode = ""; p.MerchantCode == ""; {
		if p.MerchantCode, err = askLine(o, "Merchant code", def); err != nil {
			return p, nil, err
		}
	}
	if o.BaseURL != "" {
		p.BaseURL = o.BaseURL
	}
	var keys []string
	for _, live := range []bool{false, true} {
		key, err := askKey(ctx, o, p, live)
		if err != nil {
			return p, nil, err
		}
		if key != "" {
			keys = append(keys, key)
		}
	}
	return p, keys, nil
}

// askLine asks label, def the answer an empty line gives.
func askLine(o *LoginOptions, label, def string) (string, error) {
	q := label + ": "
	if def != "" {
		q = fmt.Sprintf("%s [%s]: ", label, def)
	}
	line, err := o.Prompt.Line(q)
	if errors.Is(err, cmdutil.ErrInterrupted) {
		return "", err
	}
	if err != nil && line == "" {
		return "", cmdutil.Refuse("run bnpl login again", "login cancelled")
	}
	if v := strings.TrimSpace(line); v != "" {
		return v, nil
	}
	return def, nil
}

// askProfileName asks for the profile's name until it is a valid one,
// unless --profile gave one.
func askProfileName(o *LoginOptions) (string, error) {
	name := o.Profile
	var err error
	for name == "" || config.ValidateName(strings.ToLower(name)) != nil {
		if name != "" {
			fmt.Fprintln(o.ErrOut, config.ValidateName(strings.ToLower(name)).Error()+": use lower-case letters, digits, - and _")
		}
		if name, err = askLine(o, "Profile name", "default"); err != nil {
			return "", err
		}
	}
	return name, nil
}

// askRegion asks for the region, checked as soon as it is typed, not
// after the keys.
func askRegion(o *LoginOptions, p *config.Profile) error {
	def := p.Region
	if o.Region != "" {
		def = o.Region
	}
	if def == "" {
		def = "ae"
	}
	for {
		region, err := askLine(o, "Region (ae for UAE and Kuwait, sa for KSA)", def)
		if err != nil {
			return err
		}
		if region = strings.ToLower(region); config.ValidRegion(region) {
			p.Region = region
			return nil
		}
		fmt.Fprintf(o.ErrOut, "%q is not a region: type ae for the UAE and Kuwait, sa for KSA\n", region)
		def = ""
	}
}

// askKey asks for the test or the live key, hidden, until one of that
// kind the service takes is typed, or none ("": skipped, or the one
// stored kept).
func askKey(ctx context.Context, o *LoginOptions, p config.Profile, live bool) (string, error) {
	label := "Test secret key (sk_test_..."
	if live {
		label = "Live secret key (sk_..."
	}
	label += ", empty to skip): "
	if p.KeyIn(live) != config.StorageNone {
		label = strings.Replace(label, "empty to skip", "empty to keep the one stored", 1)
	}
	for {
		key, err := o.Prompt.Secret(label)
		if errors.Is(err, cmdutil.ErrInterrupted) {
			return "", err
		}
		if err != nil && key == "" {
			return "", cmdutil.Refuse("run bnpl login again", "login cancelled")
		}
		key = strings.TrimSpace(key)
		if key == "" {
			return "", nil
		}
		if kind, ok := config.KeyKind(key); !ok || kind != live {
			fmt.Fprintf(o.ErrOut, "that is not a %s secret key: copy it from the merchant dashboard, or leave it empty to skip\n", slotName(live))
			continue
		}
		// Checked at once, so that a refused key can be typed again.
		if err := checkKey(ctx, o, p, key); err != nil {
			var ve *verifyError
			if !errors.As(err, &ve) {
				return "", err
			}
			fmt.Fprintf(o.ErrOut, "%s\n%s\n", ve.msg, ve.hint)
			continue
		}
		return key, nil
	}
}

func slotName(live bool) string {
	if live {
		return "live"
	}
	return "test"
}

// verifyError is a key the service refused when login checked it.
type verifyError struct {
	msg, hint string
	code      int
}

func (e *verifyError) Error() string { return e.msg }
func (e *verifyError) Hint() string  { return e.hint }
func (e *verifyError) ExitCode() int { return e.code }

// checkKey makes one authenticated read with key at the profile's address
// and says on stderr what it reached. A key refused (401) or of the other
// region (403) is an error; a service that cannot be reached, or answers
// something else, is said and the key is stored unchecked.
func checkKey(ctx context.Context, o *LoginOptions, p config.Profile, key string) error {
	if o.NoVerify || o.Verify == nil {
		return nil
	}
	live, _ := config.KeyKind(key)
	base := p.BaseURL
	if base == "" {
		base, _ = config.RegionBaseURL(p.Region)
	}
	mode, masked := slotName(live), secret.MaskKey(key)
	// Nothing the service says may show the key back.
	clean := func(s string) string { return strings.ReplaceAll(s, key, masked) }
	t := &config.Target{Profile: p.Name, Region: p.Region, MerchantCode: p.MerchantCode, SecretKey: key, Live: live, BaseURL: base}
	res, err := o.Verify(ctx, t)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		fmt.Fprintf(o.ErrOut, "warning: could not check the %s key: %s; storing it unchecked (bnpl doctor checks it later)\n", mode, clean(err.Error()))
		return nil
	}
	detail := ""
	if res.Message != "" {
		detail = ": " + clean(res.Message)
	}
	switch {
	case res.Status >= 200 && res.Status < 300:
		fmt.Fprintf(o.ErrOut, "checked: %s accepted the %s key %s: merchant %s, %s mode, region %s\n", base, mode, masked, p.MerchantCode, mode, p.Region)
		if res.Currency != "" && !slices.Contains(config.RegionCurrencies(p.Region), res.Currency) {
			other := "ae"
			if res.Currency == "SAR" {
				other = "sa"
			}
			fmt.Fprintf(o.ErrOut, "warning: the newest payment is in %s, a currency of region %s, not %s: bnpl profiles set %s --region %s\n",
				res.Currency, other, p.Region, p.Name, other)
		}
		return nil
	case res.Status == 401:
		return &verifyError{code: cmdutil.ExitAuth,
			msg:  fmt.Sprintf("%s refused the %s key %s (401%s): nothing was stored", base, mode, masked, detail),
			hint: "copy the secret key again from the merchant dashboard; --no-verify stores a key without checking it"}
	case res.Status == 403:
		other := "sa"
		if p.Region == "sa" {
			other = "ae"
		}
		return &verifyError{code: cmdutil.ExitPermission,
			msg:  fmt.Sprintf("%s (region %s) refused the %s key %s (403%s): the key most likely belongs to region %s; nothing was stored", base, p.Region, mode, masked, detail, other),
			hint: fmt.Sprintf("run login again with --region %s; --no-verify stores a key without checking it", other)}
	}
	fmt.Fprintf(o.ErrOut, "warning: could not check the %s key: %s answered %d%s; storing it unchecked (bnpl doctor checks it later)\n", mode, base, res.Status, detail)
	return nil
}
