package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
	"github.com/bnpl-cli/bnpl/internal/secret"
	"github.com/bnpl-cli/bnpl/internal/userfile"
)

// GlobalOptions are the values of the root's persistent flags, after the
// environment has filled the ones a flag did not set.
type GlobalOptions struct {
	Profile    string
	Live       bool
	Sandbox    bool
	Output     string
	JQ         string
	Template   string
	Columns    []string
	NoHeader   bool
	CSVRaw     bool
	DryRun     bool
	Debug      bool
	Timeout    time.Duration
	Retries    int
	Yes        bool
	Quiet      bool
	NoColor    bool
	Time       string
	SandboxURL string
}

// WrapTransport, when set, is handed each API client's transport (nil for
// the default one) with the target it reaches, and its answer carries the
// client's requests in its place. The end-to-end tests set it in the bnpl
// they run, to record every exchange of a script as sandbox record would.
var WrapTransport func(rt http.RoundTripper, t *config.Target) http.RoundTripper

// Factory builds what commands depend on, lazily and once: a command that
// never talks to the service never loads the config or opens the sandbox.
type Factory struct {
	IO      *output.IOStreams
	Global  *GlobalOptions
	Getenv  func(string) string
	Version string
	Commit  string
	Date    string

	// Transport, when set, carries every API request (tests).
	Transport http.RoundTripper

	// Interrupt is the run's context: Ctrl-C ends it (Execute's
	// signal.NotifyContext). Every prompt watches it, so an interrupt caught
	// by that handler before the prompt watched for its own is not lost.
	Interrupt context.Context

	mu     sync.Mutex
	cfg    *config.Config
	target *config.Target
	client *api.Client
	// The live-only target and client (disputes), when the command's own
	// target is not live.
	liveTarget *config.Target
	liveClient *api.Client
	printer    *output.Printer
	sb         *sandbox.Sandbox
	// liveOnly names what has no test mode (disputes...) when LiveTarget
	// chose the embedded sandbox's live mode by itself.
	liveOnly string
	// sandboxTarget is what ResolveSandbox picked (sandboxtarget.go).
	sandboxTarget *SandboxTarget
	// liveShown is set once the LIVE line has been written.
	liveShown bool
}

// New returns a factory over the process's streams and environment.
func New(version, commit, date string) *Factory {
	return &Factory{
		IO:      output.System(),
		Global:  &GlobalOptions{Timeout: 30 * time.Second, Retries: 3},
		Getenv:  os.Getenv,
		Version: version,
		Commit:  commit,
		Date:    date,
	}
}

// Config loads the config file once.
func (f *Factory) Config() (*config.Config, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.configLocked()
}

func (f *Factory) configLocked() (*config.Config, error) {
	if f.cfg != nil {
		return f.cfg, nil
	}
	path := config.DefaultPath(f.Getenv)
	if path != "" {
		// Others who can write the directory could replace the file and
		// its keys: refused, as the state directory is.
		if err := userfile.CheckPrivateDir("config directory", filepath.Dir(path)); err != nil {
			return nil, err
		}
	}
	cfg, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	if w := cfg.PermissionWarning(); w != "" {
		// A security warning is not a notice: --quiet does not hide it.
		output.PrintWarning(f.IO, w, "")
	}
	f.cfg = cfg
	return cfg, nil
}

// Target resolves the profile, key and base address the command talks to.
func (f *Factory) Target() (*config.Target, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.targetLocked()
}

func (f *Factory) targetLocked() (*config.Target, error) {
	if f.target != nil {
		return f.target, nil
	}
	cfg, err := f.configLocked()
	if err != nil && f.Global.Sandbox && f.Global.Profile == "" {
		// --sandbox needs nothing of the config: a broken file does
		// not stop the embedded sandbox (doctor says as much).
		f.Noticef("warning: %v; --sandbox goes on without it", err)
		cfg, err = config.Empty(config.DefaultPath(f.Getenv)), nil
	}
	if err != nil {
		return nil, err
	}
	t, err := config.Resolve(cfg, config.Overrides{
		Profile: f.Global.Profile,
		Live:    f.Global.Live,
		Sandbox: f.Global.Sandbox,
	}, f.Getenv)
	if err != nil {
		return nil, err
	}
	f.target = t
	return t, nil
}

