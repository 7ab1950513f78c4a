package sandbox

import (
	"errors"
	"io"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
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
	// AllowHosts are names the Host guard (every path) accepts besides
	// addresses and localhost.
	AllowHosts []string
	// AllowRemoteControl opens the control endpoints and the dashboard to
	// clients that are not loopback.
	AllowRemoteControl bool
	// SeedFile is a fixture seeded before the sandbox serves, into an
	// empty state only.
	SeedFile string
	// ClockStart starts a fixed clock there (RFC 3339); see fixedClockStart.
	ClockStart string
	// Instance names this run in /_sandbox/health; ReadyFile is where the
	// run says it is ready, or why it failed (serve_ready.go).
	Instance  string
	ReadyFile string
	// allowedHosts and openControl are the surface's spellings of
	// AllowHosts and AllowRemoteControl (see addContainerFlags).
	allowedHosts []string
	openControl  bool
	// fromEnv maps a flag the environment filled to its variable, so that
	// a warning names the setting as it was given; controlSetting is how
	// the control endpoints were opened (see mergeSpellings).
	fromEnv        map[string]string
	controlSetting string
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
	{"instance", "BNPL_SANDBOX_INSTANCE"},
}

func newServeCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &ServeOptions{}
	cmd := &cobra.Command{
		Use:     "serve",
		Short:   "Serve the sandbox on loopback, one listener per region",
		Long:    serveLong,
		Example: serveExample,
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return serveRun(cmd, f, opts)
		},
	}
	addServeFlags(cmd, opts)
	addContainerFlags(cmd, opts)
	return cmd
}

func addServeFlags(cmd *cobra.Command, opts *ServeOptions) {
	fl := cmd.Flags()
	fl.StringVar(&opts.AEAddr, "ae-addr", "127.0.0.1:8700", "listen address of the ae region (UAE and Kuwait); port 0 picks a free one")
	fl.StringVar(&opts.SAAddr, "sa-addr", "127.0.0.1:8701", "listen address of the sa region (KSA); port 0 picks a free one")
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
	fl.StringVar(&opts.SeedFile, "seed-file", "", "a fixture file (YAML or JSON) to seed into an empty state before serving; the sandbox is ready only once it is in")
	fl.StringVar(&opts.Instance, "instance", "", "the id of this run, answered by /_sandbox/health for bnpl sandbox wait --instance (env BNPL_SANDBOX_INSTANCE; default: a random one)")
	fl.StringVar(&opts.ReadyFile, "ready-file", "", "write a JSON file with the instance, pid and URLs once serving (or serve's error if it fails first); removed when serve stops")
}

// serveRun serves until interrupted: the settings are read and checked,
// the exposure warned about, and the ready file kept (written once the
// sandbox accepts requests, or with serve's error).
func serveRun(cmd *cobra.Command, f *cmdutil.Factory, opts *ServeOptions) (err error) {
	ready, err := startReadyFile(opts.ReadyFile)
	defer func() { err = ready.finish(err) }()
	if err != nil {
		return err
	}
	if err := serveFlagsFromEnv(cmd, f.Getenv, opts); err != nil {
		return err
	}
	opts.mergeSpellings()
	so, err := opts.sandboxOptions(cmd, f)
	if err != nil {
		return err
	}
	ready.describe(so)
	so.Ready = ready.write
	opts.warnExposure(f.IO.ErrOut)
	// A container's stop and a CI step's kill send SIGTERM: serve stops
	// as on Ctrl-C, the state closed and the ready file removed.
	ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM)
	defer stop()
	defer sandbox.ServingGC(f.Getenv)()
	defer sandbox.ServingProcs(f.Getenv)()
	err = sandbox.Serve(ctx, so, bannerOut(f.IO))
	switch {
	case !errors.Is(err, syscall.EADDRINUSE):
		return err
	case strings.Contains(err.Error(), "sandbox sa listener"):
		return cmdutil.ListenError(err, opts.SAAddr, opts.setting("sa-addr"))
	}
	return cmdutil.ListenError(err, opts.AEAddr, opts.setting("ae-addr"))
}

// serveFlagsFromEnv sets the flags of serveEnv that the command line did
// not from their variables: flag > env > default.
func serveFlagsFromEnv(cmd *cobra.Command, getenv func(string) string, opts *ServeOptions) error {
	opts.fromEnv = map[string]string{}
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
		opts.fromEnv[e.flag] = e.env
	}
	return nil
}

// setting names a flag's setting the way it was given: the variable that
// filled it, else the flag.
func (o *ServeOptions) setting(flag string) string {
	if env, ok := o.fromEnv[flag]; ok {
		return env
	}
	return "--" + flag
}

// bannerOut is where serve prints its banner: stdout, and on a terminal
// each line too wide for it wrapped between words, going on under the
// values (the dashboard's two URLs, the webhook rules).
func bannerOut(ios *output.IOStreams) io.Writer {
	if !ios.IsStdoutTTY() {
		return ios.Out
	}
	return output.WrapWriter(ios.Out, ios.TerminalWidth, sandbox.BannerValueColumn)
}
