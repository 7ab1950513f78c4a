package sandbox

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// ServeOptions are the inputs of `bnpl sandbox serve`.
type ServeOptions struct {
	AEAddr     string
	SAAddr     string
	State      string
	Merchants  string
	AuthExpiry time.Duration
	Faults     string
	Seed       int64
	RateLimit  bool
	// AllowLocalWebhooks admits loopback webhook URLs; RetryScale scales
	// the 1-4 minute delays between webhook delivery attempts.
	AllowLocalWebhooks bool
	RetryScale         float64
	// ResolveHosts turns on DNS lookups of webhook hosts; without it the
	// sandbox is hermetic.
	ResolveHosts bool
	// NoRequestLog turns the request log off (bnpl sandbox logs).
	NoRequestLog bool
	// PublicURLs are REGION=URL pairs: where clients reach each region.
	PublicURLs []string
	// AllowHosts are names the /_sandbox/ Host guard accepts besides
	// addresses and localhost.
	AllowHosts []string
	// AllowRemoteControl opens the control endpoints and the dashboard to
	// clients that are not loopback.
	AllowRemoteControl bool
	// SeedFile is a fixture seeded before the sandbox serves.
	SeedFile string
	// ClockStart starts a fixed clock there (RFC 3339); see fixedClockStart.
	ClockStart string
	// allowedHosts and openControl are the surface's spellings of
	// AllowHosts and AllowRemoteControl (see addContainerFlags).
	allowedHosts []string
	openControl  bool
}

// serveEnv are the environment variables that fill serve's flags the
// command line leaves unset: what a container image sets.
var serveEnv = []struct{ flag, env string }{
	{"ae-addr", "BNPL_SANDBOX_AE_ADDR"},
	{"sa-addr", "BNPL_SANDBOX_SA_ADDR"},
	{"state", "BNPL_SANDBOX_STATE"},
	{"public-url", "BNPL_SANDBOX_PUBLIC_URL"},
	{"allowed-host", "BNPL_SANDBOX_ALLOW_HOST"},
	{"open-control", "BNPL_SANDBOX_ALLOW_REMOTE_CONTROL"},
}

func newServeCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &ServeOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the sandbox on loopback, one listener per region",
		Long: `Serve the sandbox: the service's checkout, payment, webhook and dispute endpoints
with their statuses, errors and state, one listener per regional base address. It
prints the base URLs and the built-in merchants with their keys, then serves until
interrupted. It is hermetic: webhook URLs are judged without DNS (names under
.invalid, .test, .localhost, .local and .internal are refused as not resolving,
other well-formed public names are accepted) unless --resolve-hosts is given.
The state is the embedded sandbox's file ($XDG_STATE_HOME/bnpl/sandbox.db), so
that the commands run without a profile and this server see the same payments,
and a checkout URL printed by the embedded default opens here. --state FILE serves
another file, --state :memory: keeps the state in memory until the server stops.
A file may be shared by several processes at once (SQLite in WAL mode).

The listeners are on loopback by default. An address that is not loopback is
warned about: the service's endpoints and the hosted payment page are then
reachable from other machines.

Served from a container (see docs/ci.md), the sandbox needs three more things,
each with its risk:

  --public-url REGION=URL  where clients reach a region, e.g.
      ae=http://bnpl-sandbox:8700. Every URL the sandbox hands out (a session's
      web_url, its QR code, the dashboard's links, what serve prints) uses it,
      and the /_sandbox/ Host guard accepts its host. Without it, a listener on
      a wildcard address (0.0.0.0) builds links from each request's Host. Risk:
      a wrong URL sends customers' browsers elsewhere; use a name you control.
  --allowed-host NAME      a host name (the service name other containers use)
      that /_sandbox/ paths answer besides addresses and localhost. Every other
      name is still refused, as a name rebound to this machine by DNS may be an
      attack from a web page. Risk: a page whose name resolves to NAME for a
      browser on this machine can read and drive the sandbox.
  --open-control           open the control endpoints (approve, reset, clock,
      disputes, deliveries, logs) and the dashboard to clients that are not
      loopback. Off by default: it is for a sandbox in a container, whose
      clients come through the container's network. Risk: anyone who reaches
      the port can approve, reject and reset; warned about on stderr.
--allow-host and --allow-remote-control, the earlier spellings of the last two,
still work.

The environment fills the flags not given: BNPL_SANDBOX_AE_ADDR,
BNPL_SANDBOX_SA_ADDR, BNPL_SANDBOX_STATE (a file, or :memory:),
BNPL_SANDBOX_PUBLIC_URL (REGION=URL pairs, comma-separated),
BNPL_SANDBOX_ALLOW_HOST (names, comma-separated) and
BNPL_SANDBOX_ALLOW_REMOTE_CONTROL (1, true or yes).

GET /_sandbox/health answers 200 once the sandbox serves and 503 before its
state is open; bnpl sandbox wait waits for it.

--seed-file FILE seeds a fixture (the format of bnpl sandbox seed) into the state
before the sandbox serves, so it is ready only once the fixture is in; a fixture
the sandbox refuses stops serve (exit 2) naming the file, line and field. --seed N
makes the draws of --faults and the ids the sandbox makes (sessions, payments,
captures, refunds, disputes, webhooks, deliveries) the same on every run with the
same requests, from an empty state.

--seed N also fixes the clock, so that times repeat too (created_at, captures,
refunds, expiries): the sandbox's time no longer follows the machine's, it
starts at 2100-01-01T00:00:00Z (--clock-start TIME picks another start, with
or without --seed) and moves 1s before each request that may change the state
(any method but GET, HEAD and OPTIONS) and by bnpl sandbox clock --advance.
Timers fire only when that clock passes them: a checkout left open expires
after bnpl sandbox clock --advance 31m. Commands that open the state file
themselves (the embedded default) keep the machine's clock: use --state
:memory: and reach the server (BNPL_BASE_URL, --sandbox-url).`,
		Example: `  bnpl sandbox serve
  bnpl sandbox serve --state :memory: --ae-addr 127.0.0.1:9700 --sa-addr 127.0.0.1:9701
  bnpl sandbox serve --state ./ci-sandbox.db
  bnpl sandbox serve --faults '500-after=0.1,drop-after=0.1,latency=5ms' --seed 7
  bnpl sandbox serve --rate-limit
  bnpl sandbox serve --allow-local-webhooks --webhook-retry-scale 0.01
  bnpl sandbox serve --state :memory: --seed-file testdata/fixtures/every-state.yaml --seed 7
  bnpl sandbox serve --state :memory: --seed 7 --clock-start 2030-06-01T09:00:00Z
  bnpl sandbox serve --ae-addr 0.0.0.0:8700 --sa-addr 0.0.0.0:8701 --open-control \
    --allowed-host bnpl-sandbox --public-url ae=http://bnpl-sandbox:8700 --public-url sa=http://bnpl-sandbox:8701`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := serveFlagsFromEnv(cmd, f.Getenv); err != nil {
				return err
			}
			opts.mergeSpellings()
			prepare, err := seedFilePrepare(cmd, f, opts)
			if err != nil {
				return err
			}
			so := sandbox.ServeOptions{AEAddr: opts.AEAddr, SAAddr: opts.SAAddr, Prepare: prepare}
			publicURLs, err := parsePublicURLs(opts.PublicURLs)
			if err != nil {
				return err
			}
			so.PublicURLs = publicURLs
			for _, h := range opts.AllowHosts {
				if err := checkHostName(h); err != nil {
					return err
				}
			}
			so.AllowHosts, so.AllowRemoteControl = opts.AllowHosts, opts.AllowRemoteControl
			switch opts.State {
			case ":memory:":
				so.StatePath = ""
			case "":
				so.StatePath = f.EmbeddedStatePath()
				if err := os.MkdirAll(filepath.Dir(so.StatePath), 0o700); err != nil {
					return fmt.Errorf("sandbox state: %w", err)
				}
			default:
				so.StatePath = opts.State
			}
			so.AuthExpiry = opts.AuthExpiry
			faults, err := sandbox.ParseFaultSpec(opts.Faults)
			if err != nil {
				return cmdutil.Usagef("--faults: %v", err)
			}
			so.Faults, so.Seed, so.RateLimit = faults, opts.Seed, opts.RateLimit
			if so.ClockStart, err = fixedClockStart(opts); err != nil {
				return err
			}
			if opts.RetryScale <= 0 {
				return cmdutil.Usagef("--webhook-retry-scale must be positive, got %g", opts.RetryScale)
			}
			so.AllowLocalWebhooks, so.WebhookRetryScale = opts.AllowLocalWebhooks, opts.RetryScale
			so.ResolveHosts = opts.ResolveHosts
			so.NoRequestLog = opts.NoRequestLog
			so.DeliveryLog = f.IO.ErrOut
			if opts.Merchants != "" {
				ms, err := sandbox.LoadMerchants(opts.Merchants)
				if err != nil {
					return cmdutil.Refuse("see docs/sandbox.md for the merchants file format", "--merchants: %v", err)
				}
				so.Merchants = withBuiltins(ms)
			}
			for _, a := range []struct{ region, addr, flag string }{{"ae", opts.AEAddr, "--ae-addr"}, {"sa", opts.SAAddr, "--sa-addr"}} {
				if !cmdutil.LoopbackAddr(a.addr) {
					fmt.Fprintf(f.IO.ErrOut, "warning: %s is not a loopback address: the %s listener's API and hosted payment pages are reachable from other machines (%s 127.0.0.1:PORT keeps them on this one)\n", a.addr, a.region, a.flag)
				}
			}
			if opts.AllowRemoteControl {
				fmt.Fprintf(f.IO.ErrOut, "warning: --open-control: any client that reaches the listeners can approve, reject, reset and read the request log through /_sandbox/ (without it they answer loopback clients only)\n")
			}
			err = sandbox.Serve(cmd.Context(), so, f.IO.Out)
			switch {
			case !errors.Is(err, syscall.EADDRINUSE):
				return err
			case strings.Contains(err.Error(), "sandbox sa listener"):
				return cmdutil.ListenError(err, opts.SAAddr, "--sa-addr")
			}
			return cmdutil.ListenError(err, opts.AEAddr, "--ae-addr")
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.AEAddr, "ae-addr", "127.0.0.1:8700", "listen address of the ae region (UAE and Kuwait)")
	fl.StringVar(&opts.SAAddr, "sa-addr", "127.0.0.1:8701", "listen address of the sa region (KSA)")
	fl.StringVar(&opts.State, "state", "", "SQLite file for the state, or :memory: (default: the embedded sandbox's file, $XDG_STATE_HOME/bnpl/sandbox.db)")
	fl.StringVar(&opts.Merchants, "merchants", "", "file of merchants to add to the built-in ones (one with a built-in's code or key replaces it)")
	fl.DurationVar(&opts.AuthExpiry, "auth-expiry", sandbox.DefaultAuthExpiry, "how long an authorization lasts before it expires")
	fl.StringVar(&opts.Faults, "faults", "", "inject failures on /api paths: kind=rate pairs of 500-before, 500-after, drop-after, lock, 429, plus latency=DURATION")
	fl.Int64Var(&opts.Seed, "seed", 0, "seed of the --faults draws and of the ids the sandbox makes, and a fixed clock, to repeat a run (default: random ids, the machine's clock)")
	fl.StringVar(&opts.ClockStart, "clock-start", "", "run a fixed clock from this RFC 3339 time: +1s per write request, moved on by bnpl sandbox clock --advance (default with --seed: 2100-01-01T00:00:00Z)")
	fl.BoolVar(&opts.RateLimit, "rate-limit", false, "enforce the test-key limits: 10 checkouts per 10s, 50 other requests per second")
	fl.BoolVar(&opts.AllowLocalWebhooks, "allow-local-webhooks", false, "accept webhook URLs on loopback (http://127.0.0.1:PORT/...), which the service refuses, and deliver to them")
	fl.BoolVar(&opts.ResolveHosts, "resolve-hosts", false, "look webhook hosts up in DNS, refusing names that do not resolve to a public address, and deliver to public names (default: no lookups; names under .invalid, .test, .localhost, .local and .internal stand for names that do not resolve)")
	fl.Float64Var(&opts.RetryScale, "webhook-retry-scale", 1, "multiply the 1, 2, 3 and 4 minute waits between webhook delivery attempts (0.01 makes them 0.6s to 2.4s)")
	fl.BoolVar(&opts.NoRequestLog, "no-request-log", false, "keep no log of the requests answered (bnpl sandbox logs)")
	fl.StringArrayVar(&opts.PublicURLs, "public-url", nil, "REGION=URL: where clients reach a region (ae=http://bnpl-sandbox:8700), used in every URL handed out; repeat per region (env BNPL_SANDBOX_PUBLIC_URL)")
	addContainerFlags(cmd, opts)
	fl.StringVar(&opts.SeedFile, "seed-file", "", "a fixture file (YAML or JSON) to seed before serving; the sandbox is ready only once it is in")
	return cmd
}

