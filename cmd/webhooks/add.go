package webhooks

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// RequestOptions are what add and update share: the webhook to send and
// the dependencies that build it.
type RequestOptions struct {
	URL     string
	Header  HeaderFlags
	Test    *bool // --test / --test=false; nil follows the key's mode
	URLRule URLCheck

	Stdin   io.Reader
	Getenv  func(string) string
	Notice  func(format string, args ...any)
	Target  func() (*config.Target, error)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
}

func newRequestOptions(f *cmdutil.Factory) RequestOptions {
	return RequestOptions{URLRule: URLCheck{RequireHTTPS: true, Warn: f.Noticef}, Header: NewHeaderFlags(f), Stdin: f.IO.In, Getenv: f.Getenv, Notice: f.Noticef, Target: f.Target, Client: f.Client, Printer: f.Printer}
}

// AddOptions are the inputs of `webhooks add`.
type AddOptions struct {
	RequestOptions
}

func newAddCmd(f *cmdutil.Factory, run func(context.Context, *AddOptions) error) *cobra.Command {
	opts := &AddOptions{newRequestOptions(f)}
	var test bool
	cmd := &cobra.Command{
		Use:   "add <url>",
		Short: "Register a payment webhook",
		Long: `Register a payment webhook. The URL is checked and normalised first (see
bnpl webhooks --help). The webhook receives test-mode notifications when registered
with a test key and live ones with a live key; --test or --test=false says so
explicitly.`,
		Example: `  bnpl webhooks add https://example.com/hooks/bnpl
  printf '%s\n' "$HOOK_SECRET" | bnpl webhooks add https://example.com/hooks/bnpl --header-title X-Hook --header-value-stdin
  bnpl webhooks add https://example.com/hooks/bnpl --live --header-title X-Hook --header-value-env HOOK_SECRET`,
		Args: cmdutil.ExactArgs(1, "a webhook URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.URL = args[0]
			if cmd.Flags().Changed("test") {
				opts.Test = &test
			}
			if err := opts.Header.Validate(false); err != nil {
				return err
			}
			if run != nil {
				return run(cmd.Context(), opts)
			}
			return addRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	opts.Header.Register(fl, false)
	fl.BoolVar(&test, "test", false, "receive test-mode notifications (default: the mode of the key)")
	fl.BoolVar(&opts.URLRule.AllowLocal, "allow-local", false, "skip the public-host rules against a sandbox (a loopback URL sent to a sandbox served on loopback needs no flag)")
	return cmd
}

func addRun(ctx context.Context, o *AddOptions) error {
	req, printer, client, err := o.prepare(ctx)
	if err != nil {
		return err
	}
	w, err := client.CreateWebhook(ctx, *req)
	if err != nil {
		return ExplainRefusal(err, req.URL, o.Target)
	}
	o.Notice("registered payment webhook %s", w.ID)
	return printer.Object(w.Raw(), Detail(w))
}

// prepare does what add and update share, in an order that sends nothing
// until every local check has passed.
func (o *RequestOptions) prepare(ctx context.Context) (*api.WebhookRequest, *output.Printer, *api.Client, error) {
	t, err := o.Target()
	if err != nil {
		return nil, nil, nil, err
	}
	normalised, err := o.URLRule.Check(ctx, o.URL, t)
	if err != nil {
		return nil, nil, nil, loopbackHint(err, o.URL, t)
	}
	if normalised != o.URL {
		o.Notice("URL normalised to %s", normalised)
	}
	header, err := o.Header.Header(o.Stdin, o.Getenv)
	if err != nil {
		return nil, nil, nil, err
	}
	isTest := !t.Live
	if o.Test != nil {
		isTest = *o.Test
	}
	printer, err := o.Printer()
	if err != nil {
		return nil, nil, nil, err
	}
	client, err := o.Client()
	if err != nil {
		return nil, nil, nil, err
	}
	return &api.WebhookRequest{URL: normalised, IsTest: &isTest, Header: header}, printer, client, nil
}

// loopbackHint gives a local refusal of a loopback URL the hint that
// matters. A sandbox served on loopback judges such a URL itself (the
// check lets it through); this is the embedded sandbox or a service,
// neither of which delivers to this machine.
func loopbackHint(err error, raw string, t *config.Target) error {
	if !loopbackURL(raw) || strings.Contains(err.Error(), "--allow-local") {
		return err
	}
	hint := "the service delivers to public addresses only: run `bnpl listen` behind a public tunnel and register its address"
	if IsSandbox(t) {
		hint = "the embedded sandbox delivers to no local receiver: run `bnpl sandbox serve --allow-local-webhooks` and register the URL with it: BNPL_BASE_URL=http://127.0.0.1:8700 bnpl webhooks add URL"
	}
	return cmdutil.Refuse(hint, "%s", err.Error())
}
