package listen

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/secret"
)

// Self-registration: against a bnpl sandbox, listen registers its own
// address as a payment webhook and a dispute webhook of the merchant in
// use, through the public API with the profile's key (as `webhooks add`
// and `dispute-webhooks add` do), watches that both stay registered, and
// removes both when it stops. It adds its own webhooks beside any the
// merchant has and never changes or removes those: the merchant's own
// endpoints keep receiving, and a listen that is killed outright leaves
// only its own registrations behind, under its /listen-… path, which the
// next listen removes (sweep.go). Against the service it registers nothing.

// selfHeaderTitle is the header listen registers its webhooks with when
// no --header-title is given; its value is generated for the session and
// never shown.
const selfHeaderTitle = "X-Bnpl-Listen"

// watchEvery is how often the registrations are read back, to notice one
// removed by someone else or a sandbox that stopped.
const watchEvery = time.Second

// cleanupTimeout bounds the removal of the registrations at exit.
const cleanupTimeout = 10 * time.Second

// endError ends listen with its own exit code and a hint.
type endError struct {
	msg, hint string
	code      int
}

func (e *endError) Error() string { return e.msg }
func (e *endError) ExitCode() int { return e.code }
func (e *endError) Hint() string  { return e.hint }

// registration is what listen registered, and with what.
type registration struct {
	o        *Options
	where    string // "the sandbox at http://…" or "the embedded sandbox"
	merchant string
	payments *api.Client
	disputes *api.Client // nil when no dispute webhook was registered
	payID    string
	dispID   string
}

// sandboxTarget decides where listen may register itself: the target the
// other commands use, when it is the embedded sandbox or a bnpl sandbox
// answering on loopback. Otherwise it says on stderr how to register the
// listener by hand and answers nil.
func (o *Options) sandboxTarget(ctx context.Context, addr string) (*config.Target, string, error) {
	t, err := o.Target()
	if err != nil {
		return nil, "", err
	}
	if t.Embedded {
		return t, "the embedded sandbox", nil
	}
	shown := secret.RedactURL(t.BaseURL)
	switch {
	case !cmdutil.LoopbackURL(t.BaseURL):
		fmt.Fprintf(o.IO.ErrOut, "not registering anything: %s is the service, not a bnpl sandbox, and listen registers itself only with a sandbox.\n", shown)
	case !o.Probe(ctx, t.BaseURL):
		fmt.Fprintf(o.IO.ErrOut, "not registering anything: no bnpl sandbox answers at %s; start one with `bnpl sandbox serve --allow-local-webhooks` and run listen again, or register this listener yourself.\n", shown)
	default:
		return t, "the sandbox at " + shown, nil
	}
	o.byHand(addr)
	return nil, "", nil
}

// byHand says how to register the listener with the service: it delivers
// to public https addresses only, so through a tunnel.
func (o *Options) byHand(addr string) {
	header := ""
	if o.HeaderTitle != "" {
		header = " --header-title " + o.HeaderTitle + " --header-value-env " + o.HeaderValueEnv
	}
	fmt.Fprintf(o.IO.ErrOut, "The service delivers to public https addresses only: put http://%s behind an https tunnel and register the tunnel's address:\n", addr)
	fmt.Fprintf(o.IO.ErrOut, "  bnpl webhooks add https://TUNNEL-HOST/payments%s\n", header)
	fmt.Fprintf(o.IO.ErrOut, "  bnpl dispute-webhooks add https://TUNNEL-HOST/disputes%s\n", header)
	if header == "" {
		fmt.Fprintln(o.IO.ErrOut, "Give both a header (--header-title NAME --header-value-env VAR) and run listen with the same two flags, so that it refuses deliveries without it.")
	}
}

// selfHeader is the header listen registers and checks: the person's
// (--header-title, --header-value-env) or one generated for the session.
func selfHeader() (*api.WebhookHeader, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("generating the webhook header's value: %w", err)
	}
	return &api.WebhookHeader{Title: selfHeaderTitle, Value: hex.EncodeToString(b)}, nil
}

// hookBase is the URL the sandbox reaches the listener at: its address,
// with 127.0.0.1 (or ::1) for an address that listens on every interface,
// and a path of its own for the session.
func hookBase(ln net.Addr) (string, error) {
	host, port, err := net.SplitHostPort(ln.String())
	if err != nil {
		return "", err
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	}
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "http://" + net.JoinHostPort(host, port) + "/listen-" + hex.EncodeToString(b), nil
}

