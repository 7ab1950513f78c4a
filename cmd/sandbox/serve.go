package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
reachable from other machines.`,
		Example: `  bnpl sandbox serve
  bnpl sandbox serve --state :memory: --ae-addr 127.0.0.1:9700 --sa-addr 127.0.0.1:9701
  bnpl sandbox serve --state ./ci-sandbox.db
  bnpl sandbox serve --faults '500-after=0.1,drop-after=0.1,latency=5ms' --seed 7
  bnpl sandbox serve --rate-limit
  bnpl sandbox serve --allow-local-webhooks --webhook-retry-scale 0.01`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			so := sandbox.ServeOptions{AEAddr: opts.AEAddr, SAAddr: opts.SAAddr}
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
	fl.Int64Var(&opts.Seed, "seed", 0, "seed of the --faults draws, to repeat a run (default: random, printed at start)")
	fl.BoolVar(&opts.RateLimit, "rate-limit", false, "enforce the test-key limits: 10 checkouts per 10s, 50 other requests per second")
	fl.BoolVar(&opts.AllowLocalWebhooks, "allow-local-webhooks", false, "accept webhook URLs on loopback (http://127.0.0.1:PORT/...), which the service refuses, and deliver to them")
	fl.BoolVar(&opts.ResolveHosts, "resolve-hosts", false, "look webhook hosts up in DNS, refusing names that do not resolve to a public address, and deliver to public names (default: no lookups; names under .invalid, .test, .localhost, .local and .internal stand for names that do not resolve)")
	fl.Float64Var(&opts.RetryScale, "webhook-retry-scale", 1, "multiply the 1, 2, 3 and 4 minute waits between webhook delivery attempts (0.01 makes them 0.6s to 2.4s)")
	fl.BoolVar(&opts.NoRequestLog, "no-request-log", false, "keep no log of the requests answered (bnpl sandbox logs)")
	return cmd
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
