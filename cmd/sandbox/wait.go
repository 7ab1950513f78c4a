package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
	"github.com/bnpl-cli/bnpl/internal/secret"
	"github.com/bnpl-cli/bnpl/internal/wire"
)

// waitPoll is the pause between two health checks of `sandbox wait`, and
// waitAttempt bounds one check.
const (
	waitPoll    = 100 * time.Millisecond
	waitAttempt = 2 * time.Second
	// maxHealthBody bounds the answer read from /_sandbox/health.
	maxHealthBody = 64 << 10
)

// defaultSandboxURL is the address `sandbox serve` listens on by default.
const defaultSandboxURL = "http://127.0.0.1:8700"

// waitOptions are the inputs of `bnpl sandbox wait`.
type waitOptions struct {
	timeout time.Duration
	// instance and state, when set, must be what the sandbox answers:
	// another sandbox on the port fails the wait.
	instance, state string
	// readyFile is serve's --ready-file: its instance and address, or
	// serve's error.
	readyFile string
}

func newWaitCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &waitOptions{}
	cmd := &cobra.Command{
		Use:   "wait",
		Short: "Wait until a running sandbox is healthy (for CI jobs and container health checks)",
		Long: `Wait until the sandbox answers GET /_sandbox/health with 200: its listeners are up
and its state is open. It asks every 100ms and exits 0 as soon as the sandbox is
healthy, or 10 when --timeout passes first. A sandbox that refuses the request
(403: a host name it was not told to answer, see bnpl sandbox serve
--allowed-host) or something that is not a sandbox ends the wait at once.

The sandbox is the one named by --sandbox-url, else BNPL_SANDBOX_URL, else
BNPL_BASE_URL, else http://127.0.0.1:8700. No proxy is used: the sandbox is on
this machine or in a container next to it. With -o json the health answer is
printed on stdout: {"service", "status", "instance", "version", "state",
"uptime", "uptime_seconds"}.

A port taken by another sandbox would answer healthy in place of the one a job
started. To tell them apart: --instance ID fails the wait (exit 1) when the
sandbox answering is another run than serve --instance ID; --state memory (or
file) when it keeps its state otherwise. --ready-file FILE waits for the file
serve --ready-file writes, takes the instance and address from it (unless
--sandbox-url names one), and fails at once with serve's own error and exit code
when serve could not start (a port in use); -o json then prints the file with the
health answer under "health", so --jq .urls.ae is the address to use.`,
		Example: `  bnpl sandbox serve --state :memory: & bnpl sandbox wait
  bnpl sandbox wait --sandbox-url http://bnpl-sandbox:8700 --timeout 60s
  bnpl sandbox serve --state :memory: --ae-addr 127.0.0.1:0 \
    --sa-addr 127.0.0.1:0 --ready-file sb.json &
  BNPL_BASE_URL=$(bnpl sandbox wait --ready-file sb.json --jq .urls.ae)
  bnpl sandbox wait --instance "$CI_JOB_ID" --state memory
  bnpl sandbox wait -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return waitRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.DurationVar(&opts.timeout, "timeout", 30*time.Second, "how long to wait before giving up with exit code 10")
	fl.StringVar(&opts.instance, "instance", "", "fail unless the sandbox answering is this run (bnpl sandbox serve --instance)")
	fl.StringVar(&opts.state, "state", "", "fail unless the sandbox keeps its state this way: memory or file")
	fl.StringVar(&opts.readyFile, "ready-file", "", "wait for serve's --ready-file and check the sandbox it names (or fail with serve's error)")
	return cmd
}

func waitRun(ctx context.Context, f *cmdutil.Factory, o *waitOptions) error {
	if o.timeout <= 0 {
		return cmdutil.Usagef("--timeout must be positive, got %s", o.timeout)
	}
	if o.state != "" && o.state != "memory" && o.state != "file" {
		return cmdutil.Usagef("--state %q: want memory or file", o.state)
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	var ready *ReadyFile
	if o.readyFile != "" {
		var err error
		if ready, err = waitReadyFile(ctx, o.readyFile, o.timeout); err != nil {
			return err
		}
	}
	h, raw, base, err := o.waitSandbox(ctx, f, &ready)
	if err != nil {
		return err
	}
	f.Noticef("the sandbox at %s is healthy: bnpl %s, state %s, up %s", secret.RedactURL(base), h.Version, stateWord(h.State), h.Uptime)
	if f.Global.Output == "json" || f.Global.Output == "jsonl" || f.Global.JQ != "" || f.Global.Template != "" {
		printer, err := f.Printer()
		if err != nil {
			return err
		}
		if ready != nil {
			raw, err = readyWithHealth(ready, raw)
			if err != nil {
				return err
			}
		}
		return printer.Object(raw, nil)
	}
	return nil
}

// waitSandbox waits for the sandbox meant to be healthy. With a ready
// file, another instance answering may mean the file is an earlier run's,
// not yet replaced by the serve just started: the file is read again
// until it names the sandbox that answers, or the time is up.
func (o *waitOptions) waitSandbox(ctx context.Context, f *cmdutil.Factory, ready **ReadyFile) (*sandbox.Health, json.RawMessage, string, error) {
	for {
		base, err := o.sandboxBase(f, *ready)
		if err != nil {
			return nil, nil, "", err
		}
		h, raw, err := waitHealthy(ctx, base, o.timeout, o.want(*ready))
		var other *otherSandbox
		if *ready == nil || o.instance != "" || !errors.As(err, &other) {
			return h, raw, base, err
		}
		select {
		case <-ctx.Done():
			return nil, nil, "", err
		case <-time.After(waitPoll):
		}
		if *ready, err = waitReadyFile(ctx, o.readyFile, o.timeout); err != nil {
			return nil, nil, "", err
		}
	}
}

// sandboxBase is the sandbox to ask: --sandbox-url, the ready file's,
// BNPL_SANDBOX_URL, BNPL_BASE_URL, or the default address.
func (o *waitOptions) sandboxBase(f *cmdutil.Factory, ready *ReadyFile) (string, error) {
	base, source := f.Global.SandboxURL, "--sandbox-url"
	if base == "" && ready != nil {
		base, source = ready.LocalURLs["ae"], "--ready-file "+o.readyFile
	}
	if base == "" {
		base, source = f.SandboxURL(), cmdutil.EnvSandboxURL
	}
	if base == "" {
		if base = strings.TrimSpace(f.Getenv(config.EnvBaseURL)); base != "" {
			source = config.EnvBaseURL
		}
	}
	if base == "" {
		base, source = defaultSandboxURL, "the default"
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", cmdutil.UsageHint("give the sandbox's base URL, such as http://127.0.0.1:8700", "%s %q is not an http(s) URL", source, base)
	}
	return strings.TrimRight(base, "/"), nil
}

// want is the sandbox the wait must find: --instance (else the ready
// file's) and --state.
func (o *waitOptions) want(ready *ReadyFile) wantSandbox {
	w := wantSandbox{instance: o.instance, state: o.state}
	if w.instance == "" && ready != nil {
		w.instance = ready.Instance
	}
	return w
}

func stateWord(s string) string {
	if s == "memory" {
		return "in memory"
	}
	return "in a file"
}

// waitTimeout is a wait that ran out: exit 10.
type waitTimeout struct {
	base    string
	timeout time.Duration
	last    string
}

func (e *waitTimeout) Error() string {
	return fmt.Sprintf("the sandbox at %s is not healthy after %s: %s", secret.RedactURL(e.base), e.timeout, e.last)
}
func (e *waitTimeout) ExitCode() int { return cmdutil.ExitNetwork }
func (e *waitTimeout) Hint() string {
	return "start it with bnpl sandbox serve (or its container), check the address, or wait longer with --timeout"
}

// waitRefused is an answer that no amount of waiting changes.
type waitRefused struct {
	msg, hint string
	code      int
}

func (e *waitRefused) Error() string { return e.msg }
func (e *waitRefused) ExitCode() int { return e.code }
func (e *waitRefused) Hint() string  { return e.hint }

// wantSandbox is what the sandbox answering must be; "" is anything.
type wantSandbox struct{ instance, state string }

// check refuses a healthy answer from another sandbox than the one meant.
func (w wantSandbox) check(endpoint string, h *sandbox.Health) error {
	base := strings.TrimSuffix(endpoint, wire.SandboxHealthPath)
	hint := "another sandbox answers there: perhaps it holds the port and the one meant could not listen (its output says); stop the other one or use another port"
	switch {
	case w.instance != "" && h.Instance != w.instance:
		got := "names no instance"
		if h.Instance != "" {
			got = "is instance " + h.Instance
		}
		return &otherSandbox{waitRefused{msg: fmt.Sprintf("the sandbox at %s %s, not %s", secret.RedactURL(base), got, w.instance), hint: hint, code: cmdutil.ExitError}}
	case w.state != "" && h.State != w.state:
		return &otherSandbox{waitRefused{msg: fmt.Sprintf("the sandbox at %s keeps its state %s, not %s", secret.RedactURL(base), stateWord(h.State), stateWord(w.state)), hint: hint, code: cmdutil.ExitError}}
	}
	return nil
}

// otherSandbox is a healthy answer from another sandbox than the one meant.
type otherSandbox struct{ waitRefused }

// waitHealthy asks base's /_sandbox/health until it answers 200 or ctx's
// deadline (timeout from now) passes; the sandbox must be want.
func waitHealthy(ctx context.Context, base string, timeout time.Duration, want wantSandbox) (*sandbox.Health, json.RawMessage, error) {
	client := &http.Client{
		// The sandbox is local or a neighbour container: never a proxy.
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	endpoint := base + wire.SandboxHealthPath
	last := "no answer yet"
	for {
		h, raw, reason, err := checkHealth(ctx, client, endpoint)
		if err == nil && h != nil {
			err = want.check(endpoint, h)
		}
		if err != nil || h != nil {
			return h, raw, err
		}
		last = reason
		select {
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				return nil, nil, &waitTimeout{base: base, timeout: timeout, last: last}
			}
			return nil, nil, ctx.Err()
		case <-time.After(waitPoll):
		}
	}
}

// checkHealth asks once: the health when healthy, else the reason to try
// again, or an error that ends the wait.
func checkHealth(ctx context.Context, client *http.Client, endpoint string) (*sandbox.Health, json.RawMessage, string, error) {
	attempt := waitAttempt
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < attempt {
		attempt = time.Until(deadline).Round(time.Millisecond)
	}
	actx, cancel := context.WithTimeout(ctx, attempt)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, nil, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, nil, "", ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			// The attempt's time, or the wait's own when less was left.
			return nil, nil, "no answer within " + attempt.String(), nil
		}
		return nil, nil, "no answer (" + shortNetErr(err) + ")", nil
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxHealthBody))
	if err != nil {
		return nil, nil, "the answer was cut: " + shortNetErr(err), nil
	}
	var h sandbox.Health
	decoded := json.Unmarshal(raw, &h) == nil && h.Status != ""
	switch {
	case resp.StatusCode == http.StatusOK && decoded && h.Status == "ok":
		return &h, raw, "", nil
	case resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode >= 500:
		if decoded && h.Error != "" {
			return nil, nil, fmt.Sprintf("%d: %s", resp.StatusCode, h.Error), nil
		}
		return nil, nil, resp.Status, nil
	case resp.StatusCode == http.StatusForbidden:
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(raw, &e)
		msg := "the sandbox refused the health check (403)"
		if e.Error != "" {
			msg += ": " + e.Error
		}
		return nil, nil, "", &waitRefused{msg: msg, code: cmdutil.ExitPermission,
			hint: "a sandbox answers host names other than addresses and localhost only when named: bnpl sandbox serve --allowed-host NAME (env BNPL_SANDBOX_ALLOW_HOST)"}
	default:
		return nil, nil, "", &waitRefused{msg: fmt.Sprintf("GET %s answered %s: not a bnpl sandbox, or one without a health check", endpoint, resp.Status), code: cmdutil.ExitError,
			hint: "check the address; bnpl sandbox serve answers GET /_sandbox/health"}
	}
}

// shortNetErr is a network error without Go's "Get URL:" prefix.
func shortNetErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}
