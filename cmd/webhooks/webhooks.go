// Package webhooks holds the `bnpl webhooks` commands: payment webhooks,
// the first of the API's two webhook resources. The verbs are shared with
// `bnpl dispute-webhooks` (cmd/webhooks/shared); this package says what
// payment webhooks are and which endpoints serve them.
package webhooks

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/cmd/webhooks/shared"
	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
)

// NewCmd returns `bnpl webhooks` and its verbs.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "webhooks <verb>",
		Short: "Register, list, change and remove payment webhooks",
		Long: `Payment webhooks receive a notification, the payment as JSON, when a payment is
authorized, captured, closed, rejected, refunded or updated. They use the key of the
profile's mode: the test key by default, the live key with --live.

A webhook URL must be https, absolute, and on a public host name: localhost, raw IP
addresses in any form, and names under .localhost, .local, .internal, .invalid, .test
or .example (names that never resolve) are refused before sending. The check looks
no name up in DNS; the service does its own lookup. Hosts are judged in their IDNA
form, so fullwidth and look-alike names are judged as what they stand for. The URL
is normalised as the service stores it: scheme and host lower case, international
names in xn-- form, default port and trailing slash removed. A loopback URL
(http://127.0.0.1:PORT/...) sent to a sandbox served on loopback is left to that
sandbox to judge: one started with --allow-local-webhooks accepts it, so that
notifications reach bnpl listen on this machine.

A static header (--header-title) is added to every notification, so the receiver
can tell it comes from the service. Its value is a secret: it is read from stdin or
an environment variable, never from a flag, and shown masked.`,
	}
	cmd.AddCommand(shared.Verbs(f, Resource)...)
	return cmd
}

// Resource is the payment webhooks: registered with the key of the
// profile's mode, each with its own is_test, https only.
var Resource = &shared.Resource{
	Noun: "payment webhook", Command: "webhooks", IDKind: "webhook", IDArg: "a webhook id",
	TestFlag: true, RequireHTTPS: true, LoopbackHint: true,
	Deps:    shared.FactoryOptions,
	Columns: ListColumns,
	Add: shared.Help{
		Use:   "add <url>",
		Short: "Register a payment webhook",
		Long: `Register a payment webhook. The URL is checked and normalised first (see
bnpl webhooks --help). The webhook receives test-mode notifications when registered
with a test key and live ones with a live key; --test or --test=false says so
explicitly.`,
		Example: `  bnpl webhooks add https://example.com/hooks/bnpl
  printf '%s\n' "$HOOK_SECRET" | bnpl webhooks add https://example.com/hooks/bnpl --header-title X-Hook --header-value-stdin
  bnpl webhooks add https://example.com/hooks/bnpl --live --header-title X-Hook --header-value-env HOOK_SECRET`,
	},
	List: shared.Help{
		Use:   "list",
		Short: "List the payment webhooks, header values masked",
		Example: `  bnpl webhooks list
  bnpl webhooks list --live -o json --jq '.[].url'`,
	},
	Get: shared.Help{
		Use:     "get <webhook-id>",
		Short:   "Show a payment webhook, its header value masked",
		Example: `  bnpl webhooks get 5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b`,
	},
	Update: shared.Help{
		Use:   "update <webhook-id> <url> (--header-title T --header-value-stdin|--header-value-env VAR | --remove-header)",
		Short: "Replace a payment webhook's URL and header",
		Long: `Replace a payment webhook: the URL and the header are sent whole. The service shows
header values masked, so the current value cannot be sent back: give the header again,
or pass --remove-header to register the webhook without one. One of the two is
required, so that a header is never dropped by omission.`,
		Example: `  bnpl webhooks update 5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b https://example.com/hooks/v2 --header-title X-Hook --header-value-env HOOK_SECRET
  bnpl webhooks update 5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b https://example.com/hooks/v2 --remove-header`,
	},
	Remove: shared.Help{
		Use:     "remove <webhook-id>",
		Short:   "Remove a payment webhook (a live one asks first on a terminal; --yes skips)",
		Example: `  bnpl webhooks remove 5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b`,
	},
	ListAll: func(ctx context.Context, c *api.Client) ([]shared.Hook, error) {
		hooks, err := c.ListWebhooks(ctx)
		return shared.Hooks(hooks, err, hook)
	},
	Read: func(ctx context.Context, c *api.Client, id string) (*shared.Hook, error) {
		w, err := c.GetWebhook(ctx, id)
		return shared.One(w, err, hook)
	},
	Create: func(ctx context.Context, c *api.Client, req shared.Request) (*shared.Hook, error) {
		w, err := c.CreateWebhook(ctx, request(req))
		return shared.One(w, err, hook)
	},
	Replace: func(ctx context.Context, c *api.Client, id string, req shared.Request) (*shared.Hook, error) {
		w, err := c.UpdateWebhook(ctx, id, request(req))
		return shared.One(w, err, hook)
	},
	Delete: func(ctx context.Context, c *api.Client, id string) error { return c.DeleteWebhook(ctx, id) },
}

func request(req shared.Request) api.WebhookRequest {
	return api.WebhookRequest{URL: req.URL, IsTest: req.IsTest, Header: req.Header}
}

func hook(w *api.Webhook) shared.Hook {
	return shared.Hook{ID: w.ID, Raw: w.Raw(), Detail: Detail(w)}
}
