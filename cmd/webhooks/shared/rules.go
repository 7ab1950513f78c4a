package shared

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"

	"github.com/spf13/pflag"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/netguard"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/secret"
	"github.com/bnpl-cli/bnpl/internal/webhook"
)

// HeaderFlags give a webhook's static header. The value is a secret, so it
// is read from stdin or an environment variable, never from a flag, where
// it would land in shell history and process listings.
type HeaderFlags struct {
	Title      string
	ValueStdin bool
	ValueEnv   string
	// Remove is update's explicit "no header": a replace without a header
	// drops the registered one, which must not happen by omission.
	Remove bool
	// Ask, when set (stdin is a terminal), asks for the value with
	// --header-value-stdin instead of reading a line, without echoing what
	// is typed.
	Ask func(label string) (string, error)
}

// NewHeaderFlags are the header flags of a command: on a terminal,
// --header-value-stdin asks for the value with echo off.
func NewHeaderFlags(f *cmdutil.Factory) HeaderFlags {
	var h HeaderFlags
	if f.IO.IsStdinTTY() {
		h.Ask = f.Prompter(context.Background()).Secret
	}
	return h
}

// Register adds the header flags to fl; update adds --remove-header.
func (h *HeaderFlags) Register(fl *pflag.FlagSet, update bool) {
	fl.StringVar(&h.Title, "header-title", "", "name of a static header sent with every notification, e.g. X-Webhook-Secret")
	fl.BoolVar(&h.ValueStdin, "header-value-stdin", false, "read the header's secret value from the first line of stdin (asked for, hidden, on a terminal)")
	fl.StringVar(&h.ValueEnv, "header-value-env", "", "read the header's secret value from this environment variable")
	if update {
		fl.BoolVar(&h.Remove, "remove-header", false, "register the webhook without a header, removing the current one")
	}
}

// Given reports whether a header was asked for.
func (h *HeaderFlags) Given() bool { return h.Title != "" || h.ValueStdin || h.ValueEnv != "" }

// Validate checks the combination of flags; requireChoice makes update
// demand either a header or --remove-header.
func (h *HeaderFlags) Validate(requireChoice bool) error {
	const how = "give the header as --header-title NAME with --header-value-stdin or --header-value-env VAR"
	switch {
	case h.Remove && h.Given():
		return cmdutil.Usagef("--remove-header cannot be combined with --header-title, --header-value-stdin or --header-value-env")
	case h.ValueStdin && h.ValueEnv != "":
		return cmdutil.Usagef("--header-value-stdin and --header-value-env cannot be used together")
	case h.Title == "" && (h.ValueStdin || h.ValueEnv != ""):
		return cmdutil.UsageHint(how, "a header value needs --header-title")
	case h.Title != "" && !h.ValueStdin && h.ValueEnv == "":
		return cmdutil.UsageHint(how+"; the value is never taken from a flag", "--header-title needs --header-value-stdin or --header-value-env")
	case requireChoice && !h.Remove && !h.Given():
		return cmdutil.UsageHint("update replaces the whole webhook and header values cannot be read back: give the header again (--header-title NAME with --header-value-stdin or --header-value-env VAR), or pass --remove-header to drop it",
			"update needs the header or --remove-header")
	}
	if h.Title != "" {
		return webhook.CheckHeaderTitle(h.Title)
	}
	return nil
}

// Header reads the value and returns the header to send, nil for none.
func (h *HeaderFlags) Header(stdin io.Reader, getenv func(string) string) (*api.WebhookHeader, error) {
	if h.Title == "" {
		return nil, nil
	}
	var value string
	if h.ValueStdin && h.Ask != nil {
		line, err := h.Ask("Value of header " + h.Title + " (hidden): ")
		if errors.Is(err, cmdutil.ErrInterrupted) {
			return nil, err
		}
		value = strings.TrimRight(line, "\r\n")
		if value == "" {
			return nil, cmdutil.Refuse("type the value at the prompt, or pipe it in", "no header value given")
		}
	} else if h.ValueStdin {
		line, err := bufio.NewReader(io.LimitReader(stdin, api.MaxHeaderValue*4+2)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, cmdutil.Refuse("pipe the value in, e.g. `printf '%s\\n' \"$SECRET\" | bnpl ...`", "could not read the header value from stdin: %v", err)
		}
		value = strings.TrimRight(line, "\r\n")
		if value == "" {
			return nil, cmdutil.Refuse("pipe the value in, e.g. `printf '%s\\n' \"$SECRET\" | bnpl ...`", "no header value on stdin")
		}
	} else {
		value = getenv(h.ValueEnv)
		if value == "" {
			return nil, cmdutil.Refuse("export the variable first, e.g. `export "+h.ValueEnv+"=$(openssl rand -hex 32)`", "environment variable %s is empty or unset", h.ValueEnv)
		}
	}
	if err := webhook.CheckHeaderValue(value); err != nil {
		return nil, err
	}
	return &api.WebhookHeader{Title: h.Title, Value: value}, nil
}

