// Package doctor is `bnpl doctor`: checks of the config file, the profiles
// and their keys, the selected account, reachability of the service and
// the clock, each with a fix.
package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
	"github.com/bnpl-cli/bnpl/internal/secret"
)

// Statuses of a check.
const (
	StatusOK   = "ok"
	StatusWarn = "warn"
	StatusFail = "fail"
	// StatusSkip is a check that could not be made (no answer to read a
	// clock from); it fails nothing.
	StatusSkip = "skip"
)

// MaxClockSkew is how far the local clock may drift from the service's
// before doctor warns: beyond it, times given as durations (--since 24h)
// and the sandbox's expiries stop meaning what a person expects.
const MaxClockSkew = 5 * time.Minute

// Check is one line of the report.
type Check struct {
	Name    string `json:"name"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// ProbeResult is what an authenticated read of the service gave.
type ProbeResult struct {
	Status int
	// Date is the answer's Date header, "" when there was none.
	Date string
	// Currency is the newest payment's currency, "" when there is none.
	Currency string
	// Message is the service's error message, for a non-2xx answer.
	Message string
}

// Deps are what the checks read; tests fake them.
type Deps struct {
	Getenv    func(string) string
	Overrides config.Overrides
	// Probe sends GET /api/v2/payments?limit=1 with the target's key. An
	// error is no answer at all.
	Probe func(ctx context.Context, t *config.Target) (*ProbeResult, error)
	Now   func() time.Time
	// StatePath is the embedded sandbox's state file, named when the
	// target is the embedded sandbox.
	StatePath string
	// InspectState checks a state file (sandbox.InspectState); nil skips
	// the check.
	InspectState func(context.Context, string) (*sandbox.StateInfo, error)
}

// NewCmd returns `bnpl doctor`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the config, profiles, keys, region, reachability and clock, with fixes",
		Long: `Check what bnpl needs, one line per check: ok, warn or fail, and for anything
not ok the command that fixes it.

  config file     present, a regular file, and private (mode 0600: it holds secret keys)
  config directory  its directory (and, for a link, the directory of the file it leads
                  to) cannot be written by other users, who could replace the file
  profile NAME    region, merchant code and keys are set; keys are in the right slot
                  (sk_test_ for test_secret_key, sk_ for live_secret_key), and where
                  each lives: the OS keychain or the config file
  target          which profile, region, key (masked) and base URL commands use, and
                  where the key comes from (BNPL_SECRET_KEY wins over the profile)
  reachability    an authenticated read of the base URL: 200 is fine; 401 means
                  reachable but the key is refused; 403 the key's region is another
  region          the merchant's currency belongs to the region (known for the
                  sandbox's merchants, else from the newest payment)
  sandbox state   the embedded sandbox's state file can be opened, read and written,
                  the webhook delivery rules it holds, and whether a server serves it
  clock           the local clock is within 5 minutes of the service's Date header

Exit status: 0 when no check failed (warnings allowed), 1 when one did. With -o json
(or tsv, csv) the checks are printed as records with name, status, message and fix;
with -o json stderr's one error object names the first check that failed, its fix
the hint.`,
		Example: `  bnpl doctor
  bnpl --profile shop-ae --live doctor
  bnpl doctor -o json --jq '.[] | select(.status == "fail") | .fix'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			deps := Deps{
				Getenv:       f.Getenv,
				Overrides:    config.Overrides{Profile: f.Global.Profile, Live: f.Global.Live, Sandbox: f.Global.Sandbox},
				Probe:        Probe(f),
				Now:          time.Now,
				StatePath:    f.EmbeddedStatePath(),
				InspectState: sandbox.InspectState,
			}
			checks := Run(cmd.Context(), deps)
			return printChecks(f, checks)
		},
	}
}