// Client returns the API client for the resolved target. For the embedded
// sandbox its transport calls the sandbox handler in-process.
func (f *Factory) Client() (*api.Client, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.clientLocked()
}

func (f *Factory) clientLocked() (*api.Client, error) {
	if f.client != nil {
		return f.client, nil
	}
	t, err := f.targetLocked()
	if err != nil {
		return nil, err
	}
	c, err := f.newClientLocked(t)
	if err != nil {
		return nil, err
	}
	f.client = c
	return c, nil
}

// newClientLocked builds an API client for t.
func (f *Factory) newClientLocked(t *config.Target) (*api.Client, error) {
	transport := f.Transport
	if t.Embedded && transport == nil {
		sb, err := f.embeddedLocked()
		if err != nil {
			return nil, err
		}
		transport = sb.Transport(t.Region)
		// One line: the state's file is for bnpl doctor to tell.
		mode := modeName(t.Live) + " mode"
		if f.liveOnly != "" && t.Live {
			mode += ": " + f.liveOnly + " have no test mode"
		}
		if !f.liveLineDue(t) {
			f.Noticef("using the embedded sandbox as %s (%s)", t.MerchantCode, mode)
		}
	}
	if t.SandboxKeys && !f.liveLineDue(t) {
		f.Noticef("using the sandbox at %s (%s) as %s (%s mode), with its built-in key", secret.RedactURL(t.BaseURL), config.EnvBaseURL, t.MerchantCode, modeName(t.Live))
	}
	f.announceLiveLocked(t)
	if WrapTransport != nil {
		transport = WrapTransport(transport, t)
	}
	opts := api.Options{
		BaseURL:      t.BaseURL,
		SecretKey:    t.SecretKey,
		MerchantCode: t.MerchantCode,
		Region:       t.Region,
		Version:      f.Version,
		Timeout:      f.Global.Timeout,
		Retries:      f.Global.Retries,
		Transport:    transport,
		SandboxKey:   BuiltinSandboxKey(t.SecretKey),
	}
	if f.Global.Debug {
		opts.Debug = f.IO.ErrOut
	}
	if f.Global.DryRun {
		opts.DryRun = f.IO.Out
	}
	return api.New(opts)
}

// LiveTarget is the target of a live-only command (what: "disputes",
// "dispute webhooks"): the chosen profile with its live key, whether or
// not --live was given, since such commands have no test mode. When the
// live key is taken without --live, a one-line notice says so. It refuses
// locally, saying how to add one, when there is no live key to use.
func (f *Factory) LiveTarget(what string) (*config.Target, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.liveTargetLocked(what)
}

func (f *Factory) liveTargetLocked(what string) (*config.Target, error) {
	if f.liveTarget != nil {
		return f.liveTarget, nil
	}
	if t, err := f.targetLocked(); err == nil && t.Live {
		f.liveTarget = t
		return t, nil
	}
	cfg, err := f.configLocked()
	if err != nil {
		return nil, err
	}
	t, err := config.Resolve(cfg, config.Overrides{
		Profile: f.Global.Profile,
		Live:    true,
		Sandbox: f.Global.Sandbox,
	}, f.Getenv)
	var missing *config.MissingKeyError
	switch {
	case errors.As(err, &missing):
		return nil, Refuse(fmt.Sprintf("add the profile's live key (sk_...) with `bnpl login --profile %s --with-key`, which reads it from stdin", missing.Profile),
			"%s have no test mode, and profile %s has no live key", what, missing.Profile)
	case err != nil && f.Getenv(config.EnvSecretKey) != "":
		return nil, Refuse("set "+config.EnvSecretKey+" to a live key (sk_...), or unset it to use the profile's live key",
			"%s have no test mode, and %s holds a test key", what, config.EnvSecretKey)
	case err != nil:
		return nil, err
	}
	switch {
	case t.Embedded:
		// Said with the embedded sandbox's own line, when the client is made.
		f.liveOnly = what
	case t.SandboxKeys:
		f.Noticef("using the sandbox's live mode: %s have no test mode", what)
	case t.Profile != "":
		f.Noticef("using the live key of profile %s: %s have no test mode", t.Profile, what)
	}
	f.liveTarget = t
	return t, nil
}

