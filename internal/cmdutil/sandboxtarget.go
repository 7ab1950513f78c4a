package cmdutil

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/netguard"
	"github.com/bnpl-cli/bnpl/internal/secret"
)

// EnvSandboxURL names the running sandbox the `bnpl sandbox` verbs act on,
// as --sandbox-url does.
const EnvSandboxURL = "BNPL_SANDBOX_URL"

// SandboxProbeTimeout bounds the one request that tells whether a loopback
// address is a running bnpl sandbox.
const SandboxProbeTimeout = 700 * time.Millisecond

// SandboxTarget is the sandbox the `bnpl sandbox` verbs act on: a running
// sandbox reached over HTTP, or the embedded state called in-process.
type SandboxTarget struct {
	// URL is the running sandbox's base URL; "" for the embedded state.
	URL string
	// Region is the region the embedded state is called as ("ae" or "sa").
	Region string
	// Source says what chose it: "--sandbox-url", "BNPL_SANDBOX_URL",
	// "BNPL_BASE_URL", "profile NAME", or "" for the embedded state.
	Source string
	// Name is the sandbox for people, short: "the sandbox at
	// http://127.0.0.1:8700" or "the embedded sandbox".
	Name string
	// Description is Name with what chose it, such as
	// "the sandbox at http://127.0.0.1:8700 (BNPL_BASE_URL)" or
	// "the embedded sandbox (state in /home/u/.local/state/bnpl/sandbox.db)".
	Description string
	// Unreached is the loopback base URL the person meant (their profile's
	// or BNPL_BASE_URL) when nothing at all answered there and the embedded
	// state was taken instead; "" otherwise. `sandbox reset` refuses then
	// rather than wipe a state the person did not mean.
	Unreached string
	// Client sends to it: over HTTP with no key, or through the embedded
	// sandbox's in-process transport. Never retried: the verbs are not
	// idempotent.
	Client *api.Client
}

// Embedded reports whether the target is the embedded state.
func (t *SandboxTarget) Embedded() bool { return t.URL == "" }

// ResolveSandbox picks the sandbox the `bnpl sandbox` verbs act on, in
// order: --sandbox-url, BNPL_SANDBOX_URL, the embedded state with the
// global --sandbox, the resolved base URL (profile, BNPL_BASE_URL) when it
// is a loopback address where a bnpl sandbox answers GET /_sandbox/clock,
// else the embedded state. It resolves once per
// process and says on stderr, in one line, which sandbox it uses (not
// with --quiet). It is the one place that decides: every sandbox verb,
// deliveries and logs included, goes through it.
func (f *Factory) ResolveSandbox(ctx context.Context) (*SandboxTarget, error) {
	f.mu.Lock()
	if t := f.sandboxTarget; t != nil {
		f.mu.Unlock()
		return t, nil
	}
	f.mu.Unlock()

	t, err := f.pickSandbox(ctx)
	if err != nil {
		return nil, err
	}
	opts := api.Options{Version: f.Version, Timeout: f.Global.Timeout, Retries: 0, BaseURL: t.URL}
	if t.Embedded() {
		sb, err := f.EmbeddedSandbox()
		if err != nil {
			return nil, err
		}
		opts.BaseURL = "http://127.0.0.1"
		opts.Transport = sb.Transport(t.Region)
	}
	if f.Global.Debug {
		opts.Debug = f.IO.ErrOut
	}
	if t.Client, err = api.New(opts); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sandboxTarget == nil {
		f.sandboxTarget = t
		f.Noticef("using %s", t.Description)
	}
	return f.sandboxTarget, nil
}

func (f *Factory) pickSandbox(ctx context.Context) (*SandboxTarget, error) {
	if u := f.Global.SandboxURL; u != "" {
		return runningSandbox(u, "--sandbox-url")
	}
	if u := strings.TrimSpace(f.Getenv(EnvSandboxURL)); u != "" {
		return runningSandbox(u, EnvSandboxURL)
	}
	embedded := &SandboxTarget{Region: "ae"}
	base, source := "", ""
	t, err := f.Target()
	switch {
	case f.Global.Sandbox:
		// --sandbox: the embedded sandbox, whatever the profile says.
		if err == nil {
			embedded.Region = t.Region
		}
	case err == nil && !t.Embedded:
		base, source = t.BaseURL, baseURLSource(t)
		embedded.Region = t.Region
	case strings.TrimSpace(f.Getenv(config.EnvBaseURL)) != "":
		// The embedded default ignores BNPL_BASE_URL without a key, but a
		// person who set it means the sandbox there.
		base, source = strings.TrimSpace(f.Getenv(config.EnvBaseURL)), config.EnvBaseURL
		if err == nil {
			embedded.Region = t.Region
		}
	case err == nil:
		embedded.Region = t.Region
	default:
		return nil, fmt.Errorf("cannot tell which sandbox to use: %w", err)
	}
	if embedded.Region != "sa" {
		embedded.Region = "ae"
	}
	why := ""
	if base != "" {
		shown := secret.RedactURL(base)
		switch {
		case !LoopbackURL(base):
			why = fmt.Sprintf("; the base URL %s (%s) is not a local sandbox", shown, source)
		default:
			switch probe(ctx, base) {
			case probedSandbox:
				return &SandboxTarget{URL: strings.TrimRight(base, "/"), Source: source,
					Name:        "the sandbox at " + shown,
					Description: fmt.Sprintf("the sandbox at %s (%s)", shown, source)}, nil
			case probedNothing:
				embedded.Unreached = shown + " (" + source + ")"
				why = fmt.Sprintf("; nothing answers at %s (%s)", shown, source)
			default:
				why = fmt.Sprintf("; no sandbox answers at %s (%s)", shown, source)
			}
		}
	}
	embedded.Name = "the embedded sandbox"
	embedded.Description = fmt.Sprintf("the embedded sandbox (state in %s%s)", f.EmbeddedStatePath(), why)
	return embedded, nil
}