// Run makes every check, in order.
func Run(ctx context.Context, d Deps) []Check {
	var checks []Check
	add := func(c Check) { checks = append(checks, c) }

	path := config.DefaultPath(d.Getenv)
	cfg, cfgCheck := checkConfigFile(path, d.Getenv)
	add(cfgCheck)
	if cfg != nil {
		add(checkConfigDir(cfg))
		for _, p := range cfg.Profiles() {
			add(checkProfile(p))
			add(checkKeys(cfg, p))
		}
	}

	t, err := config.Resolve(cfg, d.Overrides, d.Getenv)
	if err != nil {
		add(Check{Name: "target", Status: StatusFail, Message: err.Error(), Fix: hintOf(err, "see `bnpl profiles list` and `bnpl login`")})
		return guard(checks)
	}
	target := describeTarget(t)
	if t.Embedded && d.StatePath != "" {
		target.Message += ", state in " + d.StatePath
	}
	add(target)
	if t.Embedded && d.StatePath != "" && d.InspectState != nil {
		state := checkState(ctx, d.StatePath, d.InspectState)
		add(state)
		if state.Status == StatusFail {
			add(Check{Name: "reachability", Status: StatusSkip, Message: "not tried: the embedded sandbox's state file cannot be used (see sandbox state)"})
			return guard(checks)
		}
	}

	res, err := d.Probe(ctx, t)
	reach := checkReachability(t, res, err)
	add(reach)
	add(checkRegion(t, res, reach.Status == StatusOK))
	add(checkClock(t, res, d.Now))
	return guard(checks)
}

// guard masks, in the report, any key or URL password a check quoted and
// neutralises terminal escapes: messages quote the service's answers and
// files a person wrote.
func guard(checks []Check) []Check {
	var m *secret.Masker
	for i := range checks {
		c := &checks[i]
		c.Message, c.Fix = m.Text(c.Message), m.Text(c.Fix)
	}
	return checks
}

func hintOf(err error, fallback string) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		return h.Hint()
	}
	return fallback
}

// checkConfigFile loads the config and judges the file's mode. A config
// that cannot be loaded is a failure, and the other checks go on without
// it (the environment may still name a key).
func checkConfigFile(path string, getenv func(string) string) (*config.Config, Check) {
	c := Check{Name: "config file"}
	if path == "" {
		c.Status, c.Message, c.Fix = StatusFail, "cannot tell where the config file is: neither XDG_CONFIG_HOME nor HOME is set", "set HOME to your home directory"
		return nil, c
	}
	cfg, err := config.Load(path)
	if err != nil {
		c.Status, c.Message, c.Fix = StatusFail, err.Error(), hintOf(err, "fix or remove "+path+", then run bnpl login")
		return nil, c
	}
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		c.Status = StatusOK
		c.Message = fmt.Sprintf("no config file at %s: commands use the embedded sandbox", path)
		if getenv(config.EnvSecretKey) != "" {
			c.Message = fmt.Sprintf("no config file at %s: commands use %s", path, config.EnvSecretKey)
		}
		return cfg, c
	}
	if err != nil {
		c.Status, c.Message, c.Fix = StatusFail, err.Error(), "check the permissions of "+path
		return cfg, c
	}
	c.Status, c.Message = StatusOK, fmt.Sprintf("%s, mode %04o", path, info.Mode().Perm())
	if runtime.GOOS == "windows" {
		return cfg, c
	}
	mode := info.Mode().Perm()
	switch {
	case mode&0o044 != 0:
		// Another user can read the secret keys.
		c.Status = StatusFail
		c.Message = fmt.Sprintf("%s holds secret keys and other users can read it (mode %04o)", path, mode)
		c.Fix = "chmod 600 " + shellQuote(path)
	case mode&0o077 != 0:
		c.Status = StatusWarn
		c.Message = fmt.Sprintf("%s can be changed by other users (mode %04o)", path, mode)
		c.Fix = "chmod 600 " + shellQuote(path)
	}
	return cfg, c
}

// shellQuote quotes a path for a fix line only when it needs it.
func shellQuote(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r == '~' ||
			('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z'))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// checkConfigDir warns when the file's directory, or the directory of the
