package cmdutil

import (
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
	DryRun     bool
	Debug      bool
	Timeout    time.Duration
	Retries    int
	Yes        bool
	Quiet      bool
	NoColor    bool
	SandboxURL string
}

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

	mu      sync.Mutex
	cfg     *config.Config
	target  *config.Target
	client  *api.Client
	printer *output.Printer
	sb      *sandbox.Sandbox
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
	cfg, err := config.Load(config.DefaultPath(f.Getenv))
	if err != nil {
		return nil, err
	}
	if w := cfg.PermissionWarning(); w != "" {
		f.Noticef("warning: %s", w)
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
	if f.client != nil {
		return f.client, nil
	}
	t, err := f.targetLocked()
	if err != nil {
		return nil, err
	}
	transport := f.Transport
	if t.Embedded && transport == nil {
		sb, err := f.embeddedLocked()
		if err != nil {
			return nil, err
		}
		transport = sb.Transport(t.Region)
		f.Noticef("using the embedded sandbox as %s (%s mode); state in %s", t.MerchantCode, modeName(t.Live), f.embeddedStatePath())
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
	}
	if f.Global.Debug {
		opts.Debug = f.IO.ErrOut
	}
	if f.Global.DryRun {
		opts.DryRun = f.IO.Out
	}
	c, err := api.New(opts)
	if err != nil {
		return nil, err
	}
	f.client = c
	return c, nil
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
	})
	if err != nil {
		return nil, err
	}
	f.printer = p
	return p, nil
}

// EmbeddedSandbox opens the sandbox whose state lives in the state
// directory, the one the embedded default talks to.
func (f *Factory) EmbeddedSandbox() (*sandbox.Sandbox, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.embeddedLocked()
}

func (f *Factory) embeddedStatePath() string {
	return filepath.Join(config.StateDir(f.Getenv), "sandbox.db")
}

func (f *Factory) embeddedLocked() (*sandbox.Sandbox, error) {
	if f.sb != nil {
		return f.sb, nil
	}
	path := f.embeddedStatePath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("embedded sandbox: %w", err)
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
		f.sb.Close()
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

// SandboxURL is the running sandbox the `bnpl sandbox` verbs talk to, or ""
// for the embedded state.
func (f *Factory) SandboxURL() string {
	if f.Global.SandboxURL != "" {
		return f.Global.SandboxURL
	}
	return f.Getenv("BNPL_SANDBOX_URL")
}