// LiveClient is the API client of LiveTarget: the command's own client
// when that is live already, else one with the live key.
func (f *Factory) LiveClient(what string) (*api.Client, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, err := f.liveTargetLocked(what)
	if err != nil {
		return nil, err
	}
	if f.target == t {
		return f.clientLocked()
	}
	if f.liveClient == nil {
		if f.liveClient, err = f.newClientLocked(t); err != nil {
			return nil, err
		}
	}
	return f.liveClient, nil
}

// BuiltinSandboxKey reports whether key is one of the sandbox's built-in
// merchants' keys, which are public (the sandbox prints them) and may go
// over plain http to a host that answers as a bnpl sandbox (api.Options).
func BuiltinSandboxKey(key string) bool {
	for _, m := range config.EmbeddedMerchants() {
		if key != "" && (key == m.TestKey || key == m.LiveKey) {
			return true
		}
	}
	return false
}

func modeName(live bool) string {
	if live {
		return "live"
	}
	return "test"
}

// Printer returns the printer the output flags ask for.
func (f *Factory) Printer() (*output.Printer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.printer != nil {
		return f.printer, nil
	}
	p, err := output.NewPrinter(f.IO, output.Options{
		Format:   f.Global.Output,
		JQ:       f.Global.JQ,
		Template: f.Global.Template,
		Columns:  f.Global.Columns,
		NoHeader: f.Global.NoHeader,
		CSVRaw:   f.Global.CSVRaw,
	})
	if err != nil {
		return nil, err
	}
	f.printer = p
	return p, nil
}

// PagedPrinter is Printer for a command whose output may be long (a list, a
// payment with its timeline, a log): on a terminal its stdout goes through
// the pager (BNPL_PAGER, PAGER, else less -FRX), never when piped. The
// pager ends when the command does (cmd.Run stops it).
func (f *Factory) PagedPrinter() (*output.Printer, error) {
	if err := f.IO.StartPager(); err != nil {
		f.Noticef("warning: %v; printing without it", err)
	}
	return f.Printer()
}

// EmbeddedSandbox opens the sandbox whose state lives in the state
// directory, the one the embedded default talks to.
func (f *Factory) EmbeddedSandbox() (*sandbox.Sandbox, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.embeddedLocked()
}

func (f *Factory) embeddedLocked() (*sandbox.Sandbox, error) {
	if f.sb != nil {
		return f.sb, nil
	}
	path := f.EmbeddedStatePath()
	if err := userfile.PrivateDir("state directory", config.StateDir(f.Getenv)); err != nil {
		return nil, err
	}
	if err := userfile.PrivateSQLite(path); err != nil {
		return nil, err
	}
	sb, err := sandbox.New(sandbox.Options{
		StatePath: path,
		PublicURLs: map[string]string{
			"ae": "http://127.0.0.1:8700",
			"sa": "http://127.0.0.1:8701",
		},
	})
	if err != nil {
		return nil, fmt.Errorf("embedded sandbox: %w", err)
	}
	f.sb = sb
	return sb, nil
}

// Close releases what the factory opened.
func (f *Factory) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sb != nil {
		// What the command changed is delivered before it exits (at most
		// two seconds), unless a server holds the state and delivers it.
		// Deliveries left pending are told once per cause and change,
		// counted as told only when a person sees the notice.
		shutdown := f.sb.Shutdown
		if !f.Global.Quiet && !f.IO.ScriptErrorsOn() {
			shutdown = f.sb.ShutdownTelling
		}
		rep, _ := shutdown()
		if notice := rep.Notice(f.EmbeddedStatePath()); notice != "" {
			f.Noticef("%s", notice)
		}
		f.sb = nil
	}
}

// Noticef writes a notice line on stderr unless --quiet.
func (f *Factory) Noticef(format string, args ...any) {
	if f.Global.Quiet {
		return
	}
	fmt.Fprintf(f.IO.ErrOut, format+"\n", args...)
}

// SandboxURL is the sandbox named by --sandbox-url or BNPL_SANDBOX_URL, or
// "" when neither names one. The sandbox the verbs act on is decided by
// ResolveSandbox, which also follows the base URL.
func (f *Factory) SandboxURL() string {
	if f.Global.SandboxURL != "" {
		return f.Global.SandboxURL
	}
	return f.Getenv("BNPL_SANDBOX_URL")
}