// serveFlagsFromEnv sets the flags of serveEnv that the command line did
// not from their variables: flag > env > default.
func serveFlagsFromEnv(cmd *cobra.Command, getenv func(string) string) error {
	for _, e := range serveEnv {
		fl := cmd.Flags().Lookup(e.flag)
		v := strings.TrimSpace(getenv(e.env))
		if fl == nil || fl.Changed || v == "" || spellingChanged(cmd, e.flag) {
			continue
		}
		values := []string{v}
		switch fl.Value.Type() {
		case "stringArray":
			values = strings.Split(v, ",")
		case "bool":
			values = []string{strconv.FormatBool(cmdutil.Truthy(v))}
		}
		for _, one := range values {
			if one = strings.TrimSpace(one); one == "" {
				continue
			}
			if err := cmd.Flags().Set(e.flag, one); err != nil {
				return cmdutil.Usagef("%s: %v", e.env, err)
			}
		}
	}
	return nil
}

// parsePublicURLs reads --public-url REGION=URL pairs: an absolute http or
// https URL with a host and no path, query or fragment, once per region.
func parsePublicURLs(pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range pairs {
		region, raw, ok := strings.Cut(p, "=")
		region = strings.ToLower(strings.TrimSpace(region))
		if !ok || (region != "ae" && region != "sa") {
			return nil, cmdutil.Usagef("--public-url %q: want REGION=URL with REGION ae or sa, e.g. ae=http://bnpl-sandbox:8700", p)
		}
		if _, dup := out[region]; dup {
			return nil, cmdutil.Usagef("--public-url: region %s given twice", region)
		}
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, cmdutil.Usagef("--public-url %s=%q: want an http or https URL with a host and no path, e.g. http://bnpl-sandbox:8700", region, raw)
		}
		out[region] = u.Scheme + "://" + u.Host
	}
	return out, nil
}

// checkHostName refuses an --allowed-host value that is not a plain host name
// or address (no scheme, port or path).
func checkHostName(h string) error {
	name := strings.TrimSuffix(strings.TrimSpace(h), ".")
	ok := name != "" && len(name) <= 253
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			ok = false
		}
	}
	if !ok {
		return cmdutil.Usagef("--allowed-host %q: want a host name such as bnpl-sandbox (no scheme, port or path)", h)
	}
	return nil
}

// withBuiltins adds the merchants of a --merchants file to the built-in
// ones, as a person expects of "more merchants": the examples and the
// README keep working. A file's merchant with a built-in's code or key
// takes its place.
func withBuiltins(ms []sandbox.Merchant) []sandbox.Merchant {
	taken := map[string]bool{}
	for _, m := range ms {
		for _, k := range []string{"code:" + m.Code, "key:" + m.TestKey, "key:" + m.LiveKey} {
			taken[k] = true
		}
	}
	var out []sandbox.Merchant
	for _, b := range sandbox.BuiltinMerchants() {
		if !taken["code:"+b.Code] && !taken["key:"+b.TestKey] && !taken["key:"+b.LiveKey] {
			out = append(out, b)
		}
	}
	return append(out, ms...)
}
