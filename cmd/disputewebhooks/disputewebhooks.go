// Package disputewebhooks holds the `bnpl dispute-webhooks` commands.
// Dispute webhooks, like disputes, exist in live mode only.
package disputewebhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/cmd/disputes"
	"github.com/bnpl-cli/bnpl/cmd/webhooks"
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
	cmd.AddCommand(newAddCmd(f, nil), newListCmd(f, nil), newGetCmd(f, nil), newUpdateCmd(f, nil), newRemoveCmd(f, nil))
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
	}, webhooks.HeaderFields(w.Header)...)}
}

// RequestOptions are what add and update share.
type RequestOptions struct {
	URL     string
	Header  webhooks.HeaderFlags
	URLRule webhooks.URLCheck

	Stdin   io.Reader
	Getenv  func(string) string
	Notice  func(format string, args ...any)
	Target  func() (*config.Target, error)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
}

func newRequestOptions(f *cmdutil.Factory) RequestOptions {
	return RequestOptions{URLRule: webhooks.URLCheck{Warn: f.Noticef}, Header: webhooks.NewHeaderFlags(f), Stdin: f.IO.In, Getenv: f.Getenv, Notice: f.Noticef, Target: disputes.LiveTarget(f, "dispute webhooks"), Client: disputes.LiveClient(f, "dispute webhooks"), Printer: f.Printer}
}

func (o *RequestOptions) register(cmd *cobra.Command, update bool) {
	o.Header.Register(cmd.Flags(), update)
	cmd.Flags().BoolVar(&o.URLRule.AllowLocal, "allow-local", false, "skip the public-host rules against a sandbox (a loopback URL sent to a sandbox served on loopback needs no flag)")
}

// prepare runs every local check, in an order that sends nothing until
// all have passed.
func (o *RequestOptions) prepare(ctx context.Context) (*api.DisputeWebhookRequest, *output.Printer, *api.Client, error) {
	if err := disputes.RequireLive(o.Target, what); err != nil {
		return nil, nil, nil, err
	}
	t, err := o.Target()
	if err != nil {
		return nil, nil, nil, err
	}
	normalised, err := o.URLRule.Check(ctx, o.URL, t)
	if err != nil {
		return nil, nil, nil, err
	}
	if normalised != o.URL {
		o.Notice("URL normalised to %s", normalised)
	}
	header, err := o.Header.Header(o.Stdin, o.Getenv)
	if err != nil {
		return nil, nil, nil, err
	}
	printer, err := o.Printer()
	if err != nil {
		return nil, nil, nil, err
	}
	client, err := o.Client()
	if err != nil {
		return nil, nil, nil, err
	}
	return &api.DisputeWebhookRequest{URL: normalised, Header: header}, printer, client, nil
}

// explainRefusal turns the service's terse 400 bad_request on a create
// into a reason, when the registered webhooks show one: the limit of 4,
// or the URL already registered.
func explainRefusal(ctx context.Context, client *api.Client, url string, err error) error {
	var apiErr *api.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest {
		return err
	}
	hooks, lerr := client.ListDisputeWebhooks(ctx)
	if lerr != nil {
		return err
	}
	for _, h := range hooks {
		if h.URL == url {
			return &hinted{err: err, hint: fmt.Sprintf("%s is already registered as %s; change it with `bnpl dispute-webhooks update %s`", url, h.ID, h.ID)}
		}
	}
	if len(hooks) >= api.MaxDisputeWebhooks {
		return &hinted{err: err, hint: fmt.Sprintf("a merchant has at most %d dispute webhooks and %d are registered; remove one with `bnpl dispute-webhooks remove ID`", api.MaxDisputeWebhooks, len(hooks))}
	}
	return err
}

// hinted adds a hint to an error and keeps its exit code.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }
func (h *hinted) Hint() string  { return h.hint }

func hookRecords(hooks []api.DisputeWebhook) []json.RawMessage {
	recs := make([]json.RawMessage, 0, len(hooks))
	for i := range hooks {
		recs = append(recs, hooks[i].Raw())
	}
	return recs
}