// file a link at its path leads to, is not private: whoever can write it
// can replace the config, and with it the keys and base URL commands use.
func checkConfigDir(cfg *config.Config) Check {
	c := Check{Name: "config directory", Status: StatusOK, Message: filepath.Dir(cfg.Path()) + " is private to you"}
	if runtime.GOOS == "windows" {
		c.Status, c.Message = StatusSkip, "Unix modes say nothing of Windows ACLs"
		return c
	}
	if _, err := os.Stat(filepath.Dir(cfg.Path())); err != nil {
		c.Message = filepath.Dir(cfg.Path()) + " does not exist yet; bnpl login makes it, mode 0700"
		return c
	}
	if w := cfg.DirWarnings(); len(w) > 0 {
		c.Status = StatusWarn
		var msgs, fixes []string
		for _, line := range w {
			msg, fix, ok := strings.Cut(line, "; fix with: ")
			if !ok {
				fix = "keep the config in a directory of your own (set XDG_CONFIG_HOME)"
			}
			msgs, fixes = append(msgs, msg), append(fixes, fix)
		}
		c.Message, c.Fix = strings.Join(msgs, "; "), strings.Join(fixes, "; ")
	}
	return c
}

func checkProfile(p config.Profile) Check {
	c := Check{Name: "profile " + p.Name, Status: StatusOK}
	var problems, warnings, fixes []string
	if !config.ValidRegion(p.Region) {
		problems = append(problems, fmt.Sprintf("region %q is not ae or sa", p.Region))
		fixes = append(fixes, fmt.Sprintf("bnpl profiles set %s --region ae (or sa)", p.Name))
	}
	if p.TestKeyIn == config.StorageNone && p.LiveKeyIn == config.StorageNone {
		problems = append(problems, "no key")
		fixes = append(fixes, fmt.Sprintf("bnpl login --profile %s --with-key", p.Name))
	} else if p.TestKeyIn == config.StorageNone {
		warnings = append(warnings, "no test key (test mode and bnpl smoke need one)")
		fixes = append(fixes, fmt.Sprintf("printf '%%s\\n' \"$TEST_KEY\" | bnpl login --profile %s --with-key", p.Name))
	}
	if p.MerchantCode == "" {
		warnings = append(warnings, "no merchant code (checkout and dispute webhooks need it)")
		fixes = append(fixes, fmt.Sprintf("bnpl profiles set %s --merchant-code CODE", p.Name))
	}
	switch {
	case len(problems) > 0:
		c.Status, c.Message = StatusFail, strings.Join(append(problems, warnings...), "; ")
	case len(warnings) > 0:
		c.Status, c.Message = StatusWarn, strings.Join(warnings, "; ")
	default:
		c.Message = fmt.Sprintf("region %s, merchant %s", p.Region, p.MerchantCode)
	}
	c.Fix = strings.Join(fixes, "; ")
	return c
}

// checkKeys checks each key is in its slot (a live key stored as the test
// key would move real money in what the person believes is test mode), and
// says where each lives. A key in a keychain that cannot give it is a
// warning: the environment may stand in for it.
func checkKeys(cfg *config.Config, p config.Profile) Check {
	c := Check{Name: "profile " + p.Name + " keys", Status: StatusOK}
	var parts, problems, unreadable []string
	for _, k := range []struct {
		slot     string
		wantLive bool
	}{{"test_secret_key", false}, {"live_secret_key", true}} {
		key, in, err := cfg.Key(p, k.wantLive)
		if err != nil {
			var ke *config.KeychainError
			if errors.As(err, &ke) {
				err = ke.Err
			}
			unreadable = append(unreadable, fmt.Sprintf("%s is in %s, which cannot give it (%v)", k.slot, in.Describe(), err))
			continue
		}
		if key == "" {
			parts = append(parts, k.slot+" unset")
			continue
		}
		where := " in " + in.Describe()
		live, ok := config.KeyKind(key)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s %s%s is not a secret key (sk_test_… or sk_…)", k.slot, secret.MaskKey(key), where))
		case live != k.wantLive && k.wantLive:
			problems = append(problems, fmt.Sprintf("%s %s%s is a test key", k.slot, secret.MaskKey(key), where))
		case live != k.wantLive:
			problems = append(problems, fmt.Sprintf("%s %s%s is a LIVE key", k.slot, secret.MaskKey(key), where))
		default:
			parts = append(parts, k.slot+" "+secret.MaskKey(key)+where)
		}
	}
	switch {
	case len(problems) > 0:
		c.Status = StatusFail
		c.Message = strings.Join(append(problems, unreadable...), "; ")
		c.Fix = fmt.Sprintf("store each key again with `bnpl login --profile %s --with-key` (the prefix decides its slot)", p.Name)
	case len(unreadable) > 0:
		c.Status = StatusWarn
		c.Message = strings.Join(append(unreadable, parts...), "; ")
		c.Fix = fmt.Sprintf("unlock the keychain, set %s, or store the key again with `bnpl login --profile %s --with-key --insecure-storage`", config.EnvSecretKey, p.Name)
	default:
		c.Message = strings.Join(parts, ", ")
	}
	return c
}

