// Package disputewebhooks holds the `bnpl dispute-webhooks` commands: the
// second of the API's two webhook resources, whose verbs are those of
// `bnpl webhooks` (cmd/webhooks/shared). Dispute webhooks, like disputes,
// exist in live mode only.
package disputewebhooks

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/cmd/disputes"
	"github.com/bnpl-cli/bnpl/cmd/webhooks/shared"
	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

const what = "dispute webhooks"

const liveOnlyNote = `
Dispute webhooks have no test mode: the command uses the profile's live key by
itself (saying so in a one-line notice; --live or BNPL_LIVE=1 make it silent).
Without a live key it stops before sending anything and exits 2, saying how to add
one.`

// NewCmd returns `bnpl dispute-webhooks` and its verbs.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dispute-webhooks <verb>",
		Short: "Register, list, replace and remove dispute webhooks (live only)",
		Long: `Dispute webhooks receive a notification ({status, dispute_id, payment_id, amount,
currency, created_at}) when a dispute is opened or changes. A merchant has at most 4.
Requests carry the profile's merchant code as X-Merchant-Code.

The URL must be absolute, http or https (https is recommended), on a public host
name: localhost, raw IP addresses in any form, and names under .localhost, .local,
.internal, .invalid, .test or .example (names that never resolve) are refused before
sending, without a DNS lookup; hosts are judged in their IDNA form. It is normalised
as the service stores it: scheme and host lower case, international names in xn--
form, default port and trailing slash removed; the normalised URL must be unique. A
loopback URL sent to a sandbox served on loopback is left to that sandbox to judge
(one started with --allow-local-webhooks accepts it).

A static header (--header-title, an HTTP token of at most 128 characters) is added to
every notification. Its value (at most 1024 characters) is a secret: it is read from
stdin or an environment variable, never from a flag, and the service shows it masked.
` + liveOnlyNote,
	}
	cmd.AddCommand(shared.Verbs(f, Resource)...)
	return cmd
}

// ListColumns are the columns of a dispute-webhooks table.
var ListColumns = []output.Column{
	{Header: "ID", Path: "id", Kind: output.KindID},
	{Header: "URL", Path: "url", Kind: output.Below(output.KindID)},
	{Header: "HEADER", Path: "header.title", Kind: output.KindPlain},
	{Header: "VALUE", Path: "header.value", Kind: output.KindPlain},
}

// Detail is the view of one dispute webhook.
func Detail(w *api.DisputeWebhook) *output.Detail {
	return &output.Detail{Fields: append([]output.Field{
		{Label: "ID", Value: w.ID},
		{Label: "URL", Value: w.URL},
	}, shared.HeaderFields(w.Header)...)}
}

// explainRefusal turns the service's terse 400 bad_request on a create
// into a reason, when the registered webhooks show one: the limit of 4,
// or the URL already registered. It answers nil when they show none.
func explainRefusal(ctx context.Context, client *api.Client, url string, err error) error {
	var apiErr *api.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest {
		return nil
	}
	hooks, lerr := client.ListDisputeWebhooks(ctx)
	if lerr != nil {
		return nil
	}
	for _, h := range hooks {
		if h.URL == url {
			return cmdutil.WithHint(err, fmt.Sprintf("%s is already registered as %s; change it with `bnpl dispute-webhooks update %s`", url, h.ID, h.ID))
		}
	}
	if len(hooks) >= api.MaxDisputeWebhooks {
		return cmdutil.WithHint(err, fmt.Sprintf("a merchant has at most %d dispute webhooks and %d are registered; remove one with `bnpl dispute-webhooks remove ID`", api.MaxDisputeWebhooks, len(hooks)))
	}
	return nil
}