// register removes what killed listens left (see sweep), then registers
// the payment webhook, then the dispute webhook when the profile has a
// live key (dispute webhooks have no test mode). On an error nothing
// stays registered.
func (o *Options) register(ctx context.Context, t *config.Target, where, base string, header *api.WebhookHeader) (*registration, error) {
	reg := &registration{o: o, where: where, merchant: t.Merchant()}
	var err error
	if reg.payments, err = o.Client(); err != nil {
		return nil, err
	}
	live, liveErr := o.LiveClient("dispute webhooks")
	if liveErr != nil {
		live = nil
	}
	if u, err := url.Parse(base); err == nil {
		reg.sweep(ctx, u.Host, live)
	}
	isTest := !t.Live
	pay, err := reg.payments.CreateWebhook(ctx, api.WebhookRequest{URL: base + "/payments", IsTest: &isTest, Header: header})
	if err != nil {
		return nil, explainRegister(err, "payment", where)
	}
	reg.payID = pay.ID
	fmt.Fprintf(o.IO.ErrOut, "registered payment webhook %s on %s for %s (%s mode): %s\n", pay.ID, where, reg.merchant, modeName(t.Live), pay.URL)

	if liveErr != nil {
		fmt.Fprintf(o.IO.ErrOut, "no dispute webhook registered: %v\n", liveErr)
		return reg, nil
	}
	disp, err := live.CreateDisputeWebhook(ctx, api.DisputeWebhookRequest{URL: base + "/disputes", Header: header})
	if err != nil {
		reg.remove()
		return nil, explainRegister(err, "dispute", where)
	}
	reg.disputes, reg.dispID = live, disp.ID
	fmt.Fprintf(o.IO.ErrOut, "registered dispute webhook %s on %s for %s: %s\n", disp.ID, where, reg.merchant, disp.URL)
	return reg, nil
}

func modeName(live bool) string {
	if live {
		return "live"
	}
	return "test"
}

// explainRegister gives a refused registration the hint that matters.
func explainRegister(err error, kind, where string) error {
	e, ok := api.AsAPIError(err)
	if !ok || e.Status != 400 {
		return err
	}
	list := "bnpl webhooks list"
	if kind == "dispute" {
		list = "bnpl dispute-webhooks list"
	}
	switch {
	case strings.Contains(e.Message, "max number"), kind == "dispute" && e.Message == "bad_request":
		return api.WithHint(err, fmt.Sprintf("the merchant has as many %s webhooks as %s allows (or that address is taken): see `%s`, remove one you do not need, and start listen again", kind, where, list))
	case strings.Contains(e.Message, "invalid webhook url"):
		if where == "the embedded sandbox" {
			return api.WithHint(err, "the embedded sandbox's state does not admit loopback receivers: run `bnpl sandbox serve --allow-local-webhooks` (the setting stays in the state, and while it runs it delivers), then start listen again")
		}
		return api.WithHint(err, where+" was started without --allow-local-webhooks: stop it and start it again with `bnpl sandbox serve --allow-local-webhooks` (and the flags it had), then start listen again")
	}
	return err
}

// watch reads the registrations back every watchEvery until ctx ends and
// answers why listen must stop: one was removed by someone else, or the
// sandbox stopped answering. It answers nil when ctx ended first.
func (r *registration) watch(ctx context.Context) error {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if _, err := r.payments.GetWebhook(ctx, r.payID); err != nil && ctx.Err() == nil {
			return r.lost(err, "payment", &r.payID)
		}
		if r.disputes == nil {
			continue
		}
		if _, err := r.disputes.GetDisputeWebhook(ctx, r.dispID); err != nil && ctx.Err() == nil {
			return r.lost(err, "dispute", &r.dispID)
		}
	}
}

// lost words why the kind webhook *id could not be read back; a removed
// one is forgotten, so that the exit does not try to remove it.
func (r *registration) lost(err error, kind string, id *string) error {
	if e, ok := api.AsAPIError(err); ok && e.Status == 404 {
		gone := *id
		*id = ""
		return &endError{code: cmdutil.ExitNotFound,
			msg:  fmt.Sprintf("listen's %s webhook %s was removed from %s by someone else: stopping", kind, gone, r.where),
			hint: "start listen again to register it anew"}
	}
	return &endError{code: cmdutil.ExitNetwork,
		msg:  fmt.Sprintf("%s stopped answering (%v): stopping", r.where, err),
		hint: "start the sandbox again, then start listen again"}
}

// remove removes what is still registered, saying so, within
// cleanupTimeout, whatever the context of the run: it runs after Ctrl-C.
func (r *registration) remove() {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	if r.payID != "" {
		r.report("payment", r.payID, r.payments.DeleteWebhook(ctx, r.payID), "bnpl webhooks remove")
	}
	if r.dispID != "" && r.disputes != nil {
		r.report("dispute", r.dispID, r.disputes.DeleteDisputeWebhook(ctx, r.dispID), "bnpl dispute-webhooks remove")
	}
	r.payID, r.dispID = "", ""
}

func (r *registration) report(kind, id string, err error, how string) {
	var apiErr *api.APIError
	switch {
	case err == nil:
		fmt.Fprintf(r.o.IO.ErrOut, "removed %s webhook %s\n", kind, id)
	case errors.As(err, &apiErr) && apiErr.Status == 404:
		fmt.Fprintf(r.o.IO.ErrOut, "%s webhook %s was already gone\n", kind, id)
	default:
		fmt.Fprintf(r.o.IO.ErrOut, "warning: could not remove %s webhook %s from %s: %v; remove it with `%s %s`\n", kind, id, r.where, err, how, id)
	}
}