// URLCheck checks a webhook URL against the service's rules before it is
// sent, and returns its normalised form.
type URLCheck struct {
	// RequireHTTPS is set for payment webhooks.
	RequireHTTPS bool
	// AllowLocal is --allow-local: the host rules are skipped, for a
	// sandbox that delivers to local receivers.
	AllowLocal bool
	Resolver   webhook.Resolver
	// Warn receives what this machine's DNS says about the host; the
	// service's own lookup decides, so it warns rather than refuses.
	Warn func(format string, args ...any)
}

// Check returns the normalised URL, refusing --allow-local unless the
// target is a sandbox: a real service would refuse the URL anyway. A
// loopback URL (http://127.0.0.1:PORT/...) sent to a sandbox is checked
// for syntax only: whether it is admitted depends on how that sandbox was
// started (--allow-local-webhooks), so the sandbox judges it. The host
// rules are judged without DNS unless a Resolver is set.
func (c URLCheck) Check(ctx context.Context, raw string, target *config.Target) (string, error) {
	if c.AllowLocal && !IsSandbox(target) {
		return "", cmdutil.Refuse("drop --allow-local; it is for a sandbox started with --allow-local-webhooks",
			"--allow-local is accepted only against a sandbox, and %s is not one", secret.RedactURL(target.BaseURL))
	}
	local := c.AllowLocal || !target.Embedded && IsSandbox(target) && loopbackURL(raw)
	rules := webhook.URLRules{RequireHTTPS: c.RequireHTTPS && !local, AllowLocal: local, Resolver: c.Resolver}
	if c.Warn != nil {
		rules.Advisory = func(problem string) { c.Warn("warning: %s", problem) }
	}
	return rules.Check(ctx, raw)
}

// ExplainRefusal gives a sandbox's refusal of a loopback URL the hint that
// matters: the sandbox must be started with --allow-local-webhooks.
func ExplainRefusal(err error, raw string, target func() (*config.Target, error)) error {
	e, ok := api.AsAPIError(err)
	if !ok || e.Status != 400 || strings.Contains(e.Message, "already exists") || strings.Contains(e.Message, "max number") || !loopbackURL(raw) {
		return err
	}
	if t, terr := target(); terr != nil || !IsSandbox(t) {
		return err
	}
	return api.WithHint(err, "this sandbox refuses loopback receivers: start it with `bnpl sandbox serve --allow-local-webhooks` to register "+redactURL(raw))
}

// loopbackURL reports a URL whose host is localhost or a loopback address.
func loopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := strings.TrimSuffix(u.Hostname(), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the URL"
	}
	u.User = nil
	return u.String()
}

// IsSandbox reports whether the target is the embedded sandbox or one
// served on loopback.
func IsSandbox(t *config.Target) bool {
	if t.Embedded {
		return true
	}
	u, err := url.Parse(t.BaseURL)
	if err != nil {
		return false
	}
	return netguard.LoopbackCandidate(u.Hostname())
}

// loopbackHint gives a local refusal of a loopback URL the hint that
// matters. A sandbox served on loopback judges such a URL itself (the
// check lets it through); this is the embedded sandbox or a service,
// neither of which delivers to this machine. command is the noun's
// command, for the line to run.
func loopbackHint(err error, raw string, t *config.Target, command string) error {
	if !loopbackURL(raw) || strings.Contains(err.Error(), "--allow-local") {
		return err
	}
	hint := "the service delivers to public addresses only: run `bnpl listen` behind a public tunnel and register its address"
	if IsSandbox(t) {
		hint = "the embedded sandbox delivers to no local receiver: run `bnpl sandbox serve --allow-local-webhooks` and register the URL with it: BNPL_BASE_URL=http://127.0.0.1:8700 bnpl " + command + " add URL"
	}
	return cmdutil.Refuse(hint, "%s", err.Error())
}

// HeaderFields shows a webhook's header, its value masked.
func HeaderFields(h *api.WebhookHeader) []output.Field {
	if h == nil {
		return []output.Field{{Label: "Header", Value: "(none)"}}
	}
	return []output.Field{{Label: "Header", Value: h.Title}, {Label: "Value", Value: h.Value}}
}