func describeTarget(t *config.Target) Check {
	mode := "test"
	if t.Live {
		mode = "live"
	}
	who := "profile " + t.Profile
	switch {
	case t.Embedded:
		who = "the embedded sandbox"
	case t.SandboxKeys:
		who = "the sandbox at " + config.EnvBaseURL + ", with its built-in key"
	case t.Profile == "":
		who = "the environment (" + config.EnvSecretKey + ")"
	}
	from := ""
	switch {
	case t.KeyStorage != config.StorageNone:
		from = " from " + t.KeyStorage.Describe()
	case t.Sources["secret_key"] == config.SourceEnv && t.Profile != "":
		from = " from " + config.EnvSecretKey + " (it wins over the profile's keys)"
	}
	return Check{Name: "target", Status: StatusOK,
		Message: fmt.Sprintf("%s: region %s, merchant %s, %s key %s%s, %s", who, t.Region, t.MerchantCode, mode, t.Masked(), from, secret.RedactURL(t.BaseURL))}
}

func profileFix(t *config.Target, what string) string {
	if t.Profile == "" {
		return "set " + config.EnvSecretKey + " to " + what
	}
	return fmt.Sprintf("store %s with `bnpl login --profile %s --with-key`", what, t.Profile)
}

func checkReachability(t *config.Target, res *ProbeResult, err error) Check {
	c := Check{Name: "reachability"}
	base := secret.RedactURL(t.BaseURL)
	if err != nil {
		c.Status = StatusFail
		c.Message = fmt.Sprintf("cannot reach %s: %v", base, err)
		c.Fix = hintOf(err, "")
		if c.Fix == "" || strings.Contains(c.Fix, "`bnpl doctor`") {
			// The client's hint sends a person here; this is the check.
			c.Fix = "check the network and the base URL (profile base_url or " + config.EnvBaseURL + ")"
		}
		return c
	}
	detail := ""
	if res.Message != "" {
		detail = ": " + res.Message
	}
	switch {
	case res.Status >= 200 && res.Status < 300:
		c.Status, c.Message = StatusOK, fmt.Sprintf("%s answered %d to an authenticated read: the key is accepted", base, res.Status)
	case res.Status == http.StatusUnauthorized:
		c.Status = StatusFail
		c.Message = fmt.Sprintf("%s is reachable but refused the key %s (401%s)", base, t.Masked(), detail)
		c.Fix = profileFix(t, "the right secret key from the merchant dashboard")
	case res.Status == http.StatusForbidden:
		other := "sa"
		if t.Region == "sa" {
			other = "ae"
		}
		c.Status = StatusFail
		c.Message = fmt.Sprintf("%s is reachable but the key may not use it (403%s): the key probably belongs to region %s", base, detail, other)
		c.Fix = fmt.Sprintf("set the region: bnpl profiles set %s --region %s", orName(t.Profile), other)
	case res.Status == http.StatusNotFound:
		c.Status = StatusFail
		c.Message = fmt.Sprintf("%s answered 404 to /api/v2/payments: it does not look like the service", base)
		c.Fix = "check the base URL (profile base_url or " + config.EnvBaseURL + "); the defaults are https://api.tabby.ai (ae) and https://api.tabby.sa (sa)"
	case res.Status == http.StatusTooManyRequests || res.Status >= 500:
		c.Status = StatusWarn
		c.Message = fmt.Sprintf("%s is reachable but answered %d%s", base, res.Status, detail)
		c.Fix = "retry later"
	default:
		c.Status = StatusWarn
		c.Message = fmt.Sprintf("%s answered %d%s", base, res.Status, detail)
		c.Fix = "run the same read with --debug: bnpl api GET /api/v2/payments -f limit=1 --debug"
	}
	return c
}

