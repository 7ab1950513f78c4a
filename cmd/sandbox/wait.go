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

func newWaitCmd(f *cmdutil.Factory) *cobra.Command {
	var timeout time.Duration
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
printed on stdout: {"status", "version", "state", "uptime", "uptime_seconds"}.`,
		Example: `  bnpl sandbox serve --state :memory: & bnpl sandbox wait
  bnpl sandbox wait --sandbox-url http://bnpl-sandbox:8700 --timeout 60s
  bnpl sandbox wait -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if timeout <= 0 {
				return cmdutil.Usagef("--timeout must be positive, got %s", timeout)
			}
			base, source := f.SandboxURL(), "--sandbox-url"
			if f.Global.SandboxURL == "" && base != "" {
				source = cmdutil.EnvSandboxURL
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
				return cmdutil.UsageHint("give the sandbox's base URL, such as http://127.0.0.1:8700", "%s %q is not an http(s) URL", source, base)
			}
			base = strings.TrimRight(base, "/")
			h, raw, err := waitHealthy(cmd.Context(), base, timeout)
			if err != nil {
				return err
			}
			f.Noticef("the sandbox at %s is healthy: bnpl %s, state %s, up %s", secret.RedactURL(base), h.Version, stateWord(h.State), h.Uptime)
			if f.Global.Output == "json" || f.Global.Output == "jsonl" || f.Global.JQ != "" || f.Global.Template != "" {
				printer, err := f.Printer()
				if err != nil {
					return err
				}
				return printer.Object(raw, nil)
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "how long to wait before giving up with exit code 10")
	return cmd
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

// waitHealthy asks base's /_sandbox/health until it answers 200 or
// timeout passes.
func waitHealthy(ctx context.Context, base string, timeout time.Duration) (*sandbox.Health, json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{
		// The sandbox is local or a neighbour container: never a proxy.
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	endpoint := base + "/_sandbox/health"
	last := "no answer yet"
	for {
		h, raw, reason, err := checkHealth(ctx, client, endpoint)
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
	actx, cancel := context.WithTimeout(ctx, waitAttempt)
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
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer within " + waitAttempt.String()
	}
	return err.Error()
}