// Resource is the dispute webhooks: live only, http or https, at most 4,
// and a refused create explained by the webhooks already registered.
var Resource = &shared.Resource{
	Noun: "dispute webhook", Command: "dispute-webhooks", IDKind: "dispute webhook", IDArg: "a dispute webhook id",
	RequireLive: func(target func() (*config.Target, error)) error { return disputes.RequireLive(target, what) },
	Deps: func(f *cmdutil.Factory) shared.Options {
		o := shared.FactoryOptions(f)
		o.Target, o.Client = disputes.LiveTarget(f, what), disputes.LiveClient(f, what)
		return o
	},
	Columns: ListColumns,
	Add: shared.Help{
		Use:   "add <url> [--header-title T (--header-value-stdin | --header-value-env VAR)]",
		Short: "Register a dispute webhook",
		Long: `Register a dispute webhook. The URL is checked and normalised first, and the
header title and value are checked; see bnpl dispute-webhooks --help for the rules.
` + liveOnlyNote,
		Example: `  bnpl dispute-webhooks add https://example.com/hooks/disputes
  printf '%s\n' "$HOOK_SECRET" | bnpl dispute-webhooks add https://example.com/hooks/disputes --header-title X-Hook --header-value-stdin
  bnpl dispute-webhooks add https://example.com/hooks/disputes --header-title X-Hook --header-value-env HOOK_SECRET`,
	},
	List: shared.Help{
		Use:   "list",
		Short: "List the dispute webhooks, header values masked",
		Long:  "List the merchant's dispute webhooks (at most 4), header values masked.\n" + liveOnlyNote,
		Example: `  bnpl dispute-webhooks list
  bnpl dispute-webhooks list -o json --jq '.[].url'`,
	},
	Get: shared.Help{
		Use:     "get <webhook-id>",
		Short:   "Show a dispute webhook, its header value masked",
		Long:    "Show a dispute webhook, its header value masked.\n" + liveOnlyNote,
		Example: `  bnpl dispute-webhooks get 5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b`,
	},
	Update: shared.Help{
		Use:   "update <webhook-id> <url> (--header-title T --header-value-stdin|--header-value-env VAR | --remove-header)",
		Short: "Replace a dispute webhook's URL and header",
		Long: `Replace a dispute webhook as a whole (PUT): the service drops the header of a webhook
replaced without one. Since it shows header values masked, the current value cannot be
sent back: give the header again, or pass --remove-header to drop it. One of the two is
required, so that a header is never removed by omission.
` + liveOnlyNote,
		Example: `  bnpl dispute-webhooks update 5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b https://example.com/hooks/disputes --header-title X-Hook --header-value-env HOOK_SECRET
  bnpl dispute-webhooks update 5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b https://example.com/hooks/disputes --remove-header`,
	},
	Remove: shared.Help{
		Use:     "remove <webhook-id>",
		Short:   "Remove a dispute webhook (asks first on a terminal; --yes skips)",
		Long:    "Remove a dispute webhook.\n" + liveOnlyNote,
		Example: `  bnpl dispute-webhooks remove 5b0e4f3a-2c1d-4e8f-9a7b-6c5d4e3f2a1b`,
	},
	ListAll: func(ctx context.Context, c *api.Client) ([]shared.Hook, error) {
		hooks, err := c.ListDisputeWebhooks(ctx)
		return shared.Hooks(hooks, err, hook)
	},
	Read: func(ctx context.Context, c *api.Client, id string) (*shared.Hook, error) {
		w, err := c.GetDisputeWebhook(ctx, id)
		return shared.One(w, err, hook)
	},
	Create: func(ctx context.Context, c *api.Client, req shared.Request) (*shared.Hook, error) {
		w, err := c.CreateDisputeWebhook(ctx, api.DisputeWebhookRequest{URL: req.URL, Header: req.Header})
		return shared.One(w, err, hook)
	},
	Replace: func(ctx context.Context, c *api.Client, id string, req shared.Request) (*shared.Hook, error) {
		w, err := c.ReplaceDisputeWebhook(ctx, id, api.DisputeWebhookRequest{URL: req.URL, Header: req.Header})
		return shared.One(w, err, hook)
	},
	Delete:        func(ctx context.Context, c *api.Client, id string) error { return c.DeleteDisputeWebhook(ctx, id) },
	ExplainCreate: explainRefusal,
}

func hook(w *api.DisputeWebhook) shared.Hook {
	return shared.Hook{ID: w.ID, Raw: w.Raw(), Detail: Detail(w)}
}
