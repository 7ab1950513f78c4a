// Package shared is what the two webhook nouns share: `bnpl webhooks`
// (payment webhooks) and `bnpl dispute-webhooks` are one implementation of
// the five verbs (add, list, get, update, remove) over the API's two
// resources, each noun describing its resource as a Resource. The header
// flags and the URL rules of both are here too.
package shared

import (
	"context"
	"encoding/json"
	"io"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// Resource is one of the API's webhook resources as a noun of bnpl: the
// words its verbs say and the endpoints they call.
type Resource struct {
	// Noun names one webhook in messages: "payment webhook".
	Noun string
	// Command is the noun's command: "webhooks".
	Command string
	// IDKind names the id for its check ("webhook" → "invalid webhook id"),
	// IDArg in a usage error about a missing one ("a webhook id").
	IDKind, IDArg string
	// TestFlag gives add and update --test: the webhook carries is_test.
	TestFlag bool
	// RequireHTTPS refuses a plain http URL before sending.
	RequireHTTPS bool
	// LoopbackHint gives a local refusal of a loopback URL the way to
	// reach a receiver on this machine.
	LoopbackHint bool
	// RequireLive, when set, makes the resource live-only: every verb calls
	// it first, and it refuses a target without a live key.
	RequireLive func(target func() (*config.Target, error)) error
	// Deps are the dependencies of every verb, from the factory.
	Deps func(f *cmdutil.Factory) Options
	// Columns are the columns of a list.
	Columns []output.Column
	// Add, List, Get, Update and Remove are what each verb's help says.
	Add, List, Get, Update, Remove Help
	// The endpoints.
	ListAll func(ctx context.Context, c *api.Client) ([]Hook, error)
	Read    func(ctx context.Context, c *api.Client, id string) (*Hook, error)
	Create  func(ctx context.Context, c *api.Client, req Request) (*Hook, error)
	Replace func(ctx context.Context, c *api.Client, id string, req Request) (*Hook, error)
	Delete  func(ctx context.Context, c *api.Client, id string) error
	// ExplainCreate, when set, may give a create the service refused its
	// reason: the error that says it, or nil where it has none.
	ExplainCreate func(ctx context.Context, c *api.Client, url string, err error) error
}

// Help is what a verb's help says.
type Help struct {
	Use, Short, Long, Example string
}

// Hook is one webhook as the service answered it, and its view.
type Hook struct {
	ID     string
	Raw    json.RawMessage
	Detail *output.Detail
}

// Request is the webhook add and update send. IsTest is nil for a
// resource without a test mode of its own.
type Request struct {
	URL    string
	IsTest *bool
	Header *api.WebhookHeader
}

// Options are the inputs of every verb: the webhook named and the
// dependencies that reach the service.
type Options struct {
	ID string
	// Limit caps the rows of a list (0: every one).
	Limit   int
	Notice  func(format string, args ...any)
	Target  func() (*config.Target, error)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
	// Confirm asks before a live webhook is removed (on a terminal,
	// without --yes).
	Confirm func(ctx context.Context, question string) error
}

// FactoryOptions are the Options of a resource reached with the
// profile's key of the mode asked for.
func FactoryOptions(f *cmdutil.Factory) Options {
	return Options{Notice: f.Noticef, Target: f.Target, Client: f.Client, Printer: f.Printer,
		Confirm: func(ctx context.Context, q string) error { return f.AskFirst(ctx, q, cmdutil.ErrNotConfirmed) }}
}

// RequestOptions are the inputs of add and update: the webhook to send.
type RequestOptions struct {
	Options
	URL     string
	Header  HeaderFlags
	Test    *bool // --test / --test=false; nil follows the key's mode
	URLRule URLCheck
	Stdin   io.Reader
	Getenv  func(string) string
}

func newRequestOptions(f *cmdutil.Factory, r *Resource) *RequestOptions {
	return &RequestOptions{Options: r.Deps(f), URLRule: URLCheck{RequireHTTPS: r.RequireHTTPS, Warn: f.Noticef},
		Header: NewHeaderFlags(f), Stdin: f.IO.In, Getenv: f.Getenv}
}

// requireLive runs the resource's live-only check, if it has one.
func (r *Resource) requireLive(o *Options) error {
	if r.RequireLive == nil {
		return nil
	}
	return r.RequireLive(o.Target)
}

// prepare runs every local check of add and update, in an order that
// sends nothing until all have passed.
func (r *Resource) prepare(ctx context.Context, o *RequestOptions) (*Request, *output.Printer, *api.Client, error) {
	if err := r.requireLive(&o.Options); err != nil {
		return nil, nil, nil, err
	}
	t, err := o.Target()
	if err != nil {
		return nil, nil, nil, err
	}
	normalised, err := o.URLRule.Check(ctx, o.URL, t)
	if err != nil {
		if r.LoopbackHint {
			err = loopbackHint(err, o.URL, t, r.Command)
		}
		return nil, nil, nil, err
	}
	if normalised != o.URL {
		o.Notice("URL normalised to %s", normalised)
	}
	header, err := o.Header.Header(o.Stdin, o.Getenv)
	if err != nil {
		return nil, nil, nil, err
	}
	req := &Request{URL: normalised, Header: header}
	if r.TestFlag {
		isTest := !t.Live
		if o.Test != nil {
			isTest = *o.Test
		}
		req.IsTest = &isTest
	}
	printer, client, err := cmdutil.PrinterAndClient(o.Printer, o.Client)
	if err != nil {
		return nil, nil, nil, err
	}
	return req, printer, client, nil
}

// Hooks are the webhooks of a list the service answered, each made a Hook
// by hook.
func Hooks[T any](items []T, err error, hook func(*T) Hook) ([]Hook, error) {
	if err != nil {
		return nil, err
	}
	out := make([]Hook, len(items))
	for i := range items {
		out[i] = hook(&items[i])
	}
	return out, nil
}

// One is the webhook the service answered, made a Hook by hook.
func One[T any](item *T, err error, hook func(*T) Hook) (*Hook, error) {
	if err != nil {
		return nil, err
	}
	h := hook(item)
	return &h, nil
}