func runningSandbox(raw, source string) (*SandboxTarget, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, UsageHint("give the sandbox's base URL, such as http://127.0.0.1:8700", "%s %q is not an http(s) URL", source, raw)
	}
	return &SandboxTarget{URL: strings.TrimRight(raw, "/"), Source: source,
		Name:        "the sandbox at " + secret.RedactURL(raw),
		Description: fmt.Sprintf("the sandbox at %s (%s)", secret.RedactURL(raw), source)}, nil
}

func baseURLSource(t *config.Target) string {
	switch t.Sources["base_url"] {
	case config.SourceEnv:
		return config.EnvBaseURL
	case config.SourceProfile:
		if t.Profile != "" {
			return "profile " + t.Profile
		}
	}
	return "the base URL"
}

// EmbeddedStatePath is the embedded sandbox's state file, which `bnpl
// sandbox serve` serves too unless --state says otherwise.
func (f *Factory) EmbeddedStatePath() string {
	return filepath.Join(config.StateDir(f.Getenv), "sandbox.db")
}

// LoopbackURL reports whether raw is an http(s) URL whose host is a
// loopback address or "localhost", without looking any name up: a
// candidate, which a connection then reaches only through
// netguard.DialLoopback (localhost must resolve to this machine).
func LoopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return loopbackHost(u.Hostname())
}

func loopbackHost(host string) bool { return netguard.LoopbackCandidate(host) }

// ProbeSandbox reports whether a bnpl sandbox answers at base, a loopback
// URL: GET /_sandbox/clock within SandboxProbeTimeout gives its clock, or
// the sandbox's own error (a 5xx in the service's error form, as a sandbox
// whose state is damaged answers). A host that is not loopback is never
// asked, and of names only localhost, where it resolves to this machine.
func ProbeSandbox(ctx context.Context, base string) bool {
	return probe(ctx, base) == probedSandbox
}

// probeResult is what answered a probe.
type probeResult int

const (
	probedNothing probeResult = iota // no connection, no answer in time
	probedOther                      // something answered, not a bnpl sandbox (or not asked)
	probedSandbox                    // a bnpl sandbox, well or not
)

func probe(ctx context.Context, base string) probeResult {
	u, err := url.Parse(base)
	if err != nil || !LoopbackURL(base) {
		return probedOther
	}
	ctx, cancel := context.WithTimeout(ctx, SandboxProbeTimeout)
	defer cancel()
	probeURL := url.URL{Scheme: u.Scheme, Host: u.Host, Path: strings.TrimRight(u.Path, "/") + "/_sandbox/clock"}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, probeURL.String(), nil)
	if err != nil {
		return probedOther
	}
	dialer := &net.Dialer{}
	client := &http.Client{
		Transport: &http.Transport{
			Proxy: nil, // never through a proxy: the sandbox is on this machine
			// localhost is asked only where it resolves to this machine.
			DialContext:       netguard.DialLoopback(dialer),
			DisableKeepAlives: true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		return probedNothing
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return probedOther
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		var clock struct {
			Now string `json:"now"`
		}
		if json.Unmarshal(body, &clock) == nil && clock.Now != "" {
			return probedSandbox
		}
	case resp.StatusCode >= 500:
		// The sandbox answers its errors in the service's form; a sandbox
		// that cannot read its clock is still the sandbox meant, and its
		// verbs must report its error rather than act elsewhere.
		var e struct {
			Status    string `json:"status"`
			ErrorType string `json:"errorType"`
			Error     string `json:"error"`
		}
		if json.Unmarshal(body, &e) == nil && e.Status == "error" && e.ErrorType != "" && e.Error != "" {
			return probedSandbox
		}
	}
	return probedOther
}

// UnreachedError refuses to act on the embedded sandbox in place of the
// sandbox the person's base URL names, where nothing answers.
type UnreachedError struct {
	// Where is the address with what set it: "http://127.0.0.1:8700
	// (BNPL_BASE_URL)".
	Where string
	// What the command would have done: "reset".
	What string
}

func (e *UnreachedError) Error() string {
	return fmt.Sprintf("nothing answers at %s: refusing to %s the embedded sandbox in its place", e.Where, e.What)
}
func (e *UnreachedError) ExitCode() int { return ExitNetwork }
func (e *UnreachedError) Hint() string {
	return "start the sandbox there (bnpl sandbox serve), name one with --sandbox-url, or add --sandbox to mean the embedded sandbox"
}

// LoopbackAddr reports whether a listen address HOST:PORT stays on this
// machine: a loopback IP, or localhost where it resolves to this machine.
// An empty host, 0.0.0.0 and :: listen on every interface; another name
// is not looked up and counts as not loopback.
func LoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && loopbackHost(host) && netguard.LoopbackHost(context.Background(), host)
}

// ListenError is a failed listen on addr, the address flag gave: when the
// port is taken, it says which flag picks another address.
func ListenError(err error, addr, flag string) error {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	return &addrInUseError{err: err, addr: addr, flag: flag}
}

type addrInUseError struct {
	err        error
	addr, flag string
}

func (e *addrInUseError) Error() string {
	return fmt.Sprintf("cannot listen on %s: the address is in use", e.addr)
}
func (e *addrInUseError) Unwrap() error { return e.err }
func (e *addrInUseError) Hint() string {
	return fmt.Sprintf("another program (perhaps another bnpl) listens there: pick another address with %s, such as %s 127.0.0.1:0 for any free port", e.flag, e.flag)
}