func orName(profile string) string {
	if profile == "" {
		return "NAME"
	}
	return profile
}

// checkRegion compares the merchant's currency with the region's. The
// currency is known for the sandbox's own merchants, and otherwise only
// once the account has a payment.
func checkRegion(t *config.Target, res *ProbeResult, reached bool) Check {
	c := Check{Name: "region"}
	currency, from := "", ""
	for _, m := range config.EmbeddedMerchants() {
		if t.Embedded && m.Code == t.MerchantCode {
			currency, from = m.Currency, "the sandbox merchant "+m.Code+" sells in"
		}
	}
	if currency == "" && reached && res != nil && res.Currency != "" {
		currency, from = res.Currency, "the newest payment is in"
	}
	if currency == "" {
		c.Status = StatusSkip
		c.Message = fmt.Sprintf("region %s; the merchant's currency is not known yet (no payment to read it from)", t.Region)
		return c
	}
	allowed := config.RegionCurrencies(t.Region)
	for _, a := range allowed {
		if a == currency {
			c.Status = StatusOK
			c.Message = fmt.Sprintf("region %s serves %s; %s %s", t.Region, strings.Join(allowed, " and "), from, currency)
			return c
		}
	}
	want := "ae"
	if currency == "SAR" {
		want = "sa"
	}
	c.Status = StatusFail
	c.Message = fmt.Sprintf("region %s serves %s, but %s %s", t.Region, strings.Join(allowed, " and "), from, currency)
	c.Fix = fmt.Sprintf("bnpl profiles set %s --region %s", orName(t.Profile), want)
	return c
}

func checkClock(t *config.Target, res *ProbeResult, now func() time.Time) Check {
	c := Check{Name: "clock", Status: StatusSkip}
	switch {
	case t.Embedded:
		c.Message = "the embedded sandbox runs on this machine's clock"
		return c
	case res == nil:
		c.Message = "no answer to read the service's time from"
		return c
	case res.Date == "":
		c.Message = "the answer carried no Date header"
		return c
	}
	server, err := http.ParseTime(res.Date)
	if err != nil {
		c.Message = fmt.Sprintf("unreadable Date header %q", res.Date)
		return c
	}
	skew := now().Sub(server)
	abs := skew
	if abs < 0 {
		abs = -abs
	}
	way := "ahead of"
	if skew < 0 {
		way = "behind"
	}
	// The Date header has whole seconds, so a second either way is noise.
	if abs <= time.Second {
		c.Status, c.Message = StatusOK, "the local clock agrees with the service's"
		return c
	}
	if abs <= MaxClockSkew {
		c.Status, c.Message = StatusOK, fmt.Sprintf("the local clock is %s %s the service's", abs.Round(time.Second), way)
		return c
	}
	c.Status = StatusWarn
	c.Message = fmt.Sprintf("the local clock is %s %s the service's (more than %s)", abs.Round(time.Second), way, MaxClockSkew)
	c.Fix = "turn on time synchronisation (NTP), e.g. timedatectl set-ntp true"
	return c
}

// Probe makes the authenticated read with a client of its own: no retries
// (doctor reports what one request does) and a short timeout.
func Probe(f *cmdutil.Factory) func(context.Context, *config.Target) (*ProbeResult, error) {
	return func(ctx context.Context, t *config.Target) (*ProbeResult, error) {
		timeout := min(f.Global.Timeout, 10*time.Second)
		opts := api.Options{
			BaseURL: t.BaseURL, SecretKey: t.SecretKey, MerchantCode: t.MerchantCode, Region: t.Region,
			Version: f.Version, Timeout: timeout, Retries: 0, Transport: f.Transport,
			SandboxKey: cmdutil.BuiltinSandboxKey(t.SecretKey),
		}
		if t.Embedded && opts.Transport == nil {
			sb, err := f.EmbeddedSandbox()
			if err != nil {
				return nil, err
			}
			opts.Transport = sb.Transport(t.Region)
		}
		if f.Global.Debug {
			opts.Debug = f.IO.ErrOut
		}
		client, err := api.New(opts)
		if err != nil {
			return nil, err
		}
		f.AnnounceLive(t)
		resp, err := client.Raw(ctx, api.RawRequest{Method: http.MethodGet, Path: "/api/v2/payments?limit=1"})
		if resp == nil {
			return nil, err
		}
		res := &ProbeResult{Status: resp.Status, Date: resp.Header.Get("Date")}
		if apiErr, ok := api.AsAPIError(err); ok {
			res.Message = apiErr.Message
			return res, nil
		}
		var page struct {
			Payments []struct {
				Currency string `json:"currency"`
			} `json:"payments"`
		}
		if json.Unmarshal(resp.Body, &page) == nil && len(page.Payments) > 0 {
			res.Currency = page.Payments[0].Currency
		}
		return res, nil
	}
}

var checkColumns = []output.Column{
	{Header: "CHECK", Path: "name"},
	{Header: "STATUS", Path: "status"},
	{Header: "MESSAGE", Path: "message"},
	{Header: "FIX", Path: "fix"},
}

// printChecks writes the checks: aligned lines for a person unless an output
// format was asked for, then the summary on stderr. Any failure exits 1.
func printChecks(f *cmdutil.Factory, checks []Check) error {
	g := f.Global
	if g.Output != "" || g.JQ != "" || g.Template != "" {
		printer, err := f.Printer()
		if err != nil {
			return err
		}
		recs := make([]json.RawMessage, 0, len(checks))
		for _, c := range checks {
			b, err := json.Marshal(c)
			if err != nil {
				return err
			}
			recs = append(recs, b)
		}
		if err := printer.List(checkColumns, recs); err != nil {
			return err
		}
	} else if err := writeLines(f.IO.Out, f.IO.Colors(), checks, terminalWidth(f.IO)); err != nil {
		return err
	}
	failed, warned := 0, 0
	for _, c := range checks {
		switch c.Status {
		case StatusFail:
			failed++
		case StatusWarn:
			warned++
		}
	}
	switch {
	case failed > 0 && f.IO.ScriptErrorsOn():
		// A script reads one object on stderr: the check that failed first
		// and its fix, as the records on stdout have them.
		return firstFailure(checks)
	case failed > 0:
		f.Noticef("doctor: %d failed, %d warning(s)", failed, warned)
		return &cmdutil.Silent{Code: cmdutil.ExitError}
	case warned > 0:
		f.Noticef("doctor: no failures, %d warning(s)", warned)
	default:
		f.Noticef("doctor: all checks passed")
	}
	return nil
}

// firstFailure is the error of the first check that failed, its fix the
// hint: "doctor: reachability failed: cannot reach …".
func firstFailure(checks []Check) error {
	for _, c := range checks {
		if c.Status == StatusFail {
			return &output.Error{Message: fmt.Sprintf("doctor: %s failed: %s", c.Name, c.Message), HintText: c.Fix, Code: cmdutil.ExitError}
		}
	}
	return &cmdutil.Silent{Code: cmdutil.ExitError}
}

// terminalWidth is the width lines are wrapped at: the terminal's, or 0
// (none) when stdout is not one.
func terminalWidth(ios *output.IOStreams) int {
	if !ios.IsStdoutTTY() {
		return 0
	}
	return ios.TerminalWidth()
}

// writeLines writes one line per check, "ok    name  message", a message
// too long for a terminal total cells wide (0: none) wrapped under itself.
func writeLines(w io.Writer, cs *output.ColorScheme, checks []Check, total int) error {
	width := 0
	for _, c := range checks {
		width = max(width, len(c.Name))
	}
	hang := 4 + 2 + width + 2
	var b strings.Builder
	for _, c := range checks {
		status := fmt.Sprintf("%-4s", c.Status)
		switch c.Status {
		case StatusOK:
			status = cs.Green(status)
		case StatusWarn:
			status = cs.Yellow(status)
		case StatusFail:
			status = cs.Red(status)
		case StatusSkip:
			status = cs.Gray(status)
		}
		wrap := func(line string) string {
			if total <= 0 {
				return line
			}
			return output.WrapLine(line, total, hang)
		}
		b.WriteString(wrap(fmt.Sprintf("%s  %-*s  %s", status, width, c.Name, c.Message)) + "\n")
		if c.Fix != "" && c.Status != StatusOK {
			b.WriteString(wrap(fmt.Sprintf("      %-*s  fix: %s", width, "", c.Fix)) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
